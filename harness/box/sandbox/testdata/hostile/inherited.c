/* Reads every descriptor above 2 that it was started with: one the harness inherited
 * from whoever started it (a root-only file) would leak that file. It prints
 * "inherited: none" when it has none. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
	DIR *d = opendir("/proc/self/fd");
	int found = 0;
	struct dirent *e;
	int self = d ? dirfd(d) : -1;
	while (d && (e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd <= 2 || fd == self)
			continue;
		char buf[64] = {0};
		ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
		printf("inherited: fd %d: %s\n", fd, n > 0 ? buf : "(unreadable)");
		found = 1;
	}
	if (!found)
		printf("inherited: none\n");
	return 0;
}
