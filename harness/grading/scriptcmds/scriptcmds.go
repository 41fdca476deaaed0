// Package scriptcmds adds to testscript the commands a conformance script needs and
// testscript lacks: running a program with a deadline and an expected exit status (in the
// foreground, or in the background and awaited later), sending it a signal at a chosen
// moment, a free loopback port and waiting for a server to listen on it, putting a mock
// player in a game, and checking that nothing a case started is still running.
//
// The commands and their usage are listed in usage.go (commands); each function's doc
// gives details and an example, and the `help` command prints them in a script.
//
// Where a spec allows more than one behaviour, the first expectation given is the
// reference's and the others are allowed alternatives: a match on an alternative passes, and
// is recorded (see LenientFile) so that a grader reports it as PASS-LENIENT.
package scriptcmds

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/rawfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/suite"
	"gauntlet/harness/judges/faults"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/judges/outcome"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/transcript"
)

// MarkerVar is set, with a value unique to each script, in the environment of everything a
// script starts; noprocs finds leftovers by it.
const MarkerVar = child.CaseMarkerVar

// LenientFile, in a script's $WORK, gets one line for every check that passed on an allowed
// alternative rather than the reference's behaviour.
const LenientFile = ".gauntlet-lenient"

// MockPlayerVar, in a script's environment, is the path of the mock player that mkplayer's
// wrappers run (Settings.MockPlayer), for a case that tells the mock player apart from a
// copy of a reference player; unset when the settings name none. The commands themselves
// read the setting, never the variable.
const MockPlayerVar = "GAUNTLET_MOCKPLAYER"

// DefaultTimeout is run's deadline when neither -timeout nor Settings.Timeout says otherwise.
const DefaultTimeout = 10 * time.Second

// MaxCapture bounds what run keeps of each output stream.
const MaxCapture = 1 << 20

type envNames struct{}

// Setup is Settings.Setup with the zero settings: a case of trusted programs under go test.
func Setup(env *testscript.Env) error { return Settings{}.Setup(env) }

// Setup prepares a script's environment for these commands, with the grader's settings s
// (kept in the script's Values, where the commands read them): the case marker, a bin
// directory at the front of PATH for mkplayer's wrappers, and the case's box when s asks
// for sandbox users. Call it from testscript.Params.Setup.
func (s Settings) Setup(env *testscript.Env) error {
	env.Values[settingsKey{}] = s
	if s.MockPlayer != "" {
		env.Setenv(MockPlayerVar, s.MockPlayer)
	}
	id := make([]byte, 8)
	rand.Read(id)
	bin := filepath.Join(env.WorkDir, ".bin")
	if s.SandboxUser {
		b, err := setupBox(env)
		if err != nil {
			return fmt.Errorf("harness error: the case's box: %w", err)
		}
		env.Values[caseBoxKey{}] = b
		// Every process the script starts has a pid allocated after this mark (noprocs):
		// the one taken as the case's user was lent.
		env.Values[caseMarkKey{}] = b.mark
		bin = b.bin
	} else {
		env.Values[caseMarkKey{}] = hygiene.MarkPids()
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return err
		}
	}
	path := ""
	for _, kv := range env.Vars {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	env.Setenv("PATH", bin+string(os.PathListSeparator)+path)
	// A subject's PATH is the system's, after this folder alone of the script's
	// (child.SubjectEnv): a player named by a bare name is found there, and nothing of
	// the grader's.
	env.Setenv(child.SubjectPathVar, bin)
	env.Setenv(MarkerVar, hex.EncodeToString(id))
	env.Setenv("MOCKBIN", bin)
	var names []string
	for _, kv := range env.Vars {
		if name, _, ok := strings.Cut(kv, "="); ok {
			names = append(names, name)
		}
	}
	env.Values[envNames{}] = names
	env.Values[recordStateKey{}] = &recordState{}
	setupBackgrounds(env)
	env.Values[witnessKey{}] = &witnessHolder{}
	return nil
}

