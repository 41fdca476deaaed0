/* Says goodbye, closes stdout, and keeps running: end of file is no sign of its end. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
    puts("goodbye");
    fflush(stdout);
    close(1);
    for (;;) {
        pause();
    }
}
