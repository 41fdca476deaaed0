/* Never reads its stdin: whoever writes to it fills the pipe and must not block for good. */
#include <unistd.h>

int main(void) {
    for (;;) {
        sleep(1000);
    }
}
