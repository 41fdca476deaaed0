package mockhub

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"gauntlet/harness/tcp"
)

// startClient starts a player that is a TCP client (a conversation's tcp line): the mock
// hub listens on a free port of the loopback (in a grader's box, the case's own network),
// starts the player with "127.0.0.1 PORT" before args, and takes the first connection
// within timeout as the player's stdin and stdout. A player that does not connect in
// time reads as one that closed its stdout at once. Its real stdout is discarded.
func startClient(prog string, args []string, stderr io.Writer, subj *Subject, timeout time.Duration) (*proc, error) {
	ln, err := tcp.Listen("127.0.0.1", 0)
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the player: %w", err)
	}
	port := strconv.Itoa(ln.Port)
	cmd := Command(prog, append([]string{"127.0.0.1", port}, args...), stderr, subj)
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		ln.Close()
		return nil, err
	}
	defer devnull.Close()
	cmd.Stdin, cmd.Stdout = devnull, devnull
	if err := cmd.Start(); err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot start %s: %w", prog, err)
	}
	return overConnection(cmd, func() (*os.File, error) {
		defer ln.Close()
		return ln.Accept(time.Now().Add(timeout))
	}), nil
}

// overConnection is the proc of a started player that talks over the connection connect
// makes, in the background (accepting the player's, or reaching the player's listener):
// writes wait for it, and no connection reads as a player that closed its side at once.
func overConnection(cmd *exec.Cmd, connect func() (*os.File, error)) *proc {
	conn := &lateConn{ready: make(chan struct{})}
	p := &proc{cmd: cmd, stdin: conn, out: make(chan chunk, 16), exited: make(chan struct{})}
	go p.wait()
	go func() {
		defer close(conn.ready)
		c, err := connect()
		if err != nil {
			close(p.out)
			return
		}
		conn.c = c
		go p.read(c)
	}()
	return p
}

// lateConn is the write side of a connection that may not exist yet: writes wait for
// the player to connect and are lost if it never does; Close ends the mock hub's side of
// the stream (the player reads EOF).
type lateConn struct {
	ready chan struct{}
	c     *os.File
}

func (l *lateConn) Write(b []byte) (int, error) {
	<-l.ready
	if l.c == nil {
		return 0, io.ErrClosedPipe
	}
	l.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return l.c.Write(b)
}

func (l *lateConn) Close() error {
	<-l.ready
	if l.c == nil {
		return nil
	}
	return tcp.CloseWrite(l.c)
}

// startServer starts a player that is a TCP server (a conversation's connect line): the
// player runs with args, must write "port N" as its first line on stdout once it listens
// on the loopback, and the mock hub connects to it within timeout and talks over that
// connection. A player that says no port, or cannot be reached in time, reads as one that
// closed its stdout at once. The rest of its stdout is discarded.
func startServer(prog string, args []string, stderr io.Writer, subj *Subject, timeout time.Duration) (*proc, error) {
	cmd := Command(prog, args, stderr, subj)
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = devnull, outW
	err = cmd.Start()
	outW.Close()
	if err != nil {
		outR.Close()
		return nil, fmt.Errorf("cannot start %s: %w", prog, err)
	}
	deadline := time.Now().Add(timeout)
	return overConnection(cmd, func() (*os.File, error) {
		outR.SetReadDeadline(deadline)
		first, err := bufio.NewReader(outR).ReadString('\n')
		outR.SetReadDeadline(time.Time{})
		go func() { // the server's later output, until it ends
			io.Copy(io.Discard, outR)
			outR.Close()
		}()
		if err != nil || !strings.HasPrefix(first, "port ") {
			return nil, fmt.Errorf("no port line: %q", first)
		}
		port, err := tcp.ParsePort(strings.TrimSuffix(strings.TrimPrefix(first, "port "), "\n"))
		if err != nil {
			return nil, err
		}
		return tcp.Dial("127.0.0.1", port, time.Until(deadline))
	}), nil
}
