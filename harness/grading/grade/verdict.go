// Package grade runs a game's conformance suite against a submission and turns the outcome
// of every case into a verdict, marks and reports.
package grade

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/judges/outcome"
)

// Verdict is the outcome of one case: the list of docs/architecture.md ("Verdicts and the
// fault catalogue"), decided as docs/grading.md says ("How a failure becomes a verdict").
type Verdict string

// The verdicts. HarnessError is never blamed on the subject: such a case counts neither for
// nor against it, and makes the grader exit 2.
const (
	Pass        Verdict = "PASS"
	PassLenient Verdict = "PASS-LENIENT"
	WrongStdout Verdict = "WRONG-STDOUT"
	WrongStderr Verdict = "WRONG-STDERR"
	WrongExit   Verdict = "WRONG-EXIT"
	Protocol    Verdict = "PROTOCOL"
	Crash       Verdict = "CRASH"
	Timeout     Verdict = "TIMEOUT"
	Hygiene     Verdict = "HYGIENE"
	// Limit: a run stopped by one of the grader's resource limits (cpu, memory, file size,
	// processes, output); the detail names it.
	Limit        Verdict = "LIMIT"
	BuildFail    Verdict = "BUILD-FAIL"
	HarnessError Verdict = "HARNESS-ERROR"
)

// Passed reports whether the verdict earns the case's marks.
func (v Verdict) Passed() bool { return v == Pass || v == PassLenient }

var (
	failLine = lazyRegexp(`^FAIL: [^\n]*?:(\d+): (.*)$`)
	mockFail = lazyRegexp(`(?m)^FAIL at step .*$`)
)

// Classify says which verdict a failed script's failure is, with a line of detail for
// people. The verdict comes from rec, the record of the script command that failed the
// case (package outcome: scriptcmds wrote it, with its judge's own account when a judge
// found the subject at fault, in a file of the case's folder the subject cannot write), by
// its kind alone: no verdict is read from a message. A failure without a record is one of
// testscript's own commands (cmp, stdout, stderr, exists, ...), told by the script's line:
// testscript's last line of the log names it, and writes it after everything else. The
// rest only makes the detail: the log's last line (the harness's message), the script
// line's command, judged (the output of the judge program when it failed, which the
// harness saved apart from the log: scriptcmds.JudgeOutputFile), and the log's last diff.
// theirs reports whether a program name (as the script ran it) is the subject's: a program
// of the subject that is missing is a BuildFail, one of the harness's a HarnessError.
func Classify(log string, script []byte, judged string, rec *outcome.Record, theirs func(prog string) bool) (Verdict, string) {
	v, detail := classify(log, script, judged, rec, theirs)
	return v, detail + hint(v, rec)
}

// failure is what a failed script's log says of its failure: testscript's last line
// ("FAIL: FILE:N: MESSAGE"), which it writes after everything else, so that no output of
// the subject's can stand in for it, and the script's line N, the command that failed.
type failure struct {
	found bool   // the log ends with testscript's FAIL line
	msg   string // its message
	line  string // the script's line N as written ("" when N is not one of its lines)
	cmd   string // that line without the spaces around it
	at    int    // where the FAIL line starts in the log
}

// echo finds the failed command's echo in the log (the last echo of its line before the
// FAIL line) and returns the log before it and what the command logged after it, up to the
// FAIL line; ok is false when it is not found. What a comparison logs after its echo is
// its diffs alone, whatever the subject printed before it.
func (f failure) echo(log string) (before, out string, ok bool) {
	if !f.found || f.line == "" {
		return "", "", false
	}
	head := "\n" + log[:f.at]
	i := strings.LastIndex(head, "\n> "+f.line+"\n")
	if i < 0 {
		return "", "", false
	}
	return head[:i], head[i+len(f.line)+4:], true
}

// output is what the failed command logged after its echo (failure.echo), or "".
func (f failure) output(log string) string {
	_, out, _ := f.echo(log)
	return out
}

// failureOf reads a failed script's failure from its log and the script.
func failureOf(log string, script []byte) failure {
	trimmed := strings.TrimRight(log, "\n")
	last := trimmed[strings.LastIndex(trimmed, "\n")+1:]
	f := failure{at: len(trimmed) - len(last)}
	m := failLine().FindStringSubmatch(last)
	if m == nil {
		return f
	}
	f.found, f.msg = true, m[2]
	if n, err := strconv.Atoi(m[1]); err == nil {
		lines := strings.Split(string(script), "\n")
		if n >= 1 && n <= len(lines) {
			f.line = lines[n-1]
			f.cmd = strings.TrimSpace(f.line)
		}
	}
	return f
}