// environ rebuilds the script's environment for a program started by a command.
func environ(ts *testscript.TestScript, extra []string) []string {
	names, _ := ts.Value(envNames{}).([]string)
	seen := map[string]bool{}
	var env []string
	for _, n := range append(names, extra...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		env = append(env, n+"="+ts.Getenv(n))
	}
	return env
}

// subjectEnviron is the environment of a program a script starts that is not a judge:
// child.SubjectEnv of the script's (PATH the system's after the case's own bin), with the
// variables the command names (-env). In a box, TMPDIR is the box's private /tmp, which the
// program may write (the script's own temporary folder is in its folder, which the subject
// cannot enter).
func subjectEnviron(ts *testscript.TestScript, extra []string, boxed bool) []string {
	var env []string
	for _, n := range append([]string{child.SubjectPathVar, "TMPDIR"}, append(slices.Clone(child.SubjectVars), extra...)...) {
		if v := ts.Getenv(n); v != "" || slices.Contains(extra, n) {
			env = append(env, n+"="+v)
		}
	}
	tmp := ""
	if boxed {
		tmp = "/tmp"
	}
	return child.SubjectEnv(env, tmp, extra...)
}

// boundedBuffer keeps the first MaxCapture bytes and counts the rest.
type boundedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	dropped int
}

// Write keeps what fits and counts the rest, and always reports the whole write done, so
// the reader goes on draining the pipe and the writer never blocks on it.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := p
	if room := MaxCapture - b.buf.Len(); room < len(p) {
		b.dropped += len(p) - max(room, 0)
		keep = p[:max(room, 0)]
	}
	b.buf.Write(keep)
	return len(p), nil
}

func (b *boundedBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

func (b *boundedBuffer) overflowed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped > 0
}

func (b *boundedBuffer) contains(text string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Contains(b.buf.Bytes(), []byte(text))
}

// statusMatches checks the exit status against the wanted one and its alternatives. A
// match on an alternative is recorded as lenient, described by why when it is not empty.
func statusMatches(ts *testscript.TestScript, want, got, why string) bool {
	alts := strings.Split(want, ",")
	for i, w := range alts {
		if w == "any" || w == got {
			if i > 0 {
				if why == "" {
					why = fmt.Sprintf("exit %s accepted instead of %s", got, alts[0])
				}
				Lenient(ts, why)
			}
			return true
		}
	}
	return false
}

// judgeAlternative is the mock hub's own account of a player that matched one of its
// allowed alternative conversations (mockhub -alt): the first line of its stdout, which
// names the alternative; or "".
func judgeAlternative(judge bool, stdout []byte) string {
	line, _, _ := strings.Cut(string(stdout), "\n")
	if !judge || !strings.HasPrefix(line, mockhub.AltPrefix) {
		return ""
	}
	return "the player matched " + strings.TrimPrefix(line, "ok on ")
}

// Lenient records that a check passed on an allowed alternative.
func Lenient(ts *testscript.TestScript, what string) {
	ts.Logf("%s%s", suite.LenientMark(), what)
	f, err := os.OpenFile(filepath.Join(ts.Getenv("WORK"), LenientFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	ts.Check(err)
	defer f.Close()
	fmt.Fprintln(f, what)
}

// CmpAlt compares stdout, stderr (of the last command) or a file with WANT, or else with one
// of the allowed alternatives; a match on an alternative is recorded as lenient. On a
// mismatch it shows a unified diff against each of them, the main WANT's last (the grader
// reports the last diff of a log).
//
//	cmpalt stderr want.stderr also-ok.stderr
func CmpAlt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		harnessFail(ts, "%s", usage("cmpalt"))
	}
	cmpAlternatives(ts, "cmpalt", nil, args[0], args[1:])
}

