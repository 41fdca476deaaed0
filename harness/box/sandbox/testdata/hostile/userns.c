/* Tries every way a program has to make a user namespace (issue 56): unshare(2), clone(2)
 * with CLONE_NEWUSER, and clone3(2), whose flags a seccomp filter cannot read. Prints one
 * line each: "unshare: made", "clone: made", "clone3: made", or what refused it; then the
 * capability bounding set. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

struct clone_args_v0 {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static void report(const char *how, long r) {
    if (r == 0) {
        printf("%s: made\n", how);
    } else {
        printf("%s: %s\n", how, strerror(errno));
    }
}

/* A child made by a raw clone: it ends at once. */
static long raw_clone(unsigned long flags) {
    long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) {
        _exit(0);
    }
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        return 0;
    }
    return -1;
}

static long raw_clone3(unsigned long flags) {
    struct clone_args_v0 a;
    memset(&a, 0, sizeof a);
    a.flags = flags;
    a.exit_signal = SIGCHLD;
    long pid = syscall(SYS_clone3, &a, sizeof a);
    if (pid == 0) {
        _exit(0);
    }
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        return 0;
    }
    return -1;
}

int main(void) {
    report("clone", raw_clone(CLONE_NEWUSER));
    report("clone3", raw_clone3(CLONE_NEWUSER));
    /* A plain fork still works, through clone. */
    report("fork", raw_clone(0));
    report("unshare", unshare(CLONE_NEWUSER));
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "CapBnd:", 7) == 0) {
            fputs(line, stdout);
        }
    }
    return 0;
}