func classify(log string, script []byte, judged string, rec *outcome.Record, theirs func(prog string) bool) (Verdict, string) {
	f := failureOf(log, script)
	msg, cmd := f.msg, f.cmd
	switch {
	case f.found:
	case rec == nil:
		return HarnessError, "the script failed without saying why"
	default:
		// A record without testscript's line: the record still says what happened.
		msg = rec.Message
	}
	fields := scriptWords(cmd)
	prog := runProgram(fields)
	if name := commandName(fields); testscriptCommands[name] || rec == nil {
		switch {
		case !testscriptCommands[name]:
			// An unknown command, or one of scriptcmds that failed without its record.
			return HarnessError, msg
		case strings.Contains(cmd, "stdout"):
			return WrongStdout, msg + firstDiff(f.output(log))
		case strings.Contains(cmd, "stderr"):
			return WrongStderr, msg + firstDiff(f.output(log))
		}
		return WrongStdout, msg
	}
	if rec.Judge != "" && rec.Kind != outcome.Harness {
		// A judge's account: the detail is its FAIL line.
		detail := "the subject diverged from the protocol"
		if f := mockFail().FindString(judged); f != "" {
			detail = f
		}
		return judgeVerdict(*rec), limitName(*rec) + detail
	}
	switch rec.Kind {
	case outcome.Harness:
		return HarnessError, msg
	case outcome.Missing:
		if prog != "" && theirs(prog) {
			return BuildFail, "program not built: " + prog
		}
		return HarnessError, msg
	case outcome.Mismatch:
		// The output compared; a file is told as the script's line names it (a player's
		// saved stderr).
		stderr := rec.Output == "stderr"
		if rec.Output != "stdout" && rec.Output != "stderr" {
			stderr = !strings.Contains(cmd, "stdout") && strings.Contains(cmd, "stderr")
		}
		if stderr {
			return WrongStderr, msg + firstDiff(f.output(log))
		}
		return WrongStdout, msg + firstDiff(f.output(log))
	case outcome.Limit:
		if rec.Want != "" {
			// Seen as the exit status the run checked: the detail names the limit.
			return Limit, limitName(*rec) + withCommand(msg, fields)
		}
		return Limit, withCommand(msg, fields)
	}
	return kindVerdicts[rec.Kind], withCommand(msg, fields)
}

// kindVerdicts is the verdict of each kind of record of a script command (the others are
// decided in classify).
var kindVerdicts = map[outcome.Kind]Verdict{
	outcome.Diverged: Protocol,
	outcome.Silent:   Timeout,
	outcome.Deadline: Timeout,
	outcome.Exit:     WrongExit,
	outcome.Early:    WrongExit,
	outcome.Signal:   Crash,
	outcome.Left:     Hygiene,
	outcome.Held:     Hygiene,
}

// judgeVerdict is the verdict of a judge's record: a limit that killed the subject, a
// crash, a silence, another exit status than the step wanted, else a divergence.
func judgeVerdict(rec outcome.Record) Verdict {
	switch rec.Kind {
	case outcome.Limit:
		return Limit
	case outcome.Signal:
		return Crash
	case outcome.Silent:
		return Timeout
	case outcome.Exit:
		return WrongExit
	}
	return Protocol
}

// limitName starts the detail of a limit that showed as how the program ended: "cpu
// limit: " or "file size limit: "; "" for any other record.
func limitName(rec outcome.Record) string {
	if rec.Kind != outcome.Limit {
		return ""
	}
	switch rec.Limit {
	case "cpu":
		return "cpu limit: "
	case "file-size":
		return "file size limit: "
	}
	return rec.Limit + " limit: "
}

// testscriptCommands are testscript's own commands, which write no record.
var testscriptCommands = map[string]bool{"cd": true, "chmod": true, "cmp": true, "cmpenv": true,
	"cp": true, "env": true, "exec": true, "exists": true, "grep": true, "kill": true, "mkdir": true,
	"mv": true, "rm": true, "skip": true, "stderr": true, "stdin": true, "stdout": true,
	"ttyin": true, "ttyout": true, "stop": true, "symlink": true, "unquote": true, "wait": true}

