/* Copies stdin to stdout, reading first. Two of them joined in a ring each wait for the
 * other to speak first: a deadlock. */
#include <unistd.h>

int main(void) {
    char buf[512];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        if (write(1, buf, (size_t)n) != n) {
            return 1;
        }
    }
    return 0;
}
