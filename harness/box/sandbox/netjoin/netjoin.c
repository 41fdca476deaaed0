/*
 * The rootless harness's helper for a network shared by a case's runs (see net.go in
 * harness/box/sandbox). A grader that is not root boxes every run in a user namespace of its
 * own, and a network namespace belongs to the user namespace that made it: a run can join
 * one only from inside that user namespace, which a process enters with setns() only while
 * it has a single thread. No Go program ever has one; this small C program has.
 *
 *   netjoin hold
 *       Makes a user namespace (the grader's user and group mapped to themselves, nothing
 *       else) and a network namespace in it, brings its loopback up, says "ready" on its
 *       standard output, and holds them until its standard input (the harness's lifeline)
 *       reads its end of file, or the harness dies (parent-death signal).
 *
 *   netjoin join USERNS NETNS EXE ERRFD PID CAPS -- ARGV...
 *       Joins the holder's user namespace, then its network namespace (USERNS and NETNS are
 *       /proc links to the harness's descriptors of them), and makes a user namespace of
 *       the run's own inside it (the grader's user mapped to itself: its limits, such as
 *       how many user namespaces its programs may make, are the run's alone), with the
 *       exec role's capabilities (CAPS, numbers separated by commas) raised as ambient
 *       ones (the role is started so when it has a network of its own: rootlessAttr), then the run's mount, IPC and UTS
 *       namespaces. With PID "init", a PID namespace too: the helper forks, the child (pid
 *       1 of the new namespace) execs the role, and the helper stays as a thin parent that
 *       holds no descriptor, ignores every signal meant for the program, and ends as the
 *       role ends. With PID "none", the helper execs the role itself. The role is EXE (the
 *       harness's binary), with ARGV, the environment, the folder and every descriptor as
 *       the harness gave them. Failures are told on ERRFD (the role's error pipe; -1:
 *       stderr), status 127.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int errFD = -1;

static int fail(const char *what, int err) {
    char msg[512];
    int n = snprintf(msg, sizeof msg, "join the case's network: %s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
    if (n < 0) {
        n = 0;
    }
    if (n >= (int)sizeof msg) {
        n = sizeof msg - 1;
    }
    if (errFD < 0 || write(errFD, msg, n) < 0) {
        fprintf(stderr, "gauntlet sandbox: %s\n", msg);
    }
    return 127;
}

/* writeFile writes s to the file at path (a /proc file of this process). */
static int writeFile(const char *path, const char *s) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    ssize_t n = write(fd, s, strlen(s));
    int err = n < 0 ? errno : 0;
    close(fd);
    return err;
}

/* ownUserNS makes a user namespace in which uid and gid (the caller's) are mapped to
 * themselves and nothing else is. */
static int ownUserNS(void) {
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER) < 0) {
        return fail("a user namespace", errno);
    }
    char map[64];
    int err = writeFile("/proc/self/setgroups", "deny");
    if (err == 0) {
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
        err = writeFile("/proc/self/uid_map", map);
    }
    if (err == 0) {
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
        err = writeFile("/proc/self/gid_map", map);
    }
    return err ? fail("map the user", err) : 0;
}

static int hold(void) {
    pid_t parent = getppid();
    int st = ownUserNS();
    if (st) {
        return st;
    }
    if (unshare(CLONE_NEWNET) < 0) {
        return fail("a network namespace", errno);
    }
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq req;
    memset(&req, 0, sizeof req);
    strcpy(req.ifr_name, "lo");
    if (s < 0 || ioctl(s, SIOCGIFFLAGS, &req) < 0) {
        return fail("the loopback", errno);
    }
    req.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &req) < 0) {
        return fail("the loopback up", errno);
    }
    close(s);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent) {
        return 127;
    }
    if (write(1, "ready\n", 6) != 6) {
        return 127;
    }
    close(1);
    close(2);
    char b[64];
    for (;;) {
        ssize_t n = read(0, b, sizeof b);
        if (n == 0 || (n < 0 && errno != EINTR)) {
            return 0;
        }
    }
}

/* raiseRoleCaps makes the role's capabilities (list: numbers separated by commas, the
 * harness's roleCaps), held in full in a new user namespace, inheritable and ambient: a
 * user other than root keeps only ambient ones across exec. */
