/* A hub whose player needs the CPU on its way out: the hub starts a child that makes
 * itself SCHED_IDLE on the CPU argv[1] names (once it has told the hub it is ready), waits
 * for the end of its stdin (a pipe from
 * the hub), then runs 20 ms of CPU and exits. The hub exits once the child is ready. When
 * another task keeps that CPU busy, the child starves for as long: it is on its way out,
 * not left running, however long the machine keeps it waiting. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int cpu = argc > 1 ? atoi(argv[1]) : 0;
	int p[2], ready[2];
	if (pipe(p) != 0 || pipe(ready) != 0)
		return 1;
	pid_t c = fork();
	if (c < 0)
		return 1;
	if (c == 0) {
		close(p[1]);
		close(ready[0]);
		/* Its output is not the run's (the run would wait on it), and it is ready first,
		 * at its own priority: the hub then exits at once. */
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
		write(ready[1], "r", 1);
		close(ready[1]);
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof set, &set);
		struct sched_param sp = {0};
		sched_setscheduler(0, SCHED_IDLE, &sp);
		char b;
		while (read(p[0], &b, 1) > 0) {
		}
		struct timespec t0, t;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		do {
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);
		return 0;
	}
	close(p[0]);
	close(ready[1]);
	char b;
	read(ready[0], &b, 1);
	/* The child's pid, for a caller that lets it have the CPU once it has starved long
	 * enough (SCHED_IDLE starves without end on a machine others keep busy). */
	printf("%d\n", (int)c);
	return 0; /* the exit closes p[1]: the child reads the end of file */
}
