/* Exits at once with status 0, leaving a grandchild that hides from every way of telling
 * a run's processes but its user: in a session of its own, orphaned, non-dumpable (the
 * files of its /proc/PID then belong to root), its environment wiped in place, its streams
 * closed (with the argument "keep", left open: it then holds the run's output). It waits
 * for ever. If the grandchild could not be made (a fork refused), it exits with status 3
 * instead, so that a test tells that from a grandchild the harness missed. */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
    int keep = argc > 1 && strcmp(argv[1], "keep") == 0;
    puts("parent done");
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        setsid();
        pid_t grandchild = fork();
        if (grandchild == 0) {
            prctl(PR_SET_DUMPABLE, 0);
            for (char **e = environ; *e; e++) {
                memset(*e, 0, strlen(*e));
            }
            if (!keep) {
                close(0);
                close(1);
                close(2);
            }
            for (;;) {
                pause();
            }
        }
        _exit(grandchild < 0 ? 1 : 0); /* 1: the fork was refused */
    }
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return 3;
    }
    return 0;
}
