/* Allocates and touches memory without end; when malloc finally fails it uses the null
 * pointer, as careless code does, and dies of SIGSEGV. */
#include <stdlib.h>
#include <string.h>

int main(void) {
    for (;;) {
        char *p = malloc(1 << 20);
        if (p == NULL) {
            *(volatile char *)p = 1;
        }
        memset(p, 1, 1 << 20);
    }
}
