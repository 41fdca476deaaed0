/* Lets a child die and never reaps it, stays a while, then exits with status 0. */
#include <unistd.h>

int main(void) {
    if (fork() == 0) {
        _exit(0);
    }
    usleep(1500 * 1000); /* longer than the sandbox's zombie grace (ZombieSightings sweeps) */
    return 0;
}
