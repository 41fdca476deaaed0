/* Writes a file without end: the file size limit stops it with SIGXFSZ. */
#include <stdio.h>
#include <string.h>

int main(void) {
    char buf[65536];
    memset(buf, 'f', sizeof buf);
    FILE *f = fopen("big.dat", "w");
    if (f == NULL) {
        return 1;
    }
    for (;;) {
        fwrite(buf, 1, sizeof buf, f);
    }
}