// CmpAltEnv is cmpalt with $VAR and ${VAR} in the wanted files replaced by the script's
// variables, as testscript's cmpenv does: for an output that holds a path the case made,
// such as a mock AI's $MOCKBIN/NAME in a Stratego result line.
//
//	cmpaltenv stdout played.stdout refused.stdout
func CmpAltEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		harnessFail(ts, "%s", usage("cmpaltenv"))
	}
	cmpAlternativesIn(ts, "cmpaltenv", nil, args[0], args[1:], func(text string) string { return os.Expand(text, ts.Getenv) })
}

// CmpExcept is cmpalt with the lines matching REGEXP left out of both sides: a case marks
// one requirement, and lines that belong to another (the St Lucia hub's score lines, in a
// case about a player's fault or the hub's arguments) are not part of its verdict. What is
// left must match line for line, so the lines kept still show where the game went. On a
// mismatch the diffs show the compared lines.
//
//	cmpexcept ' scored ' stderr want.stderr
func CmpExcept(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		harnessFail(ts, "%s", usage("cmpexcept"))
	}
	re, err := regexp.Compile(args[0])
	if err != nil {
		harnessFail(ts, "cmpexcept: %v", err)
	}
	cmpAlternatives(ts, "cmpexcept", re, args[1], args[2:])
}

// cmpAlternatives compares name (stdout, stderr or a file) with each of wants in turn,
// without the lines that skip matches (nil: every line compared). A match on any but the
// first is recorded as lenient. On a mismatch it shows a unified diff against each of them,
// the first's last (the grader reports the last diff of a log), and fails.
func cmpAlternatives(ts *testscript.TestScript, cmd string, skip *regexp.Regexp, name string, wants []string) {
	cmpAlternativesIn(ts, cmd, skip, name, wants, func(text string) string { return text })
}

// cmpAlternativesIn is cmpAlternatives with each wanted file's text passed through expand.
// An alternative after the word -prefix is matched by an output that begins with it: an
// allowed conversation that ends with the mock hub's `end` step, after which what the
// player prints is not marked (the main WANT is always compared whole).
func cmpAlternativesIn(ts *testscript.TestScript, cmd string, skip *regexp.Regexp, name string, args []string, expand func(string) string) {
	var wants []string
	prefix := map[int]bool{}
	for i := 0; i < len(args); i++ {
		if args[i] == "-prefix" && len(wants) > 0 && i+1 < len(args) {
			prefix[len(wants)] = true
			i++
		} else if args[i] == "-prefix" {
			harnessFail(ts, "%s: -prefix must come before an alternative, after WANT", cmd)
		}
		wants = append(wants, args[i])
	}
	got := withoutLines(readOutput(ts, name), skip)
	for i, want := range wants {
		text := withoutLines(expand(ts.ReadFile(want)), skip)
		if got == text || prefix[i] && strings.HasPrefix(got, text) {
			if i > 0 {
				Lenient(ts, fmt.Sprintf("%s matched %s instead of %s", name, want, wants[0]))
			}
			return
		}
	}
	// A diff against each alternative, the wanted text's last: a reader (and the grader,
	// which reports the last diff of a log) sees first how it differs from the main one.
	for i := len(wants) - 1; i >= 0; i-- {
		text := withoutLines(expand(ts.ReadFile(wants[i])), skip)
		shown := got
		if prefix[i] {
			shown = firstLines(got, text)
		}
		ts.Logf("%s", diff.Diff(name, []byte(shown), wants[i], []byte(text)))
	}
	if skip != nil {
		ts.Logf("(lines matching %q left out of both sides)", skip.String())
	}
	fail(ts, outcome.Record{Kind: outcome.Mismatch, Output: name}, "%s: %s matches none of %s", cmd, name, strings.Join(wants, ", "))
}

// readOutput is ts.ReadFile for the output a comparison checks: a file the subject was to
// write and did not is a mismatch (its record says so), where a wanted file that is
// missing is the script's error.
func readOutput(ts *testscript.TestScript, name string) string {
	switch name {
	case "stdout", "stderr", "ttyout":
		return ts.ReadFile(name)
	}
	b, err := os.ReadFile(ts.MkAbs(name))
	if err != nil {
		fail(ts, outcome.Record{Kind: outcome.Mismatch, Output: name}, "%v", err)
	}
	return string(b)
}

