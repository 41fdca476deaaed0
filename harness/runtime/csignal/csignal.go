// Package csignal makes a Go program meet signals as a C program with default dispositions
// does. The Go runtime ignores some signals whose default action in C is to end the
// process (SIGUSR1, SIGUSR2, SIGALRM, ...), and answers others with a stack dump and exit
// status 2 (SIGQUIT, SIGABRT, ...) where C dies of the signal. A reference program that
// survived SIGUSR1 made the fuzzer blame every C player that died of it, though the spec says
// nothing of SIGUSR1: the oracle's platform, not the spec, decided. With Default, the
// reference programs die of such signals as C would, so every comparison agrees with C.
package csignal

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// diesInC are the signals a C program dies of by default that the Go runtime does not let
// kill the process by that signal (it ignores them, or dumps its stacks and exits 2).
var diesInC = []os.Signal{
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGPROF,
	syscall.SIGIO, syscall.SIGPWR, syscall.SIGSTKFLT, syscall.SIGXCPU, syscall.SIGXFSZ,
	syscall.SIGQUIT, syscall.SIGABRT, syscall.SIGSYS, syscall.SIGTRAP,
}

// Default makes the process die, as C would, of every signal in the list above that it does
// not handle itself (handled: the signals its own code watches, which keep their handling).
// It gives those signals back their kernel default (SIG_DFL): the kernel ends the process
// itself, with no handler of the Go runtime, no goroutine and no thread waiting for them
// (os/signal.Notify would start one: a fifth of a reference player's start-up).
func Default(handled ...os.Signal) {
	skip := map[os.Signal]bool{}
	for _, s := range handled {
		skip[s] = true
	}
	for _, s := range diesInC {
		if !skip[s] {
			setDefault(s.(syscall.Signal))
		}
	}
}

// Player is Default for a program that talks to a hub over its standard streams and
// starts no program of its own (the reference players and AIs, the example referees), with
// SIGPIPE ignored: a hub that dies must not kill it by SIGPIPE; it notices the loss by the
// read failure that follows. A program that starts others must not call it: they would
// inherit the ignored SIGPIPE.
func Player() {
	Default()
	signal.Ignore(syscall.SIGPIPE)
}

// setDefault gives sig its kernel default action.
func setDefault(sig syscall.Signal) {
	var dfl kernelSigaction
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
}

// kernelSigaction is struct sigaction as rt_sigaction(2) takes it; zero is SIG_DFL.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}
