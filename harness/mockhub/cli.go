package mockhub

import (
	"flag"
	"fmt"
	"io"
	"os"
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

// Main is the mockhub command.
func Main(args []string, stdout, stderr io.Writer) int {
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
	res, err := Run(conv, fs.Arg(1), Options{StepTimeout: *timeout, Stderr: stderr})
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
