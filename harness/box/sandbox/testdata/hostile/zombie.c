/* Lets a child die and never reaps it, stays a while asleep, then exits with status 0. */
#include <unistd.h>

int main(void) {
    if (fork() == 0) {
        _exit(0);
    }
    /* Well over the sandbox's zombie grace (ZombieGrace, ZombieSightings sweeps), so that a
       loaded machine's late sweeps still see it often enough. */
    usleep(3000 * 1000);
    return 0;
}
