package scriptcmds

import (
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// UnboxedCommand returns the first command of script (a case file) that starts a program
// outside the case box, or "": testscript's own exec, which runs its program as the
// harness's user (root in a graded case) with none of the box, the sandbox user or the
// limits that run gives. A graded case must start every program with run (or a judge that
// starts the subject as the case's user); testscript lets no case replace exec, so the
// grader refuses a case that uses it instead.
func UnboxedCommand(script []byte) string {
	for _, line := range strings.Split(string(txtar.Parse(script).Comment), "\n") {
		fields := strings.Fields(line)
		// Conditions ([unix]) and prefixes (! and ?) come before the command's name.
		for len(fields) > 0 && (strings.HasPrefix(fields[0], "[") || fields[0] == "!" || fields[0] == "?") {
			fields = fields[1:]
		}
		if len(fields) > 0 && fields[0] == "exec" {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
