package grade

import (
	"slices"
	"strings"

	"gauntlet/harness/scriptcmds"
)

// UserLog rewrites a case run's testscript log for people. It leaves out the environment
// testscript prints first (scratch folders that are gone when the grade ends, the grader's
// own settings), and after each `run` command it writes the command as a person would type
// it in the submission's folder: the subject's programs as ./NAME, the reference programs
// as ref/NAME (a link named NAME to the gauntlet binary runs as that program), the mock hub
// as `gauntlet exec mockhub`, a mock player made by mkplayer as ./NAME (its line above says
// what it does), the arguments quoted for a shell, and the run's own checks
// (-status, -timeout, ...) left out. paths maps the folders and programs of the grade's
// scratch space, gone when it ends, to what a person would write instead (the subject's
// program to ./NAME, the case's own folder to nothing); the rest of the log is kept as it is.
func UserLog(log string, g Game, p Pairing, paths map[string]string) string {
	pairs := make([]string, 0, 2*len(paths))
	for _, old := range slices.SortedFunc(func(yield func(string) bool) {
		for k := range paths {
			if k != "" && !yield(k) {
				return
			}
		}
	}, func(a, b string) int { return len(b) - len(a) }) {
		pairs = append(pairs, old, paths[old])
	}
	log = strings.NewReplacer(pairs...).Replace(log)
	lines := strings.Split(log, "\n")
	start := 0
	for start < len(lines) && isEnvLine(lines[start]) {
		start++
	}
	if start > 0 && start < len(lines) && lines[start] == "" {
		start++
	}
	var b strings.Builder
	for _, l := range lines[start:] {
		b.WriteString(l)
		b.WriteByte('\n')
		if cmd, ok := strings.CutPrefix(l, "> run "); ok {
			if typed := typedCommand(scriptWords("run "+cmd), g, p); typed != "" {
				b.WriteString("  as typed: " + typed + "\n")
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// isEnvLine reports whether l is a line of testscript's environment dump (NAME=VALUE).
func isEnvLine(l string) bool {
	name, _, ok := strings.Cut(l, "=")
	return ok && name != "" && !strings.ContainsAny(name, " #>[")
}

// typedCommand is a `run` command's program and arguments as a person would type them.
func typedCommand(fields []string, g Game, p Pairing) string {
	at := runProgramAt(fields)
	if at < 0 {
		return ""
	}
	words := make([]string, 0, len(fields)-at+2)
	for i, w := range fields[at:] {
		switch {
		case strings.HasPrefix(w, "$MOCKBIN/"):
			w = "./" + strings.TrimPrefix(w, "$MOCKBIN/")
		case strings.HasPrefix(w, "$"):
			v := strings.Trim(strings.TrimPrefix(w, "$"), "{}")
			prog := g.program(v)
			switch {
			case prog.Name == "":
			case g.theirsIn(v, p):
				w = "./" + prog.Name
			default:
				w = "ref/" + prog.Name
			}
		case i == 0 && (w == "mockplayer" || scriptcmds.IsJudge(w)):
			words = append(words, "gauntlet", "exec")
		}
		words = append(words, shellQuote(w))
	}
	return strings.Join(words, " ")
}
