/* forkcount: forks children that wait, until a fork fails or there are 100, prints
 * "forked N", then ends them. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    pid_t kids[100];
    int n = 0;
    for (; n < 100; n++) {
        pid_t p = fork();
        if (p < 0) {
            break;
        }
        if (p == 0) {
            pause();
            _exit(0);
        }
        kids[n] = p;
    }
    printf("forked %d\n", n);
    for (int i = 0; i < n; i++) {
        kill(kids[i], SIGKILL);
    }
    while (wait(0) > 0) {
    }
    return 0;
}
