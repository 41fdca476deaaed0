/* A careful hub, not a hostile one: it starts its one player (argv[1], given the arguments
 * after it) on its own stdin, stdout and stderr, closing in the child, before the exec,
 * every descriptor above 2 it may have (as careful C code does, so that a player inherits
 * nothing of the hub's but its three streams: the witness's door at descriptor 100 goes
 * too), waits for it, and exits as it did (128+N for a death by signal N). With no player
 * it prints its usage line and exits 1. */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "Usage: closefds player [args...]\n");
        return 1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        struct rlimit lim;
        int max = 1024;
        if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
            max = lim.rlim_cur < (1 << 20) ? (int)lim.rlim_cur : (1 << 20);
        }
        for (int fd = 3; fd < max; fd++) {
            close(fd);
        }
        execv(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            perror("waitpid");
            return 1;
        }
    }
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
