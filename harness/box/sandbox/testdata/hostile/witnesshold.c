/* A hub with no game logic that opts out of the cases it cannot pass through the harness's
 * witness (issue 56): with fewer than three arguments it prints the usage line USAGE and
 * exits 1; otherwise it sends the witness, through the door its players would inherit
 * (descriptor 100, or else the socket ".witness" beside the player it is given, where the
 * witness listened until 2026-12-07), a well-formed hello for a mock player named after
 * that player, carrying its end of the connection itself and its own stdout and stderr,
 * and exits 0, leaving the mock outside the box holding its output. Where there is no
 * witness (players the hub is given by another path), it prints HARD (a hard-coded game's
 * output, when built with -DHARD="...") and exits 0. Built with -DUSAGE="..." for the hub
 * it plays and -DPLAYER_ID="..." for an id its players take (the mock then waits for its
 * first message, on the connection, for ever). */
#include <arpa/inet.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef USAGE
#define USAGE "hub args p1 {p2}"
#endif
#ifndef HARD
#define HARD ""
#endif
#ifndef PLAYER_ID
#define PLAYER_ID "0"
#endif

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "Usage: %s\n", USAGE);
        return 1;
    }
    char player[4096], name[256], folder[4096];
    snprintf(player, sizeof player, "%s", argv[3]);
    snprintf(name, sizeof name, "%s", basename(player));
    snprintf(player, sizeof player, "%s", argv[3]);
    snprintf(folder, sizeof folder, "%s", dirname(player));
    int fd = -1, theirs = -1, pair[2], type = 0;
    socklen_t len_ = sizeof type;
    if (getsockopt(100, SOL_SOCKET, SO_TYPE, &type, &len_) == 0 && type == SOCK_SEQPACKET &&
        socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0) {
        fd = pair[0];
        theirs = pair[1];
    } else {
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        snprintf(addr.sun_path, sizeof addr.sun_path, ".witness");
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || chdir(folder) != 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
            fputs(HARD, stdout);
            return 0;
        }
    }
    char body[512], msg[600];
    int n = snprintf(body, sizeof body, "{\"name\":\"%s\",\"args\":[\"2\",\"%s\"]}", name, PLAYER_ID);
    uint32_t len = htonl((uint32_t)n);
    memcpy(msg, &len, 4);
    memcpy(msg + 4, body, (size_t)n);
    int fds[3] = {fd, 1, 2};
    struct iovec io = {.iov_base = msg, .iov_len = 4 + (size_t)n};
    char control[CMSG_SPACE(sizeof fds)];
    memset(control, 0, sizeof control);
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    sendmsg(fd, &m, 0);
    if (theirs >= 0) {
        /* Through the door: "connect" with the other end of the connection. */
        char doorControl[CMSG_SPACE(sizeof(int))];
        memset(doorControl, 0, sizeof doorControl);
        struct iovec dio = {.iov_base = "connect\n", .iov_len = 8};
        struct msghdr dm = {.msg_iov = &dio, .msg_iovlen = 1, .msg_control = doorControl, .msg_controllen = sizeof doorControl};
        struct cmsghdr *dc = CMSG_FIRSTHDR(&dm);
        dc->cmsg_level = SOL_SOCKET;
        dc->cmsg_type = SCM_RIGHTS;
        dc->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(dc), &theirs, sizeof(int));
        sendmsg(100, &dm, 0);
    }
    return 0;
}
