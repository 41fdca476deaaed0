/* A well-behaved program: echoes its stdin to stdout, a line to stderr, exit status 3. */
#include <stdio.h>

int main(int argc, char **argv) {
    int c;
    while ((c = getchar()) != EOF) {
        putchar(c);
    }
    fprintf(stderr, "argc=%d last=%s\n", argc, argv[argc - 1]);
    return 3;
}
