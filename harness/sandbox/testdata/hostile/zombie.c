/* Lets a child die and never reaps it, stays a while, then exits with status 0. */
#include <unistd.h>

int main(void) {
    if (fork() == 0) {
        _exit(0);
    }
    usleep(600 * 1000);
    return 0;
}
