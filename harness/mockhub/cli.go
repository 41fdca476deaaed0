package mockhub

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const usage = `usage: mockhub [-timeout D] CONVERSATION PROGRAM

The mock hub. It starts PROGRAM with the conversation's arguments, plays the conversation
(see 'go doc gauntlet/harness/mockhub'), and prints "ok: ..." or "FAIL at step N
(line L of the conversation: STEP) ...", the latter followed by the conversation up to the
first divergence (the last 20 steps, numbered as N is), the divergent step marked with
'>'. The player's stderr is copied to the mock hub's stderr, so a script can compare it.
Exit status: 0 when the player followed the conversation, 1 when it diverged, 2 on a usage
error or when PROGRAM cannot be started.
`

// SubjectEnv, in the mock hub's environment, says as whom and where to start the player
// when the mock hub runs as root in a grader's box: "UID:GID:DIR". The grader's script
// commands set it (the mock hub is the judge, the player the subject, and the two never
// share a user); it is not passed on to the player.
const SubjectEnv = "GAUNTLET_SUBJECT"

// Main is the mockhub command.
func Main(args []string, stdout, stderr io.Writer) int {
	// Nothing of the same user may trace this process or read its memory: it holds the
	// conversation the player is judged by.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintf(stderr, "mockhub: cannot make itself undumpable: %v\n", err)
		return 2
	}
	subject, err := SubjectFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "mockhub: $%s: %v\n", SubjectEnv, err)
		return 2
	}
	fs := flag.NewFlagSet("mockhub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	timeout := fs.Duration("timeout", 0, "how long to wait for the player at one step (default 5s)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return 2
	}
	text, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "mockhub: %v\n", err)
		return 2
	}
	conv, err := Parse(string(text))
	if err != nil {
		fmt.Fprintf(stderr, "mockhub: %s: %v\n", fs.Arg(0), err)
		return 2
	}
	res, err := Run(conv, fs.Arg(1), Options{StepTimeout: *timeout, Stderr: stderr, Subject: subject})
	if err != nil {
		fmt.Fprintf(stderr, "mockhub: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, res.Report())
	if !res.OK {
		return 1
	}
	return 0
}

// SubjectFromEnv reads SubjectEnv, and removes it from the environment the player gets.
func SubjectFromEnv() (*Subject, error) {
	v, ok := os.LookupEnv(SubjectEnv)
	if !ok {
		return nil, nil
	}
	os.Unsetenv(SubjectEnv)
	f := strings.SplitN(v, ":", 3)
	if len(f) != 3 {
		return nil, fmt.Errorf("want UID:GID:DIR, got %q", v)
	}
	uid, err1 := strconv.ParseUint(f[0], 10, 32)
	gid, err2 := strconv.ParseUint(f[1], 10, 32)
	if err1 != nil || err2 != nil || uid == 0 || f[2] == "" {
		return nil, fmt.Errorf("want UID:GID:DIR with a UID other than root, got %q", v)
	}
	return &Subject{UID: uint32(uid), GID: uint32(gid), Dir: f[2]}, nil
}
