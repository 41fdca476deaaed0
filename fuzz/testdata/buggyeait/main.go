// Command buggyeait is a deliberately buggy King of St Lucia player for the fuzzer's tests.
// It is the reference EAIT (the same runtime, gauntlet/players/stlucia) with one bug of a
// kind C submissions often have: it uses the label of a message to index its table of
// players without checking it against the player count. A well-formed message naming a
// player beyond the game ("points C 1" in a 2-player game), which the reference refuses as
// a bad message (exit 5), makes it crash with SIGSEGV right after echoing the line.
package main

import (
	"bufio"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"gauntlet/games/stlucia"
	"gauntlet/players/stluciaplayers"
)

func main() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	n, _, status := stlucia.ParsePlayerArgs(os.Args[1:])
	var stdin io.Reader = os.Stdin
	if status == stlucia.PlayerExitOK {
		stdin = &labelBug{in: bufio.NewReader(os.Stdin), players: n}
	}
	os.Exit(stluciaplayers.Run(stlucia.Strategies["EAIT"], os.Args[1:], stdin, os.Stdout, os.Stderr))
}

// labelBug hands the player its input a line at a time, and crashes on the first line that
// names a player label beyond the player count: the bug.
type labelBug struct {
	in      *bufio.Reader
	players int
	pending string
}

func (b *labelBug) Read(p []byte) (int, error) {
	if b.pending == "" {
		line, err := b.in.ReadString('\n')
		if line == "" {
			return 0, err
		}
		text := strings.TrimSuffix(line, "\n")
		if m, err := stlucia.ParseMsg(text); err == nil && namesPlayer(m.Kind) && m.Player >= b.players {
			// The reference runtime flushes its stderr before every read, so this echo
			// lands after everything it wrote, as the C program's would.
			os.Stderr.WriteString("From StLucia:" + text + "\n")
			crash()
		}
		b.pending = line
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// namesPlayer reports whether a message of kind k carries a player label.
func namesPlayer(k stlucia.MsgKind) bool {
	switch k {
	case stlucia.MsgRolled, stlucia.MsgPoints, stlucia.MsgAttacks, stlucia.MsgEliminated, stlucia.MsgClaim, stlucia.MsgWinner:
		return true
	}
	return false
}

// crash ends the process by SIGSEGV, as the out-of-bounds access of a C program would. The
// Go runtime handles SIGSEGV itself, so the process becomes a shell that sends it to
// itself, with the signal's default action.
func crash() {
	syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -SEGV $$"}, os.Environ())
	os.Exit(139)
}
