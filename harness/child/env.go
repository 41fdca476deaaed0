package child

import "strings"

// CaseMarkerVar names the variable that marks every process of a graded case (its value is
// the case's own), by which leftovers are found (scriptcmds' noprocs).
const CaseMarkerVar = "GAUNTLET_CASE"

// SubjectVars are the variables a subject's program is given of its starter's
// environment, whoever starts it (a script command, a judge): what a program of a game may
// look at, and the case's marker. Everything else in a grader's or a judge's environment
// names the harness's settings or its programs: a subject given $GAUNTLET_MOCKPLAYER ran
// the mock player as the reference player in its place, and $DEALER named the reference
// dealer (the box issue of 2026-11-28).
var SubjectVars = []string{"PATH", "HOME", "LANG", "LC_ALL", CaseMarkerVar}

// SubjectEnv is env (NAME=value entries) with only SubjectVars and the names of extra
// kept, and TMPDIR set to tmp when tmp is not empty (a box's private /tmp).
func SubjectEnv(env []string, tmp string, extra ...string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TMPDIR" && tmp != "" {
			continue
		}
		for _, keep := range [][]string{SubjectVars, extra} {
			if contains(keep, name) {
				out = append(out, kv)
				break
			}
		}
	}
	if tmp != "" {
		out = append(out, "TMPDIR="+tmp)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
