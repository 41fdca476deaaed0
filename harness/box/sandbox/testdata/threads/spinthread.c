/* spinthread: its first thread waits (pthread_join) while a second thread spins for ever:
 * /proc/PID/stat shows the first thread's state, asleep, though the process works. */
#include <pthread.h>
#include <stdio.h>

static void *spin(void *arg) {
    volatile unsigned long n = 0;
    (void)arg;
    for (;;) {
        n++;
    }
    return NULL;
}

int main(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, spin, NULL) != 0) {
        return 1;
    }
    printf("spinning\n");
    fflush(stdout);
    pthread_join(t, NULL);
    return 0;
}
