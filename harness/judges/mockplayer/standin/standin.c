/*
 * The stand-in of a witnessed mock player: the program a hub under test starts where it
 * means to start a mock player (see witness.go in harness/judges/mockplayer).
 *
 * It carries nothing of the harness: no suite, no game, no mock. It reaches the harness's
 * witness only through the door it inherits from the hub at descriptor WITNESS_FD (a Unix
 * socket of SOCK_SEQPACKET, which the harness handed the hub's run): it makes a connection
 * of its own (a socket pair), sends on it its hello, with the name of the mock it stands
 * for, the witness's token and its arguments, and its three standard streams (the hub's
 * pipes); hands the other end of the connection through the door ("connect\n", with that
 * one descriptor); lets go of the door and of its copies of the pipes; and waits for the
 * witness to say how the mock ended ("exit N" or "signal N"), which it then does. Where
 * there is no door at WITNESS_FD (a hub that closed every descriptor above 2 before it
 * started its player), it connects to the witness's socket, whose path the harness wrote
 * into the copy, and sends its hello on that connection instead. A dump
 * of it, or a read of it, shows only this, and the mock's name, which the harness writes
 * into each copy in place of config's marker (so that a copy of it, renamed or moved,
 * still stands for its mock), with the witness's token, which proves to the witness that
 * the hello comes from a stand-in it made: the harness writes each copy execute-only, so a
 * hub can run it but neither read it nor, the process being undumpable, trace it.
 *
 * The hello is a 4-byte big-endian length and then {"name":NAME,"token":TOKEN,
 * "args":[ARG...]} in JSON,
 * sent with the three descriptors (SCM_RIGHTS). Failures are told on stderr, status 2.
 *
 * For a relay of a program that must run where the hub runs (in the subject's box), the
 * witness first asks the stand-in to start it: "run N\n" and N bytes, the program's argv
 * (argv[0] is the program, found as Go's exec finds it: on the PATH when it has no '/'),
 * each string ended by a NUL, with one descriptor (SCM_RIGHTS), the program's stderr. The
 * stand-in starts it in the folder the hub started the stand-in in, on two new pipes, and
 * answers "pipes\n" with three descriptors: the write end of the program's stdin, the read
 * end of its stdout, and the read end of a pipe on which it writes, once it has reaped the
 * program, "exit N\n" or "signal N\n". A program that cannot be started says so on its
 * stderr and ends with status 127. The verdict then comes as for any mock.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HELLO (64 * 1024)
/* The door's descriptor (execrole.WitnessFD). */
#define WITNESS_FD 100
#define MAX_RUN (256 * 1024)

/* config is "NAME\0TOKEN\0SOCKET\0" in each copy the harness writes: the mock's name, the
 * witness's token and the path of its socket (empty: none), over the marker below (zeros
 * after it). volatile: read as written in
 * the file, never folded by the compiler. */
static volatile char config[4096] = "GAUNTLET-STANDIN-CONFIG";

static int fail(const char *what, int err) {
    if (err) {
        fprintf(stderr, "mockplayer: the harness's witness: %s: %s\n", what, strerror(err));
    } else {
        fprintf(stderr, "mockplayer: the harness's witness: %s\n", what);
    }
    return 2;
}

/* hello is the message being built. */
static char hello[4 + MAX_HELLO];
static size_t helloLen = 4;

/* put appends n bytes to the hello; 0 when it would be too long. */
static int put(const char *s, size_t n) {
    if (helloLen + n > sizeof hello) {
        return 0;
    }
    memcpy(hello + helloLen, s, n);
    helloLen += n;
    return 1;
}

/* putString appends s as a JSON string: quotes, backslashes and control bytes escaped,
 * every other byte as it is (the witness reads bytes that are not UTF-8 as U+FFFD, as Go's
 * own encoder would have written them). */
static int putString(const char *s) {
    if (!put("\"", 1)) {
        return 0;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[7];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            if (!put(esc, 2)) {
                return 0;
            }
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            if (!put(esc, 6)) {
                return 0;
            }
        } else if (!put((const char *)&c, 1)) {
            return 0;
        }
    }
    return put("\"", 1);
}

/* pipeEnd describes a descriptor that is one end of a pipe. */
struct pipeEnd {
    dev_t dev;
    ino_t ino;
    int mode; /* O_RDONLY or O_WRONLY */
    int ok;
};

static struct pipeEnd endOf(int fd) {
    struct pipeEnd e = {0};
    struct stat st;
    int fl;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && (fl = fcntl(fd, F_GETFL)) >= 0) {
        e.dev = st.st_dev;
        e.ino = st.st_ino;
        e.mode = fl & O_ACCMODE;
        e.ok = 1;
    }
    return e;
}