// commandName is the command of a script line's words, after its prefixes ("!", "?",
// "[condition]").
func commandName(fields []string) string {
	for _, f := range fields {
		if f == "!" || f == "?" || strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			continue
		}
		return f
	}
	return ""
}

// The hints name the commonest C bug behind a failure. Each is added from what the grader
// measured (the verdict and the failure's record; see hint), never from what the subject
// printed, and says "may" where the measure does not prove the cause.
const (
	// unflushedHint follows a player's silence where a message was due (a reply or the
	// handshake): a message written with stdio and never flushed.
	unflushedHint = " (if the player did write it, it may still be in its stdout buffer: fflush(stdout) after each message, the handshake included)"
	// noNewlineHint follows a message that came without its newline, then silence or EOF.
	noNewlineHint = " (the message came without its newline: every message ends with \\n, and is flushed after it)"
	// sigpipeHint follows a death by SIGPIPE: a write to a pipe whose reader had gone.
	sigpipeHint = " (SIGPIPE: it wrote to a pipe whose reader had gone; the spec wants the loss noticed by the read that follows: ignore SIGPIPE, signal(SIGPIPE, SIG_IGN), and check reads)"
	// deadlockHint follows a run whose processes were all waiting to read when its deadline
	// came (a hub and its players): each waits on a line another never sent, most often one
	// written with stdio and left in its buffer.
	deadlockHint = " (every process was waiting to read: a line that was written but never flushed leaves its reader waiting for ever; fflush after each message, in the hub and in the players)"
	// leakedPipeHint follows the same wait where the diagnosis found a reader whose pipe's
	// write end is open in a process that is not its writer (a child that inherited the
	// hub's ends of another child's pipes, or the reader's own copy): the end of file it
	// waits for cannot come while that copy is open. Flushing would not help.
	leakedPipeHint = " (a process waits for the end of a pipe that cannot come: a write end of that pipe is still open in a process that is not its writer, as the diagnosis names; after fork, close in each child every pipe end it does not use (the other players' too), and after dup2 the original descriptors)"
	// zombieHint follows a child that exited and was never waited for.
	zombieHint = " (a child that ends must be reaped: waitpid for every child started, also on the error paths)"
)

// hint is the hint a failure's verdict and record call for, or "": each from a field of
// the record that the harness or the judge set from what it measured (a run's hang, the
// signal, the hygiene findings, a judge's account of what came at the failed step), never
// from the words of the detail, which may quote the subject's output and its processes'
// names.
func hint(v Verdict, rec *outcome.Record) string {
	if rec == nil {
		return ""
	}
	hang := ""
	if rec.Kind == outcome.Deadline {
		hang = rec.Hang
	}
	judge := rec.Judge != ""
	switch {
	case v == Timeout && hang == string(hygiene.LeakedPipe):
		return leakedPipeHint
	case v == Timeout && hang == string(hygiene.Deadlock):
		return deadlockHint
	case v == Timeout && judge && rec.LineDue:
		return unflushedHint
	case judge && rec.Partial:
		return noNewlineHint
	case v == Crash && rec.Signal == "SIGPIPE":
		return sigpipeHint
	case v == Hygiene && rec.Zombie:
		return zombieHint
	}
	return ""
}

// withCommand puts the command a failed `run` ran, as the case's script wrote it (program
// variable and arguments), in place of the program's path in the message: "run:
// /tmp/.../EAIT: want exit 1, got 4" becomes "run $EAIT 2 A B: want exit 1, got 4", and
// "run: /tmp/.../EAIT did not finish ..." becomes "run $EAIT 2 A B did not finish ...".
func withCommand(msg string, fields []string) string {
	rest, ok := strings.CutPrefix(msg, "run: ")
	at := runProgramAt(fields)
	if !ok || at < 0 {
		return msg
	}
	end := strings.IndexAny(rest, " :")
	if end <= 0 {
		return msg
	}
	return "run " + strings.Join(fields[at:], " ") + rest[end:]
}

// runProgram finds the program a `run [flags] PROG ARGS` command ran.
func runProgram(fields []string) string {
	if i := runProgramAt(fields); i >= 0 {
		return fields[i]
	}
	return ""
}

