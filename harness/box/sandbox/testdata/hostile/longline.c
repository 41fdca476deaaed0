/* One endless line: never a newline, so a line reader would grow without end. */
#include <string.h>
#include <unistd.h>

int main(void) {
    char buf[8192];
    memset(buf, 'x', sizeof buf);
    for (;;) {
        if (write(1, buf, sizeof buf) < 0) {
            return 1;
        }
    }
}