// withoutLines is text without the lines that skip matches (matched without their '\n');
// text itself when skip is nil.
func withoutLines(text string, skip *regexp.Regexp) string {
	if skip == nil {
		return text
	}
	var b strings.Builder
	for rest := text; rest != ""; {
		line, after, found := strings.Cut(rest, "\n")
		rest = after
		if skip.MatchString(line) {
			continue
		}
		b.WriteString(line)
		if found {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// CmpPrefix checks that stdout, stderr (of the last command) or a file begins with WANT;
// what follows is not checked. A player case whose conversation ends with the mock hub's
// `end` step uses it: the output up to the checked point is marked, what the player prints
// while it ends (an EARLY or shutdown message it was sent only so that the run could finish)
// is not, since the cases about that ending mark it. On a mismatch it shows a unified diff of
// WANT against as many lines of the output.
//
//	cmpprefix stderr want.stderr
func CmpPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		harnessFail(ts, "%s", usage("cmpprefix"))
	}
	got, want := readOutput(ts, args[0]), ts.ReadFile(args[1])
	if strings.HasPrefix(got, want) {
		return
	}
	ts.Logf("%s", diff.Diff(args[0], []byte(firstLines(got, want)), args[1], []byte(want)))
	fail(ts, outcome.Record{Kind: outcome.Mismatch, Output: args[0]}, "cmpprefix: %s does not begin with %s", args[0], args[1])
}

// firstLines is the start of text with as many lines as want has (a last line without '\n'
// counting as one).
func firstLines(text, want string) string {
	n := strings.Count(want, "\n")
	if !strings.HasSuffix(want, "\n") {
		n++
	}
	end := 0
	for ; n > 0 && end < len(text); n-- {
		i := strings.IndexByte(text[end:], '\n')
		if i < 0 {
			return text
		}
		end += i + 1
	}
	return text[:end]
}

// commandName is the base name of a command line's first word.
func commandName(cmdline string) string {
	first, _, _ := strings.Cut(cmdline, " ")
	return filepath.Base(first)
}

func describeSandboxExit(e sandbox.Exit) string {
	if e.Signal != 0 {
		return "signal:" + faults.SignalWord(e.Signal)
	}
	return strconv.Itoa(e.Code)
}

// lookPath finds a program in the script's PATH (not the test's own).
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in the script's PATH", name)
}

