/* Writes to a pipe nobody reads: blocks in write() once the pipe is full. */
#include <string.h>
#include <unistd.h>

int main(void) {
    int p[2];
    char buf[4096];
    if (pipe(p) != 0) {
        return 1;
    }
    memset(buf, 'w', sizeof buf);
    for (;;) {
        if (write(p[1], buf, sizeof buf) < 0) {
            return 2;
        }
    }
}
