/* Makes itself non-dumpable (the files of its /proc/PID then belong to root), says so on
 * stdout, and waits for ever. */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(void) {
    prctl(PR_SET_DUMPABLE, 0);
    puts("hidden");
    fflush(stdout);
    for (;;) {
        pause();
    }
}
