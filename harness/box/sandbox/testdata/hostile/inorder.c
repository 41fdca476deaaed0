/* Reaps its children in the order it started them, as a hub waits for its players: the
   second child ends at once and stays a zombie while the parent waits for the first. That is
   not a zombie left behind. Exits with status 0 when both were reaped. */
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    pid_t slow = fork();
    if (slow == 0) {
        usleep(2000 * 1000);
        _exit(0);
    }
    pid_t quick = fork();
    if (quick == 0) {
        _exit(0);
    }
    if (waitpid(slow, NULL, 0) != slow || waitpid(quick, NULL, 0) != quick) {
        return 1;
    }
    return 0;
}
