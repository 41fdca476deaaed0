/* Exits at once with status 0, leaving a grandchild that holds stdout and stderr open.
 * With the argument "setsid" the middle child first moves to a session of its own, so the
 * grandchild is outside the session the harness made. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int away = argc > 1 && strcmp(argv[1], "setsid") == 0;
    puts("parent done");
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        if (away) {
            setsid();
        }
        if (fork() == 0) {
            for (;;) {
                pause();
            }
        }
        _exit(0);
    }
    waitpid(child, NULL, 0);
    return 0;
}