// MkPlayer puts a mock player in the script's PATH under NAME: a program that plays
// `mockplayer FLAGS... -- ARGS` with the arguments the hub gives it.
//
//	mkplayer quitter -as 2310A -fault 'after 3 exit 0'
//	run -status 5 2310dealer d1.deck p1.path 2310A quitter
//
// Every mock is witnessed: what the hub starts is only a stand-in, which hands the streams
// the hub gave it to the harness, and the harness runs the mock player on them outside the
// subject's reach, recording the conversation where the subject cannot write
// (WitnessFolder; mockplayer.Stub says how). A relay (-relay PROGRAM) of a program that is
// not itself a witnessed mock's stand-in has its PROGRAM started by the stand-in, where the
// hub runs (as the hub's player, in the subject's box), and relays it from outside.
func MkPlayer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		harnessFail(ts, "%s", usage("mkplayer"))
	}
	var b strings.Builder
	mockCmd := "mockplayer"
	if p := settings(ts).MockPlayer; p != "" {
		mockCmd = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	path := filepath.Join(ts.Getenv("MOCKBIN"), args[0])
	witness, boxed := witnessed(args[1:]), ""
	if prog := relayed(args[1:]); !witness && prog != "" {
		// A relay of a witnessed mock (a reference player a subject's hub is given) starts
		// only its stand-in: it runs witnessed too, its record out of the hub's reach.
		if h, _ := ts.Value(witnessKey{}).(*witnessHolder); h != nil && h.w != nil {
			witness = h.w.standsIn(ts.MkAbs(prog))
		}
		// A relay of anything else (the subject's own player, a case's script) runs
		// witnessed too, its program where the hub runs: the stand-in starts the program
		// there and hands its pipes to the relay, here (mockplayer.WitnessConn.Run).
		if !witness {
			witness, boxed = true, prog
		}
	}
	if witness {
		prog := settings(ts).MockPlayer
		if prog == "" {
			var err error
			if prog, err = lookPath("mockplayer", ts.Getenv("PATH")); err != nil {
				ts.Fatalf("mkplayer: %v", err)
			}
		}
		w := scriptWitness(ts, prog)
		w.add(args[0], ts.MkAbs("."), args[1:], boxed)
		ts.Check(w.writeStandIn(path, mockCmd))
		// The mock, outside the box, appends its records (-record) in the script's folder
		// itself: no file of the subject's folder of that name is ever taken for one.
		if b, ok := ts.Value(caseBoxKey{}).(*caseBox); ok && b != nil {
			for _, rec := range recordsOf(args[1:]) {
				b.reserved[ts.MkAbs(rec)] = true
			}
		}
		return
	}
	b.WriteString("#!/bin/sh\nexec " + mockCmd)
	for _, a := range args[1:] {
		b.WriteString(" '" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	b.WriteString(" -- \"$@\"\n")
	ts.Check(execfile.Write(path, []byte(b.String()), 0o755))
}

// NoProcs fails if any process started by the script is still running, found by the case
// marker in its environment, even when it left its process group. It kills those it finds,
// so a case leaves nothing behind either way. With -allow NAME (repeatable), processes whose
// command name is NAME are killed without failing: for what a mock leaves on purpose, such as
// the grandchild of a mock player's `spawn` fault. `! noprocs` asserts that something is
// still running (and then kills it too).
//
//	run -signal HUP -after-stdout ':: ' -status any 2310dealer d1.deck p1.path 2310A 2310A
//	noprocs
//	noprocs -allow sleep
func NoProcs(ts *testscript.TestScript, neg bool, args []string) {
	allowed := map[string]bool{}
	for len(args) >= 2 && args[0] == "-allow" {
		allowed[args[1]] = true
		args = args[2:]
	}
	if len(args) > 0 {
		harnessFail(ts, "%s", usage("noprocs"))
	}
	if h, _ := ts.Value(witnessKey{}).(*witnessHolder); h != nil && h.w != nil {
		h.w.settle()
	}
	marker := []byte(MarkerVar + "=" + ts.Getenv(MarkerVar) + "\x00")
	mark, _ := ts.Value(caseMarkKey{}).(hygiene.PidMark)
	var left []markedProc
	// Processes that were just killed may take a moment to disappear.
	for try := 0; try < 50; try++ {
		left = nil
		for _, p := range findMarked(marker, mark) {
			if allowed[p.comm] {
				syscall.Kill(p.pid, syscall.SIGKILL)
				reapAdopted(p)
				continue
			}
			left = append(left, p)
		}
		if len(left) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var names []string
	for _, p := range left {
		syscall.Kill(p.pid, syscall.SIGKILL)
		reapAdopted(p)
		names = append(names, fmt.Sprintf("pid %d (%s)", p.pid, p.comm))
	}
	switch {
	case neg && len(left) == 0:
		fail(ts, outcome.Record{Kind: outcome.Left}, "noprocs: no process of this script is running")
	case !neg && len(left) > 0:
		fail(ts, outcome.Record{Kind: outcome.Left}, "noprocs: still running: %s", strings.Join(names, "; "))
	}
}

type markedProc struct {
	pid  int
	comm string
	// adopted: the harness's child (it is a subreaper: sandbox) without a run's token,
	// so one no run started and no waiter of the harness's will reap (the grandchild a
	// mock player's spawn fault leaves in a session of its own, once the mock ended).
	adopted bool
}

// reapAdopted waits for p, just killed, when the harness adopted it (markedProc.adopted):
// else it would stay a zombie of the grader's until the grader ends (a cohort's grader
// could hold many, up to 20 minutes old).
func reapAdopted(p markedProc) {
	if p.adopted {
		syscall.Wait4(p.pid, nil, 0, nil)
	}
}

// caseMarkKey holds the pid mark taken as the script began (hygiene.PidMark).
type caseMarkKey struct{}

// findMarked returns the processes whose environment holds marker (a whole "NAME=VALUE\x00"
// entry), of those started since mark: only their environment is read (every process's,
// when the mark cannot tell). It reads each /proc/PID/environ with one buffer and no copy.
func findMarked(marker []byte, mark hygiene.PidMark) []markedProc {
	names, err := rawfile.Names("/proc")
	if err != nil {
		return nil
	}
	isNew := mark.NewSince() // after the listing, so that it covers every process listed
	var out []markedProc
	self := os.Getpid()
	entry := append([]byte{0}, marker...) // the marker after another entry
	buf := make([]byte, 0, 64<<10)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self || isNew != nil && !isNew(pid) {
			continue
		}
		// A zombie's environment reads empty, so zombies (already dead) are never counted.
		env, err := rawfile.Read("/proc/"+name+"/environ", buf)
		if err != nil {
			continue
		}
		buf = env[:0] // grown, when the environment did not fit
		if !bytes.HasPrefix(env, marker) && !bytes.Contains(env, entry) {
			continue
		}
		comm, _ := rawfile.Read("/proc/"+name+"/comm", nil)
		adopted := false
		if pr, err := hygiene.ReadProc(pid); err == nil && pr.PPid == self {
			token := []byte(sandbox.TokenEnv + "=")
			adopted = !bytes.HasPrefix(env, token) && !bytes.Contains(env, append([]byte{0}, token...))
		}
		out = append(out, markedProc{pid: pid, comm: strings.TrimSpace(string(comm)), adopted: adopted})
	}
	return out
}

// readRecord reads the transcript events of the record file at path.
func readRecord(path string) ([]transcript.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return transcript.ReadJSON(f)
}

// Transcript prints the conversation recorded in transcript files (JSON lines, e.g. written
// by `mockplayer -relay PROG -record FILE`) as one line per message, without times, so that
// a script can compare it with cmp:
//
//	mkplayer a -relay $EAIT -record rec.json
//	run $STLUCIA x.roll 10 a $EAIT
//	transcript -who 'player A' rec.json
//	cmp stdout want-A.txt
//
// Each line is "FROM -> TO | TEXT", TEXT escaped as in transcript text renderings and
// followed by " [no newline]" when the line ended without one. -who keeps the lines sent or
// received by NAME: one party's view, whose order does not depend on timing.
func Transcript(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("transcript", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	who := fs.String("who", "", "keep only the lines from or to this party")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 || neg {
		harnessFail(ts, "%s", usage("transcript"))
	}
	var lists [][]transcript.Event
	for _, name := range fs.Args() {
		events, err := readRecord(ts.MkAbs(name))
		if err != nil {
			// The records are the mock players', written where the subject cannot: one that
			// is missing is a player that never ran (a hub that started another program in
			// its place: player 0's for every player), one that does not read is a mock cut
			// off mid-line or a line too long; either is the subject's doing, unless the
			// witness failed to run a mock it was asked for (a HARNESS-ERROR would leave
			// the case out of the marks).
			if own := witnessFailures(ts); len(own) > 0 {
				harnessFail(ts, "transcript: harness error: %s: %v (the witness: %s)", name, err, strings.Join(own, "; "))
			}
			what := "no conversation was recorded: the player that records it never ran"
			if !errors.Is(err, os.ErrNotExist) {
				what = "the recorded conversation does not read: " + err.Error()
			}
			fail(ts, outcome.Record{Kind: outcome.Diverged, Got: what}, "transcript: %s: %s", name, what)
		}
		lists = append(lists, events)
	}
	setOutput(ts, []byte(transcript.Conversation(transcript.Merge(lists...), *who)), nil)
}