static int sameEnd(struct pipeEnd a, struct pipeEnd b) {
    return a.ok && b.ok && a.dev == b.dev && a.ino == b.ino && a.mode == b.mode;
}

/* closeCopies closes the descriptors other than 0, 1, 2 and keep that are the same end of
 * the same pipe as stdin or stdout: copies a hub left after its dup2. The mock then holds
 * those ends alone, and the hub sees the end of the mock's output when the mock closes it.
 * Copies of the hub's own ends, leaked to the player, stay, as they would in a mock. */
static void closeCopies(int keep) {
    struct pipeEnd in = endOf(0), out = endOf(1);
    DIR *d;
    struct dirent *ent;
    if (!in.ok && !out.ok) {
        return;
    }
    if ((d = opendir("/proc/self/fd")) == NULL) {
        return;
    }
    while ((ent = readdir(d)) != NULL) {
        char *endp;
        long n = strtol(ent->d_name, &endp, 10);
        struct pipeEnd e;
        if (*endp != '\0' || endp == ent->d_name || n <= 2 || n == keep || n == dirfd(d)) {
            continue;
        }
        e = endOf((int)n);
        if (sameEnd(e, in) || sameEnd(e, out)) {
            close((int)n);
        }
    }
    closedir(d);
}

/* samePipe says whether a and b are descriptors of the same pipe. */
static int samePipe(int a, int b) {
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && S_ISFIFO(sa.st_mode) && S_ISFIFO(sb.st_mode) &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* die ends the process by sig, with its default action and no core file. */
static void die(int sig) {
    struct rlimit none = {0, 0};
    sigset_t set;
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    /* A signal whose default action does not end a process leaves the status. */
    exit(128 + sig);
}

/* in holds what the witness sent and the stand-in has not used yet. */
static char in[MAX_RUN + 128];
static size_t inLen;
/* given is the descriptor the witness sent with a run request, or -1. */
static int given = -1;

/* receive reads more of what the witness sends into in, keeping the first descriptor that
 * comes with it (any other is closed). It returns what recvmsg returned. */
static ssize_t receive(int sock) {
    struct msghdr msg;
    struct iovec iov;
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct cmsghdr *cmsg;
    ssize_t n;
    if (inLen == sizeof in) {
        errno = EMSGSIZE;
        return -1;
    }
    memset(&msg, 0, sizeof msg);
    iov.iov_base = in + inLen;
    iov.iov_len = sizeof in - inLen;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0) {
        return n;
    }
    inLen += (size_t)n;
    for (cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
        if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
            size_t k, count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (k = 0; k < count; k++) {
                int fd;
                memcpy(&fd, CMSG_DATA(cmsg) + k * sizeof(int), sizeof fd);
                if (given < 0) {
                    given = fd;
                } else {
                    close(fd);
                }
            }
        }
    }
    return n;
}

/* The program the witness asked for: whether it was asked for, its pid (0 before, -1 once
 * reaped), the write end of its status pipe, the signal mask the stand-in was started with
 * (the program's), and the folder the hub started the stand-in in (the program's). */
static int asked;
static pid_t program;
static int statusFd = -1;
static sigset_t startMask;
static int startDir = -1;

static void onChild(int sig) { (void)sig; }

/* reap writes the program's status on the status pipe once it has ended. */
static void reap(void) {
    int st;
    char msg[32];
    pid_t p;
    if (program <= 0) {
        return;
    }
    do {
        p = waitpid(program, &st, WNOHANG);
    } while (p < 0 && errno == EINTR);
    if (p == 0) {
        return;
    }
    program = -1;
    if (p < 0) {
        snprintf(msg, sizeof msg, "exit 127\n"); /* (not a child: never) */
    } else if (WIFSIGNALED(st)) {
        snprintf(msg, sizeof msg, "signal %d\n", WTERMSIG(st));
    } else {
        snprintf(msg, sizeof msg, "exit %d\n", WEXITSTATUS(st));
    }
    /* SIGPIPE is blocked: a relay that is gone makes this fail with EPIPE, no more. */
    while (write(statusFd, msg, strlen(msg)) < 0 && errno == EINTR) {
    }
    close(statusFd);
    statusFd = -1;
}

/* execProgram execs argv[0] as Go's exec does: a name without '/' is looked for in the
 * folders of $PATH (absolute ones), the first regular file with an execute bit being it; a
 * file the kernel cannot execute is not given to a shell. It returns only on failure. */
