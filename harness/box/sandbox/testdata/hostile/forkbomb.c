/* Fork bomb: every process forks for ever. The process limit stops the growth; the
 * processes then spin on failing fork() calls until the deadline. */
#include <unistd.h>

int main(void) {
    for (;;) {
        fork();
    }
}
