/* Dies of SIGSEGV after saying a line. */
#include <stdio.h>

int main(void) {
    puts("about to crash");
    fflush(stdout);
    *(volatile int *)0 = 1;
    return 0;
}