static void execProgram(char **argv) {
    extern char **environ;
    const char *name = argv[0], *path = getenv("PATH"), *p, *end;
    char full[4096];
    struct stat st;
    if (strchr(name, '/') != NULL) {
        execve(name, argv, environ);
        return;
    }
    for (p = path; p != NULL && *p != '\0'; p = *end ? end + 1 : end) {
        size_t len;
        end = strchr(p, ':');
        if (end == NULL) {
            end = p + strlen(p);
        }
        len = (size_t)(end - p);
        if (len == 0 || *p != '/' || len + 1 + strlen(name) >= sizeof full) {
            continue;
        }
        memcpy(full, p, len);
        full[len] = '/';
        strcpy(full + len + 1, name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
            execve(full, argv, environ);
            return;
        }
    }
    errno = ENOENT;
}

/* closeOnExec marks every descriptor above 2 close-on-exec: the program gets its three
 * streams only, as a program the relay started did (descriptors the hub leaked to its
 * player stay the stand-in's). */
static void closeOnExec(void) {
    DIR *d = opendir("/proc/self/fd");
    struct dirent *ent;
    int fd;
    if (d == NULL) {
        for (fd = 3; fd < 4096; fd++) {
            fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
        return;
    }
    while ((ent = readdir(d)) != NULL) {
        char *endp;
        long n = strtol(ent->d_name, &endp, 10);
        if (*endp == '\0' && endp != ent->d_name && n > 2) {
            fcntl((int)n, F_SETFD, FD_CLOEXEC);
        }
    }
    closedir(d);
}

/* sendWithFds sends len bytes of data with the three descriptors fds (SCM_RIGHTS) on sock,
 * again after EINTR, and returns what sendmsg returned. */
static ssize_t sendWithFds(int sock, const void *data, size_t len, const int fds[3]) {
    struct msghdr msg;
    struct iovec iov;
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct cmsghdr *cmsg;
    ssize_t n;
    memset(&msg, 0, sizeof msg);
    memset(&control, 0, sizeof control);
    iov.iov_base = (void *)data;
    iov.iov_len = len;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(3 * sizeof(int));
    memcpy(CMSG_DATA(cmsg), fds, 3 * sizeof(int));
    do {
        n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
}

/* startProgram starts the program of a run request (argv, NULL-ended) and hands its pipes
 * to the witness on sock. 0 when the pipes went; else the reason, said on stderr. */
static int startProgram(int sock, char **argv) {
    int toProg[2], fromProg[2], status[2], errFd = given >= 0 ? given : 2;
    struct sigaction sa;
    sigset_t block;
    int fds[3];
    ssize_t n;

    if (pipe2(toProg, O_CLOEXEC) != 0 || pipe2(fromProg, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0) {
        return fail("pipe", errno);
    }
    /* SIGCHLD wakes the wait for the verdict (ppoll); SIGPIPE never ends the stand-in. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onChild;
    sa.sa_flags = SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigaddset(&block, SIGPIPE);
    sigprocmask(SIG_BLOCK, &block, &startMask);
    closeOnExec();
    program = fork();
    if (program == 0) {
        /* Above fd 2 first: a pipe may have got fd 0 or 1, when the null device did not. */
        int a = fcntl(toProg[0], F_DUPFD_CLOEXEC, 3), b = fcntl(fromProg[1], F_DUPFD_CLOEXEC, 3);
        int c = fcntl(errFd, F_DUPFD_CLOEXEC, 3);
        signal(SIGCHLD, SIG_DFL);
        sigprocmask(SIG_SETMASK, &startMask, NULL);
        if (a < 0 || b < 0 || c < 0 || dup2(a, 0) < 0 || dup2(b, 1) < 0 || dup2(c, 2) < 0) {
            _exit(127);
        }
        if (startDir < 0 || fchdir(startDir) != 0) {
            fprintf(stderr, "mockplayer: cannot start the player: the hub's folder: %s\n", strerror(errno));
            _exit(127);
        }
        execProgram(argv);
        fprintf(stderr, "mockplayer: cannot start the player: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(toProg[0]);
    close(fromProg[1]);
    statusFd = status[1];
    if (program < 0) {
        dprintf(errFd, "mockplayer: cannot start the player: fork: %s\n", strerror(errno));
        program = 0;
        while (write(statusFd, "exit 127\n", 9) < 0 && errno == EINTR) {
        }
        close(statusFd);
        statusFd = -1;
    }
    if (given >= 0) {
        close(given);
        given = -1;
    }
    fds[0] = toProg[1];
    fds[1] = fromProg[0];
    fds[2] = status[0];
    n = sendWithFds(sock, "pipes\n", 6, fds);
    /* The witness holds those ends now (a short send of 6 bytes does not happen on a
     * socket that took the descriptors). */
    close(fds[0]);
    close(fds[1]);
    close(fds[2]);
    if (n < 0) {
        return fail("send the pipes", errno);
    }
    return 0;
}

/* runRequest takes the run request whose header line "run N" ends at nl, reading the rest
 * of it, and starts its program. 0 when done; else the stand-in's status. */
static int runRequest(int sock, char *nl) {
    char *endp, **argv, *p, *end;
    long size = strtol(in + 4, &endp, 10);
    size_t head = (size_t)(nl - in) + 1, count = 0, i;
    ssize_t n;
    if (endp != nl || endp == in + 4 || size <= 0 || size > MAX_RUN) {
        return fail("not a run request", 0);
    }
    while (inLen < head + (size_t)size) {
        n = receive(sock);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail("the run request ended early", n < 0 ? errno : 0);
        }
    }
    p = in + head;
    end = p + size;
    if (end[-1] != '\0') {
        return fail("not a run request", 0);
    }
    for (; p < end; p++) {
        count += *p == '\0';
    }
    argv = calloc(count + 1, sizeof *argv);
    if (argv == NULL) {
        return fail("run request", ENOMEM);
    }
    for (p = in + head, i = 0; i < count; i++, p += strlen(p) + 1) {
        argv[i] = p;
    }
    if (startProgram(sock, argv) != 0) {
        return 2;
    }
    /* (argv points into in, which moves now: the program has its own copy.) */
    free(argv);
    memmove(in, end, inLen - (size_t)(end - in));
    inLen -= (size_t)(end - in);
    return 0;
}

/* isDoor says whether fd is a witness's door: a Unix socket of SOCK_SEQPACKET. */
static int isDoor(int fd) {
    int dom = 0, type = 0;
    socklen_t optlen = sizeof dom;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &optlen) != 0 || dom != AF_UNIX) {
        return 0;
    }
    optlen = sizeof type;
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &optlen) == 0 && type == SOCK_SEQPACKET;
}

