/* Traces a child of its own from before it execs the program named by argv[1] (one it may
   only run, such as the grader's copy of its binary, which carries every suite), then tries
   to read the program's memory at its first instruction and through /proc/PID/mem: a
   subject that could would dump the suites. Prints "READ" when it could. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	pid_t c = fork();
	if (c == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	int st;
	waitpid(c, &st, 0);
	ptrace(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACEEXEC);
	ptrace(PTRACE_CONT, c, 0, 0);
	waitpid(c, &st, 0);
	if (!(WIFSTOPPED(st) && (st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))) {
		printf("no exec stop\n");
		return 1;
	}
#if defined(__x86_64__)
	struct user_regs_struct r;
	ptrace(PTRACE_GETREGS, c, 0, &r);
	void *pc = (void *)r.rip;
#else
	void *pc = 0;
#endif
	errno = 0;
	long w = ptrace(PTRACE_PEEKDATA, c, pc, 0);
	if (errno == 0 && pc != 0)
		printf("READ %lx at the program's first instruction\n", w);
	else
		printf("peek: refused\n");
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", (int)c);
	FILE *f = fopen(path, "r");
	printf(f ? "READ mem opened\n" : "mem: refused\n");
	kill(c, SIGKILL);
	return 0;
}
