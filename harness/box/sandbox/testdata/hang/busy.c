/* A busy loop: never blocks, never ends. */
int main(void) {
    volatile unsigned long n = 0;
    for (;;) {
        n++;
    }
}
