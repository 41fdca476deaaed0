/* Sends its PID namespace's init (pid 1) every signal a program can send (issue 56: a
 * rootless box's program has the init's user), then says it is still there. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    for (int sig = 1; sig < 65; sig++) {
        kill(1, sig);
    }
    usleep(200000); /* time for a signal to take the init down, as it did */
    printf("still here\n");
    return 3;
}