static int raiseRoleCaps(const char *list) {
    int caps[64];
    int n = 0;
    for (const char *p = list; *p && n < 64;) {
        char *end;
        long c = strtol(p, &end, 10);
        if (end == p || c < 0 || c > 63 || (*end != ',' && *end != 0)) {
            return fail("bad capability list", 0);
        }
        caps[n++] = (int)c;
        p = *end ? end + 1 : end;
    }
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) < 0) {
        return fail("capget", errno);
    }
    for (int i = 0; i < n; i++) {
        data[caps[i] / 32].inheritable |= 1u << (caps[i] % 32);
    }
    if (syscall(SYS_capset, &hdr, data) < 0) {
        return fail("capset", errno);
    }
    for (int i = 0; i < n; i++) {
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, caps[i], 0, 0) < 0) {
            return fail("raise the role's capabilities", errno);
        }
    }
    return 0;
}

/* endAs ends this process as status says its child ended. */
static int endAs(int status) {
    if (!WIFSIGNALED(status)) {
        return WEXITSTATUS(status);
    }
    int sig = WTERMSIG(status);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig;
}

/* parent is the thin parent of the role, pid 1 of the run's PID namespace: it holds no
 * descriptor (the harness reads the end of the role's pipes), ignores every signal sent
 * to the run's process group (the program's to take), and ends as the role ends. */
static int parent(pid_t role) {
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD) {
            signal(sig, SIG_IGN);
        }
    }
    int devnull = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; fd++) {
        if (devnull >= 0 && devnull != fd) {
            dup2(devnull, fd);
        }
    }
    if (syscall(SYS_close_range, 3, ~0u, 0) < 0) {
        for (int fd = 3; fd < 1024; fd++) {
            close(fd);
        }
    }
    prctl(PR_SET_DUMPABLE, 0);
    int status;
    for (;;) {
        pid_t w = waitpid(role, &status, 0);
        if (w == role) {
            return endAs(status);
        }
        if (w < 0 && errno != EINTR) {
            return 127;
        }
    }
}

static int join(int argc, char **argv) {
    if (argc < 9 || strcmp(argv[7], "--") != 0) {
        fprintf(stderr, "usage: netjoin join USERNS NETNS EXE ERRFD PID CAPS -- ARGV...\n");
        return 127;
    }
    errFD = atoi(argv[4]);
    int pidns = strcmp(argv[5], "init") == 0;
    char **roleArgv = argv + 8;
    pid_t harness = getppid();
    int userFD = open(argv[1], O_RDONLY | O_CLOEXEC);
    if (userFD < 0) {
        return fail("open the user namespace", errno);
    }
    int netFD = open(argv[2], O_RDONLY | O_CLOEXEC);
    if (netFD < 0) {
        return fail("open the network namespace", errno);
    }
    int exeFD = open(argv[3], O_RDONLY | O_CLOEXEC);
    if (exeFD < 0) {
        return fail("open the harness's binary", errno);
    }
    if (setns(userFD, CLONE_NEWUSER) < 0) {
        return fail("enter its user namespace", errno);
    }
    if (setns(netFD, CLONE_NEWNET) < 0) {
        return fail("enter its network namespace", errno);
    }
    close(userFD);
    close(netFD);
    int st = ownUserNS();
    if (st == 0) {
        st = raiseRoleCaps(argv[6]);
    }
    if (st) {
        return st;
    }
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (pidns ? CLONE_NEWPID : 0)) < 0) {
        return fail("the box's namespaces", errno);
    }
    /* The changes of credentials may have cleared it: set again, then make sure the
     * harness did not die in the meantime. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != harness) {
        return 127;
    }
    /* By the descriptor opened before the namespaces changed: from the run's user
     * namespace, the harness's /proc/PID/exe is out of reach (the role's name is then
     * the descriptor's number). */
    char exe[64];
    snprintf(exe, sizeof exe, "/proc/self/fd/%d", exeFD);
    if (!pidns) {
        execve(exe, roleArgv, environ);
        return fail("exec the role", errno);
    }
    pid_t role = fork();
    if (role < 0) {
        return fail("fork the role", errno);
    }
    if (role == 0) {
        /* The role's own lifeline ends it with the harness (LifeFD); this ends it with
         * its parent here too. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execve(exe, roleArgv, environ);
        _exit(fail("exec the role", errno));
    }
    return parent(role);
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "hold") == 0) {
        return hold();
    }
    if (argc >= 2 && strcmp(argv[1], "join") == 0) {
        return join(argc - 1, argv + 1);
    }
    fprintf(stderr, "usage: netjoin hold | netjoin join USERNS NETNS EXE ERRFD PID CAPS -- ARGV...\n");
    return 127;
}
