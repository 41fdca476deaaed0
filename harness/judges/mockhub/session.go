package mockhub

import (
	"bytes"
	"time"

	"gauntlet/harness/runtime/child"
)

// Session is a program a probe (RegisterProbe) talks to line by line over pipes, started
// as Run starts a player: in a process group of its own, as the subject (Options.Subject)
// in a graded case, its stderr to Options.Stderr. A probe starts as many as it needs, one
// after the other, and must Kill each.
type Session struct{ p *proc }

// StartSession starts prog with args for a probe. The error is the harness's own (the
// program could not be started).
func StartSession(prog string, args []string, opt Options) (*Session, error) {
	p, err := start(prog, args, child.Pipes, opt.Stderr, opt.Subject, opt.StepTimeout)
	if err != nil {
		return nil, err
	}
	return &Session{p}, nil
}

// Send writes line and a newline to the program's stdin. A program that no longer reads
// is not an error here: what it writes next (or its silence) tells.
func (s *Session) Send(line string) { s.p.stdin.Write([]byte(line + "\n")) }

// CloseInput closes the program's stdin: it sees EOF.
func (s *Session) CloseInput() { s.p.stdin.Close() }

// LineState is what ReadLine got.
type LineState int

// What ReadLine got.
const (
	GotLine    LineState = iota // a line
	GotNothing                  // no whole line within the time given (the program's output still open)
	GotEOF                      // the end of the program's output, with nothing left to read
)

// ReadLine reads the program's next line, without its newline, within d. A last line
// without a newline, before the end of the output, counts as a line (as it does for the
// reference programs' readers, harness/runtime/lineio). What has come of a line not whole within d
// is kept for the next call.
func (s *Session) ReadLine(d time.Duration) (string, LineState) {
	p := s.p
	timer, by := time.NewTimer(d), time.Now().Add(d)
	defer timer.Stop()
	timedOut := p.fill(timer.C, by, hasLine)
	if !hasLine(p.buf) {
		switch {
		case timedOut:
			return "", GotNothing
		case len(p.buf) == 0:
			return "", GotEOF
		}
		p.buf = append(p.buf, '\n')
	}
	n := bytes.IndexByte(p.buf, '\n')
	line := string(p.buf[:n])
	p.buf = p.buf[n+1:]
	return line, GotLine
}

// Exits reports whether the program exits within d.
func (s *Session) Exits(d time.Duration) bool {
	select {
	case <-s.p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// Kill kills the program's process group, waits until the program is reaped, and returns
// the CPU time it used (user and system).
func (s *Session) Kill() (cpu time.Duration) {
	s.p.kill()
	<-s.p.exited
	if st := s.p.cmd.ProcessState; st != nil {
		cpu = st.UserTime() + st.SystemTime()
	}
	return cpu
}
