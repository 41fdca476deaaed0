/* Exits at once with status 0, leaving a child whose first thread has ended while another
 * thread of it runs on, holding stdout and stderr open. The kernel then shows the child's
 * first thread, a zombie, as the process (state Z in /proc/PID/stat): a harness that takes
 * that for a dead process never kills the thread, and waits for ever on the pipes. If the
 * fork is refused, it exits with status 3 (see escapee.c). */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *hold(void *arg) {
    (void)arg;
    for (;;) {
        pause();
    }
    return NULL;
}

int main(void) {
    puts("parent done");
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        pthread_t t;
        pthread_create(&t, NULL, hold, NULL);
        pthread_exit(NULL);
    }
    return child < 0 ? 3 : 0;
}
