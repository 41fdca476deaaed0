/* Ignores SIGTERM and SIGINT and waits for ever: only SIGKILL ends it. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    puts("you cannot stop me");
    fflush(stdout);
    for (;;) {
        pause();
    }
}
