package mockplayer

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"gauntlet/harness/faults"
)

const usage = `usage: mockplayer (-as NAME | -relay PROGRAM) [-faults FILE] [-fault RULE]... [-record FILE] [--] PLAYER-ARGS...

The mock player. It plays as the reference player NAME (-as), or runs the real PROGRAM and
copies every byte both ways (-relay), and leaves the protocol where the fault script says
(see 'go doc gauntlet/harness/faults' for the rules). The PLAYER-ARGS are the arguments the
hub gave the player. -record appends a line to FILE for every chunk that passes.

A hub starts its players with fixed arguments, so to put a mock in a game, start it through a
wrapper script, e.g.:
  #!/bin/sh
  exec mockplayer -as 2310A -fault 'after 3 exit 0' -- "$@"
`

// Main is the mockplayer command. players finds the in-process reference players by name.
func Main(args []string, players func(name string) (InProcess, bool), stdin *os.File, stdout *os.File, stderr io.Writer) int {
	fs := flag.NewFlagSet("mockplayer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	as := fs.String("as", "", "play as this reference player (e.g. 2310A, EAIT)")
	relay := fs.String("relay", "", "relay this real player program")
	scriptFile := fs.String("faults", "", "read the fault script from this file")
	record := fs.String("record", "", "append a record of the conversation to this file")
	var rules []string
	fs.Func("fault", "one fault rule (repeatable), e.g. 'reply 2 line \"DO9\"'", func(s string) error {
		rules = append(rules, s)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (*as == "") == (*relay == "") {
		fmt.Fprint(stderr, "mockplayer: give exactly one of -as and -relay\n"+usage)
		return 2
	}
	text := strings.Join(rules, "\n")
	if *scriptFile != "" {
		b, err := os.ReadFile(*scriptFile)
		if err != nil {
			fmt.Fprintf(stderr, "mockplayer: %v\n", err)
			return 2
		}
		text = string(b) + "\n" + text
	}
	script, err := faults.Parse(text)
	if err != nil {
		fmt.Fprintf(stderr, "mockplayer: %v\n", err)
		return 2
	}
	cfg := Config{Script: script}
	if *as != "" {
		run, ok := players(*as)
		if !ok {
			fmt.Fprintf(stderr, "mockplayer: no reference player named %q\n", *as)
			return 2
		}
		cfg.Inner = run
	} else {
		cfg.Inner = External{Path: *relay}
	}
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "mockplayer: %v\n", err)
			return 2
		}
		defer f.Close()
		cfg.Recorder = &textRecorder{w: f, start: time.Now(), who: strings.Join(fs.Args(), " ")}
	}
	return Run(cfg, fs.Args(), stdin, stdout, stderr)
}

// textRecorder writes one line per chunk: time since start, direction, quoted bytes.
type textRecorder struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	who   string
}

func (r *textRecorder) line(dir, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "%10.3fms [%s] %s %s\n", float64(time.Since(r.start).Microseconds())/1000, r.who, dir, text)
}

func (r *textRecorder) FromHub(d []byte) { r.line("hub->player", fmt.Sprintf("%q", d)) }
func (r *textRecorder) ToHub(d []byte)   { r.line("player->hub", fmt.Sprintf("%q", d)) }
func (r *textRecorder) Note(e string)    { r.line("note", e) }
