/* Makes itself non-dumpable (its /proc/PID then shows root as the owner), says so on
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
