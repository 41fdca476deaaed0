/*
 * The stand-in of a witnessed mock player: the program a hub under test starts where it
 * means to start a mock player (see witness.go in harness/mockplayer).
 *
 * It carries nothing of the harness: no suite, no game, no mock. It hands its three
 * standard streams (the hub's pipes) to the harness's witness, which listens on a Unix
 * socket, with the name of the mock it stands for and its arguments; lets go of its copies
 * of the pipes; and waits for the witness to say how the mock ended ("exit N" or
 * "signal N"), which it then does. A dump of it, or a read of it, shows only this, and
 * the socket's path and the mock's name, which the harness writes into each copy in place
 * of config's marker (so that a copy of it, renamed or moved, still stands for its mock).
 *
 * The hello is a 4-byte big-endian length and then {"name":NAME,"args":[ARG...]} in JSON,
 * sent with the three descriptors (SCM_RIGHTS). Failures are told on stderr, status 2.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_HELLO (64 * 1024)

/* config is "SOCKET\0NAME\0" in each copy the harness writes: the socket's path and the
 * mock's name, over the marker below (zeros after it). volatile: read as written in the
 * file, never folded by the compiler. */
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

int main(int argc, char **argv) {
    char self[sizeof config];
    ssize_t n;
    size_t i0;
    char *slash, *name;
    struct sockaddr_un addr;
    int sock, i, null;
    struct msghdr msg;
    struct iovec iov;
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct cmsghdr *cmsg;
    int fds[3] = {0, 1, 2};
    size_t sent;
    char line[65];
    size_t got = 0;
    long num;
    char *endp;

    for (i0 = 0; i0 < sizeof config; i0++) {
        self[i0] = config[i0];
    }
    self[sizeof self - 1] = '\0';
    if (self[0] != '/') { /* (still the marker) */
        return fail("this copy was not set up by the harness", 0);
    }
    name = self + strlen(self) + 1;
    if (name >= self + sizeof self - 1 || *name == '\0') {
        return fail("this copy names no mock", 0);
    }
    /* From the socket's folder: its path may be longer than a socket's address allows. */
    slash = strrchr(self, '/');
    *slash = '\0';
    if (chdir(self[0] ? self : "/") != 0) {
        return fail("enter the witness's folder", errno);
    }
    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) {
        return fail("socket", errno);
    }
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(slash + 1) >= sizeof addr.sun_path) {
        return fail("the socket's name is too long", 0);
    }
    strcpy(addr.sun_path, slash + 1);
    if (connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0) {
        return fail("connect", errno);
    }

    if (!put("{\"name\":", 8) || !putString(name) || !put(",\"args\":[", 9)) {
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
    memset(&msg, 0, sizeof msg);
    memset(&control, 0, sizeof control);
    iov.iov_base = hello;
    iov.iov_len = helloLen;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    do {
        n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
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

    while (got < sizeof line - 1) {
        n = read(sock, line + got, sizeof line - 1 - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        got += (size_t)n;
        if (memchr(line, '\n', got) != NULL) {
            break;
        }
    }
    /* The first line is the verdict (another may follow it: the harness tells again what
     * the mock told first). */
    endp = memchr(line, '\n', got);
    if (endp == NULL) {
        return fail("ended without a verdict", 0);
    }
    *endp = '\0';
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
