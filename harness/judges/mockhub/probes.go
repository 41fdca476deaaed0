package mockhub

import (
	"fmt"
	"slices"
)

// Probe is a kind of conversation that is not a list of steps: a conversation made of one
// line whose first word is the probe's (and optionally `args`) has the mock hub run the
// probe against the program instead, as the program's peer would (the referee protocol's
// match runner against a referee: judges/refereejudges). Probe parses the words
// that follow the probe's word, the probe's settings; its error is reported with the
// line's number.
type Probe func(settings []string) (ProbeSpec, error)

// ProbeSpec is a probe's parsed settings.
type ProbeSpec interface {
	// String is the settings in their canonical form, as the conversation's Format writes
	// them after the probe's word: Parse reads them back to the same settings.
	String() string
	// Run probes prog, started with args (the conversation's) as many times as the probe
	// needs (StartSession), and returns its result: the report in Result.Text, and when the
	// program failed, Result.Kind (and Want and Got) for the grader. The error is the
	// harness's own. opt.StepTimeout is set.
	Run(prog string, args []string, opt Options) (Result, error)
}

// ProbeRun is a conversation's probe line.
type ProbeRun struct {
	Word   string    // the probe's word, the line's first
	Spec   ProbeSpec // the settings that follow it, parsed by the probe
	Source int       // the line's number
}

// probes are the registered probes, by word.
var probes = map[string]Probe{}

// RegisterProbe teaches the mock hub the probe p, the conversation kind whose line starts
// with word. A game's registration calls it (programs.Registration.Probes), from an init;
// it panics when word is a step's or is taken.
func RegisterProbe(word string, p Probe) {
	_, taken := probes[word]
	if taken || slices.Contains(kindNames, word) || slices.Contains([]string{"args", "judge", "tcp", "connect"}, word) {
		panic(fmt.Sprintf("mockhub: the probe %q is a word the conversations already use", word))
	}
	probes[word] = p
}
