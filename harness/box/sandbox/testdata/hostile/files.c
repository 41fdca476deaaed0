/* Creates files in its working directory, then exits with status 0. */
#include <stdio.h>
#include <sys/stat.h>

int main(void) {
    FILE *f = fopen("left-behind.txt", "w");
    if (f == NULL) {
        return 1;
    }
    fputs("litter\n", f);
    fclose(f);
    if (mkdir("junk", 0755) != 0) {
        return 2;
    }
    f = fopen("junk/more.txt", "w");
    if (f == NULL) {
        return 3;
    }
    fclose(f);
    return 0;
}
