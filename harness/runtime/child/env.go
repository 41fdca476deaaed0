package child

import (
	"slices"
	"strings"
)

// CaseMarkerVar names the variable that marks every process of a graded case (its value is
// the case's own), by which leftovers are found (scriptcmds' noprocs).
const CaseMarkerVar = "GAUNTLET_CASE"

// SubjectPathVar, in a subject's starter's environment, names the folders of a case's own
// that its subject's PATH holds before SystemPath: the case's programs a subject may be
// given by a bare name (mkplayer's wrappers). It is never passed on.
const SubjectPathVar = "GAUNTLET_SUBJECT_PATH"

// SystemPath is the PATH of every subject's program: the system's program folders, as a
// course's machine has them. Never its starter's PATH, which names the grader's own folders
// (its scratch's bin, /root/go/bin).
const SystemPath = "/usr/local/bin:/usr/bin:/bin"

// SubjectPath is the PATH of a subject whose case gives it the folders own (those of
// SubjectPathVar): own, then SystemPath.
func SubjectPath(own ...string) string {
	return strings.Join(append(slices.Clone(own), SystemPath), ":")
}

// SubjectVars are the variables a subject's program is given of its starter's
// environment, whoever starts it (a script command, a judge): what a program of a game may
// look at, and the case's marker. Everything else in a grader's or a judge's environment
// names the harness's settings or its programs: a subject given $GAUNTLET_MOCKPLAYER could
// run the mock player as the reference player in its place, and $DEALER names the
// reference dealer. PATH is not among them: a subject's is made
// (SubjectEnv).
var SubjectVars = []string{"HOME", "LANG", "LC_ALL", CaseMarkerVar}

// NoHome is a subject's HOME when its starter's environment has none: a folder that does
// not exist (never the grader's own, which holds its keys and sessions).
const NoHome = "/nonexistent"

// SubjectEnv is the environment of a subject's program started by one whose environment is
// env (NAME=value entries): the one policy for every subject, whoever starts it (a script
// command, a judge, a fuzzer's or a tournament's run through sandbox.ProgramEnv). It holds
// PATH (SubjectPath of env's SubjectPathVar, else SystemPath, never env's PATH), then
// SubjectVars and the names of extra as env has them, HOME NoHome and LANG C where env has
// none, and TMPDIR tmp (a box's private /tmp) or, with tmp empty, as env has it.
func SubjectEnv(env []string, tmp string, extra ...string) []string {
	path := SystemPath
	for _, kv := range env {
		if own, ok := strings.CutPrefix(kv, SubjectPathVar+"="); ok && own != "" {
			path = own + ":" + SystemPath
		}
	}
	out := []string{"PATH=" + path}
	home, lang := false, false
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH" || name == SubjectPathVar:
		case name == "TMPDIR":
			if tmp == "" {
				out = append(out, kv)
			}
		case slices.Contains(SubjectVars, name) || slices.Contains(extra, name):
			out = append(out, kv)
			home, lang = home || name == "HOME", lang || name == "LANG"
		}
	}
	if !home {
		out = append(out, "HOME="+NoHome)
	}
	if !lang {
		out = append(out, "LANG=C")
	}
	if tmp != "" {
		out = append(out, "TMPDIR="+tmp)
	}
	return out
}
