package sandbox

import (
	"slices"
	"strings"

	"gauntlet/harness/runtime/child"
)

// ProgramEnv is the environment a program the sandbox starts is built from, where no
// suite case makes one (a fuzzing campaign, a tournament, a Group run's programs): a
// subject's by the one policy (child.SubjectEnv), given nothing of the harness's own
// environment, whose variables (tokens, keys, the paths of the caller's sessions, its
// PATH) are none of a subject's business and could leave through its output: PATH
// child.SystemPath, HOME child.NoHome, LANG=C and TMPDIR /tmp, which a box makes private.
// over's entries replace those before them of the same name: what the caller decided
// (a caller's PATH of child.SubjectPath, a judge's settings, a run's token). A Group run's
// programs get it with their working directory as HOME and TMPDIR, then Config.Env and
// Spec.Env over it (a subject's made by child.SubjectEnv, a judge's).
func ProgramEnv(over ...string) []string {
	env := child.SubjectEnv(nil, "/tmp")
	for _, kv := range over {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}