// runProgramAt finds where the program is in the words of a `run [flags] PROG ARGS`
// command, or -1.
func runProgramAt(fields []string) int {
	if len(fields) == 0 || fields[0] != "run" {
		return -1
	}
	valueFlags := map[string]bool{"-status": true, "-timeout": true, "-stdin": true, "-signal": true,
		"-after": true, "-after-stdout": true, "-after-stderr": true, "-env": true, "-allow": true}
	for i := 1; i < len(fields); i++ {
		f := fields[i]
		if !strings.HasPrefix(f, "-") {
			return i
		}
		if valueFlags[f] && !strings.Contains(f, "=") {
			i++
		}
	}
	return -1
}

// scriptWords splits a script command line into words as testscript does: spaces separate
// words, and single quotes group them (” inside quotes is one quote).
func scriptWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, have := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' && in && i+1 < len(line) && line[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case c == '\'':
			in, have = !in, true
		case (c == ' ' || c == '\t') && !in:
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		case c == '#' && !in && !have:
			return words
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		words = append(words, cur.String())
	}
	return words
}

// firstDiff finds the first difference in the last unified diff of a log and says it in
// words, e.g. `: at line 3, want "Player B wins", got "Player A wins"`.
func firstDiff(log string) string {
	d, ok := lastDiff(log)
	if !ok {
		return ""
	}
	show := func(p *string, noEOL bool) string {
		switch {
		case p == nil:
			return "nothing more"
		case noEOL:
			return strconv.Quote(*p) + " " + noNewline
		}
		return strconv.Quote(*p)
	}
	return fmt.Sprintf(": at line %d, want %s, got %s", d.line, show(d.want, d.wantNoEOL), show(d.got, d.gotNoEOL))
}

// noNewline marks a last line that ended without '\n', as transcripts do.
const noNewline = "[no newline]"

// diffPoint is the first difference of a unified diff.
type diffPoint struct {
	line      int      // its line number in the program's output (1-based)
	got, want *string  // the lines there; nil when that side has no more lines
	context   []string // the output's lines just before it, as the diff shows them
	// gotNoEOL and wantNoEOL say that the line is the last of its side and has no '\n': the
	// only difference a reader cannot see when the texts are the same.
	gotNoEOL, wantNoEOL bool
}

// lastDiff finds the first difference in the last unified diff of a log (testscript's cmp,
// and cmpalt, print one: "-" lines are what the program wrote, "+" lines what was wanted).
func lastDiff(log string) (diffPoint, bool) {
	log = "\n" + log
	// The first hunk of the last diff ("diff A B" starts one) holds its first difference.
	start := max(strings.LastIndex(log, "\ndiff "), 0)
	i := strings.Index(log[start:], "\n@@ ")
	if i < 0 {
		return diffPoint{}, false
	}
	i += start
	var d diffPoint
	if _, err := fmt.Sscanf(log[i+4:], "-%d", &d.line); err != nil {
		d.line = 0
	}
	var last *bool // the no-newline mark of the side the previous diff line set
	for _, l := range strings.Split(log[i+1:], "\n")[1:] {
		if l == "" || strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "> ") || strings.HasPrefix(l, "@@ ") {
			break
		}
		mark := last
		last = nil
		switch {
		case strings.HasPrefix(l, `\ `): // "\ No newline at end of file", about the line before
			if mark != nil {
				*mark = true
			}
		case strings.HasPrefix(l, "-") && d.got == nil:
			v := l[1:]
			d.got, last = &v, &d.gotNoEOL
		case strings.HasPrefix(l, "+") && d.want == nil:
			v := l[1:]
			d.want, last = &v, &d.wantNoEOL
		case strings.HasPrefix(l, " ") && d.got == nil && d.want == nil:
			d.context = append(d.context, l[1:])
			d.line++
		case strings.HasPrefix(l, " ") && (d.got == nil || d.want == nil):
			// A line only one side has (inserted or left out), then a line both have: that
			// line is what the other side has at the point, not the end of its text.
			v := l[1:]
			if d.got == nil {
				d.got = &v
			} else {
				d.want = &v
			}
		}
	}
	if d.got == nil && d.want == nil {
		return diffPoint{}, false
	}
	d.line = max(d.line, 1)
	return d, true
}

// lazyRegexp compiles a pattern on its first use. Every program gauntlet runs as links this
// package, and a reference player started a thousand times in a grade should not compile
// the grader's patterns each time.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
