/* Starts two children and ends without waiting for them (issue 57: a hub that leaves its
 * players to whoever reaps orphans): one has already died (a zombie when the parent ends),
 * one is still alive for a moment after. With the argument "reap" it kills and reaps both
 * first, as a hub should. Prints its pid, process group and session first. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
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
    usleep(50000); /* the first child is a zombie by now */
    if (argc > 1 && strcmp(argv[1], "reap") == 0) {
        kill(alive, SIGKILL);
        waitpid(dead, NULL, 0);
        waitpid(alive, NULL, 0);
    }
    return 0;
}
