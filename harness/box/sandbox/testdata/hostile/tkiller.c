/* tkiller PID TID...: sends SIGKILL to each thread TID of process PID, over and over,
 * after saying "ready" on stdout. A thread of the harness that became this program's
 * user for a moment (to set a program's limits) would take the whole harness down. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        return 2;
    }
    pid_t pid = (pid_t)atoi(argv[1]);
    int n = argc - 2;
    pid_t *tids = malloc(sizeof(pid_t) * n);
    for (int i = 0; i < n; i++) {
        tids[i] = (pid_t)atoi(argv[i + 2]);
    }
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        for (int i = 0; i < n; i++) {
            syscall(SYS_tgkill, pid, tids[i], SIGKILL);
        }
    }
}
