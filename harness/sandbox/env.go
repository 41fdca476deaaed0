package sandbox

import (
	"os"
	"slices"
	"strings"
)

// SubjectEnv is the environment a subject's program starts with where no suite case makes
// one (a fuzzing campaign, a tournament): what a graded case gives it, not the harness's
// own environment, whose variables (tokens, keys, the paths of the caller's sessions) are
// none of a subject's business and could leave through its output. It holds the harness's
// PATH (or the usual folders, when it has none), so that a program finds the same tools as
// in a grade, a HOME that does not exist, TMPDIR /tmp, which a box makes private, and
// LANG=C; then extra, whose entries replace those before them of the same name. A Group
// run's programs get it too, with their working directory as HOME and TMPDIR.
func SubjectEnv(extra ...string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env := []string{"PATH=" + path, "HOME=/nonexistent", "TMPDIR=/tmp", "LANG=C"}
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}