/* dial connects to the witness's socket at path (from its folder, whose path may be longer
 * than a socket's address allows; the stand-in then goes back to the folder it was started
 * in). The socket, or -1 with errno set. */
static int dial(char *path) {
    struct sockaddr_un addr;
    char *slash = strrchr(path, '/'), *base = path;
    int sock, err;
    if (slash != NULL && strlen(path) >= sizeof addr.sun_path) {
        *slash = '\0';
        err = chdir(path[0] ? path : "/");
        *slash = '/';
        if (err != 0) {
            return -1;
        }
        base = slash + 1;
    }
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(base) >= sizeof addr.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(addr.sun_path, base);
    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock >= 0) {
        while ((err = connect(sock, (struct sockaddr *)&addr, sizeof addr)) != 0 && errno == EINTR) {
        }
        if (err != 0) {
            err = errno;
            close(sock);
            sock = -1;
            errno = err;
        }
    }
    err = errno;
    if (base != path && startDir >= 0) {
        fchdir(startDir);
    }
    errno = err;
    return sock;
}

int main(int argc, char **argv) {
    char self[sizeof config];
    ssize_t n;
    size_t i0;
    char *name, *token, *socketPath;
    int sock, i, null, viaDoor;
    int pair[2];
    int fds[3] = {0, 1, 2};
    size_t sent;
    char *line;
    long num;
    char *endp;

    for (i0 = 0; i0 < sizeof config; i0++) {
        self[i0] = config[i0];
    }
    self[sizeof self - 1] = '\0';
    /* (The marker alone, zeros after it, is a copy with no token.) */
    name = self;
    token = name + strlen(name) + 1;
    if (*name == '\0' || token >= self + sizeof self - 1 || *token == '\0') {
        return fail("this copy was not set up by the harness", 0);
    }
    socketPath = token + strlen(token) + 1;
    if (socketPath >= self + sizeof self - 1) {
        socketPath = token + strlen(token); /* (no room for one: none) */
    }
    /* The folder it was started in is kept, for a program the witness asks it to start. */
    startDir = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    viaDoor = isDoor(WITNESS_FD);
    if (viaDoor) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
            return fail("socketpair", errno);
        }
        sock = pair[0];
    } else if (*socketPath == '\0') {
        return fail("no door to the witness at descriptor 100 (the hub that started this player did not pass it on)", 0);
    } else if ((sock = dial(socketPath)) < 0) {
        char what[sizeof self + 160];
        int err = errno;
        snprintf(what, sizeof what,
                 "no door to the witness at descriptor 100 (the hub that started this player did not pass it on), and its socket %s",
                 socketPath);
        return fail(what, err);
    }

    if (!put("{\"name\":", 8) || !putString(name) || !put(",\"token\":", 9) || !putString(token) ||
        !put(",\"args\":[", 9)) {
        return fail("hello too long", 0);
    }
    for (i = 1; i < argc; i++) {
        if ((i > 1 && !put(",", 1)) || !putString(argv[i])) {
            return fail("hello too long", 0);
        }
    }
    if (!put("]}", 2)) {
        return fail("hello too long", 0);
    }
    hello[0] = (char)((helloLen - 4) >> 24);
    hello[1] = (char)((helloLen - 4) >> 16);
    hello[2] = (char)((helloLen - 4) >> 8);
    hello[3] = (char)(helloLen - 4);

    closeCopies(sock);
    n = sendWithFds(sock, hello, helloLen, fds);
    if (n < 0) {
        return fail("send", errno);
    }
    for (sent = (size_t)n; sent < helloLen; sent += (size_t)n) {
        n = send(sock, hello + sent, helloLen - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            n = 0;
        } else if (n <= 0) {
            return fail("send", errno);
        }
    }

    /* The hello waits on the connection; its other end goes to the witness through the
     * door, which the stand-in then lets go of: nothing it starts gets it. (A connection to
     * the socket is the witness's already.) */
    if (viaDoor) {
        struct msghdr msg;
        struct iovec iov;
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } control;
        struct cmsghdr *cmsg;
        memset(&msg, 0, sizeof msg);
        memset(&control, 0, sizeof control);
        iov.iov_base = (void *)"connect\n";
        iov.iov_len = 8;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof control.buf;
        cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &pair[1], sizeof(int));
        do {
            n = sendmsg(WITNESS_FD, &msg, MSG_NOSIGNAL);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            return fail("knock at the door", errno);
        }
        close(pair[1]);
        close(WITNESS_FD);
    }

    /* The pipes are the mock's now: fds 0 and 1 become the null device, so that the hub
     * sees the end of the mock's output when the mock ends; so does fd 2 when it is the
     * same pipe as stdout (a hub that gave the player 2>&1). */
    null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (i = 0; i < 3; i++) {
        if (i == 2 && !samePipe(1, 2)) {
            break;
        }
        if (null >= 0) {
            dup2(null, i);
        } else {
            close(i);
        }
    }
    if (null > 2) {
        close(null);
    }

    /* The first line is a run request or the verdict; the first line after a run request
     * is the verdict (another may follow it: the harness tells again what the mock told
     * first). The program of a run request is reaped as it ends, meanwhile. */
    for (;;) {
        struct pollfd pfd;
        sigset_t waitMask;
        char *nl = memchr(in, '\n', inLen);
        if (nl != NULL && !asked && strncmp(in, "run ", 4) == 0) {
            asked = 1;
            int code = runRequest(sock, nl);
            if (code != 0) {
                return code;
            }
            continue;
        }
        if (nl != NULL) {
            *nl = '\0';
            break;
        }
        if (inLen > 64) {
            return fail("not a verdict", 0);
        }
        pfd.fd = sock;
        pfd.events = POLLIN;
        waitMask = startMask;
        sigaddset(&waitMask, SIGPIPE);
        sigdelset(&waitMask, SIGCHLD);
        reap();
        /* SIGCHLD, blocked but here, ends the wait: a child that ends before it is seen. */
        if (ppoll(&pfd, 1, NULL, program > 0 ? &waitMask : NULL) < 0) {
            if (errno != EINTR) {
                return fail("poll", errno);
            }
            reap();
            continue;
        }
        n = receive(sock);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail("ended without a verdict", 0);
        }
    }
    line = in;
    if (strncmp(line, "exit ", 5) == 0) {
        num = strtol(line + 5, &endp, 10);
        if (*endp == '\0' && endp != line + 5 && num >= 0 && num <= 255) {
            return (int)num;
        }
    } else if (strncmp(line, "signal ", 7) == 0) {
        num = strtol(line + 7, &endp, 10);
        if (*endp == '\0' && endp != line + 7 && num > 0 && num < 65) {
            if (num == SIGKILL || num == SIGSTOP) {
                kill(getpid(), (int)num);
            }
            die((int)num);
        }
    }
    return fail("not a verdict", 0);
}
