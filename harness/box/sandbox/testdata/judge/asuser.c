/* asuser UID GID PROGRAM [ARGS...]: becomes UID:GID (no supplementary groups) and runs
 * PROGRAM in its place, as a judge starts the subject as the case's user. The program is
 * opened first and run from the open file, since the new user may not reach its folder. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: asuser UID GID PROGRAM [ARGS...]\n");
        return 2;
    }
    int fd = open(argv[3], O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        perror(argv[3]);
        return 1;
    }
    gid_t gid = (gid_t)atol(argv[2]);
    if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid((uid_t)atol(argv[1])) != 0) {
        perror("asuser");
        return 1;
    }
    fexecve(fd, argv + 3, environ);
    perror("fexecve");
    return 1;
}
