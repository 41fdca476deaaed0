package scriptcmds

import (
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/sandbox"
)

// Settings are what a grader tells the commands of a case: its flags (-timeout, -cpu,
// -mem, ...) and how the case is boxed. The commands run in the grader's own process
// (testscript calls them), so the settings are handed to them as this value, which
// Settings.Setup keeps in the script's Values: never through the script's environment,
// where a setting would be text to parse (the limits as JSON) and a name every program
// the script started could read, the judges included. The zero
// value is a case of trusted programs under go test: the default deadline and limits, as
// the harness's own user, without a box.
type Settings struct {
	// Timeout is run's default deadline (zero: DefaultTimeout): the grader's -timeout.
	Timeout time.Duration
	// Limits are the resource limits run applies (zero: sandbox.DefaultLimits, and any
	// field left zero its default): the grader's -cpu, -mem, ... flags.
	Limits sandbox.Limits
	// SandboxUser makes run start its program as a sandbox user of its own when the
	// harness is root (sandbox.Identity's default), handing it the script's folder, so that
	// the process limit holds and the program cannot touch the harness; the case is boxed
	// (caseBox). The grader sets it, and makes the folders above the script's and the
	// programs' searchable by others. Otherwise (trusted programs under go test) the
	// program runs as the harness's own user.
	SandboxUser bool
	// Owner names whose case it is (a submission of a cohort: the grader gives each graded
	// submission a name of its own): the case's sandbox user is one lent only to that
	// owner's cases (sandbox.UserPool.BorrowFor), never to another submission's.
	Owner string
	// NoBox, beside SandboxUser, grades at the level below the box: every program still a
	// sandbox user of its own with its limits, the script's folder still the grader's
	// alone, but without namespaces, mounts or a network of the case's own (a root grader
	// in a container that refuses them; sandbox.UsersProblem).
	NoBox bool
	// BoxKeep are folders the case's boxes must keep visible: the grader's scratch space,
	// where the programs are, and what the staff keep (BoxKeepVar).
	BoxKeep []string
	// BoxHide are folders of BoxKeep that a judge's box holds and a subject's must not: the
	// grader's own folder of programs, every one by its name (rootless, its modes keep
	// nothing from a subject, which has the grader's user), where a subject is handed the
	// programs it may run apart.
	BoxHide []string
	// MockPlayer is the path of the mock player that mkplayer's wrappers run, which the
	// subject's hub must be able to run: the grader publishes it where sandbox users may
	// (grade.Options.Published). Empty: mockplayer is looked up in the script's PATH. A
	// script sees it as $GAUNTLET_MOCKPLAYER (MockPlayerVar), for a case that tells the
	// mock player apart from a copy of a reference player.
	MockPlayer string
}

type settingsKey struct{}

// settings are the settings of the script ts (Settings.Setup kept them).
func settings(ts *testscript.TestScript) Settings {
	s, _ := ts.Value(settingsKey{}).(Settings)
	return s
}

// envSettings are the settings of a script being set up.
func envSettings(env *testscript.Env) Settings {
	s, _ := env.Values[settingsKey{}].(Settings)
	return s
}

// timeout is run's default deadline.
func (s Settings) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// caseLimits are the limits of the case's runs: the grader's, with the defaults for what
// it left unset.
func (s Settings) caseLimits() sandbox.Limits { return s.Limits.WithDefaults() }
