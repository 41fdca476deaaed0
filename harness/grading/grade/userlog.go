package grade

import (
	"slices"
	"strings"

	"gauntlet/harness/grading/scriptcmds"
)

// UserLog rewrites a case run's testscript log for people. It leaves out the environment
// testscript prints first (scratch folders that are gone when the grade ends, the grader's
// own settings), and after each `run` command it writes the command as a person would type
// it in the submission's folder (typing.command). Where a run goes comes from the runs
// recorded (scriptcmds.Runs: run marks its place in the log with a mark no program is
// given), and what it ran from its record: never from the log's text, where a subject's
// output line "> run evil" reads like any command of the script. paths maps the folders
// and programs of the grade's scratch space, gone when it ends, to what a person would
// write instead (the subject's program to ./NAME, the case's own folder to nothing); the
// rest of the log is kept as it is.
func UserLog(log string, runs *scriptcmds.Runs, typed typing, paths map[string]string) string {
	replace := pathReplacer(paths)
	log = replace.Replace(log)
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
		if runs != nil {
			if rec, marked := runs.At(l); marked {
				if rec != nil {
					if cmd := typed.command(*rec, replace); cmd != "" {
						b.WriteString("  as typed: " + cmd + "\n")
					}
				}
				continue
			}
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// withoutRunMarks is a log without the marks of its runs (scriptcmds.Runs), for a log that
// is shown as it is.
func withoutRunMarks(log string, runs *scriptcmds.Runs) string {
	if runs == nil || !strings.Contains(log, runs.Mark()) {
		return log
	}
	lines := strings.Split(log, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool {
		_, marked := runs.At(l)
		return marked
	}), "\n")
}

// pathReplacer replaces each path of paths with what it maps to, the longest first.
func pathReplacer(paths map[string]string) *strings.Replacer {
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
	return strings.NewReplacer(pairs...)
}

// isEnvLine reports whether l is a line of testscript's environment dump (NAME=VALUE).
func isEnvLine(l string) bool {
	name, _, ok := strings.Cut(l, "=")
	return ok && name != "" && !strings.ContainsAny(name, " #>[")
}

// typing says how a person types the programs of a case run: the subject's as ./NAME, the
// reference programs as ref/NAME (a link named NAME to the gauntlet binary runs as that
// program), a mock player made by mkplayer as ./NAME (its line above says what it does),
// the judges as `gauntlet exec NAME`.
type typing struct {
	programs map[string]string // a program's path, as the case's variable holds it -> as typed
	mockBin  string            // the folder of mkplayer's mock players ($MOCKBIN)
}

// command is a run's program and arguments as a person would type them, quoted for a
// shell; the run's own checks (-status, -timeout, ...) are not in its record. Words that
// name no program are passed through replace (the scratch space's paths).
func (t typing) command(rec scriptcmds.RunRecord, replace *strings.Replacer) string {
	if rec.Program == "" {
		return ""
	}
	words := make([]string, 0, len(rec.Args)+3)
	for i, w := range append([]string{rec.Program}, rec.Args...) {
		name, inMockBin := strings.CutPrefix(w, t.mockBin+"/")
		switch {
		case t.programs[w] != "":
			w = t.programs[w]
		case t.mockBin != "" && inMockBin && !strings.Contains(name, "/"):
			w = "./" + name
		case i == 0 && (rec.Judge || w == "mockplayer"):
			words = append(words, "gauntlet", "exec")
		default:
			w = replace.Replace(w)
		}
		words = append(words, shellQuote(w))
	}
	return strings.Join(words, " ")
}
