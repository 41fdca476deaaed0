package sandbox

import (
	"slices"
	"strings"

	"gauntlet/harness/child"
)

// SubjectEnv is the environment a subject's program starts with where no suite case makes
// one (a fuzzing campaign, a tournament): what a graded case gives it (child.SubjectEnv, the
// one policy), not the harness's own environment, whose variables (tokens, keys, the paths
// of the caller's sessions, its PATH) are none of a subject's business and could leave
// through its output. It holds PATH child.SystemPath, a HOME that does not exist, TMPDIR
// /tmp, which a box makes private, and LANG=C; then extra, whose entries replace those
// before them of the same name (a caller's PATH of child.SubjectPath). A Group run's
// programs get it too, with their working directory as HOME and TMPDIR.
func SubjectEnv(extra ...string) []string {
	env := append(child.SubjectEnv(nil, "/tmp"), "HOME=/nonexistent", "LANG=C")
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}
