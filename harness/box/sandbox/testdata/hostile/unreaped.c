/* Starts two children and ends without waiting for them (issue 57: a hub that leaves its
 * players to whoever reaps orphans): one has already died (a zombie when the parent ends),
 * one is still alive for a moment after. With the argument "reap" it kills and reaps both
 * first, as a hub should. With "hidden" it also leaves a third child that has made itself
 * non-dumpable, as a program run from a file its user may only execute is (the witness's
 * stand-ins for a hub's players), and waits for ever: a rootless box's init, which may not
 * trace it, does not find it in a /proc mounted with hidepid. Prints its pid, process group
 * and session first. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    printf("pid=%d pgrp=%d sid=%d\n", (int)getpid(), (int)getpgrp(), (int)getsid(0));
    fflush(stdout);
    pid_t dead = fork();
    if (dead == 0) {
        _exit(0);
    }
    pid_t alive = fork();
    if (alive == 0) {
        usleep(100000);
        _exit(0);
    }
    if (argc > 1 && strcmp(argv[1], "hidden") == 0) {
        int ready[2];
        if (pipe(ready) != 0) {
            return 1;
        }
        pid_t hidden = fork();
        if (hidden == 0) {
            close(ready[0]);
            prctl(PR_SET_DUMPABLE, 0);
            close(ready[1]); /* non-dumpable now */
            for (;;) {
                pause();
            }
        }
        close(ready[1]);
        char c;
        read(ready[0], &c, 1); /* the end of file: the child is non-dumpable */
    }
    usleep(50000); /* the first child is a zombie by now */
    if (argc > 1 && strcmp(argv[1], "reap") == 0) {
        kill(alive, SIGKILL);
        waitpid(dead, NULL, 0);
        waitpid(alive, NULL, 0);
    }
    return 0;
}
