// Package judgerun runs the judge programs (the mock hub, the mock clients) for the fuzzers
// that use a game's judge as their oracle, as the grader runs them.
package judgerun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/limitkill"
)

// Judges runs the judge programs (the mock hub for a client, the mock clients for a server)
// as the grader does: when the fuzzer is root and the machine has boxes, each judge runs
// as root in a box and starts the program as a leased sandbox user in a folder of its own;
// otherwise both run as the fuzzer's user, and the log says so.
type Judges struct {
	gauntlet, prog string
	dir            string // scratch: conversations (root's), and the program's folder
	lease          *sandbox.Lease
	keep           []string
	// subjKeep, for a judge that is not root (a rootless box), is what the box it starts
	// the program in holds: the program's folders, not the judges' scratch folder.
	subjKeep []string
	// limits are the judge's, which the program inherits (the CPU time from the game's
	// protocol, Campaign.CPU); step is the mock hub's step timeout.
	limits sandbox.Limits
	step   time.Duration
}

// New sets up the judges of prog (an absolute path), run by the gauntlet binary given; log
// gets a note on how the program runs. Close releases what it holds.
func New(gauntlet, prog string, log io.Writer) (*Judges, error) {
	dir, _, err := sandbox.MakeScratch("", "gauntlet-fuzz-judges-")
	if err != nil {
		return nil, err
	}
	// The judges run from an execute-only copy of the binary in the scratch folder: the
	// box keeps that folder, not the binary's own, which the subject could then read
	// (with the suites in it) and whose folder it could list.
	own := filepath.Join(dir, "gauntlet")
	if err := execfile.CopyExecuteOnly(gauntlet, own); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if self, err := os.Executable(); err == nil && self == gauntlet {
		// The copy is this binary: the sandbox starts it as the harness's own
		// (sandbox.SetSelfCopy).
		sandbox.SetSelfCopy(own)
	}
	j := &Judges{gauntlet: own, prog: prog, dir: dir,
		keep: []string{dir, filepath.Dir(prog)}}
	// A program that is a link keeps the folder of the file it names visible too (a link
	// to a build folder, or to the gauntlet binary itself, as a reference is run).
	if target, err := filepath.EvalSymlinks(prog); err == nil && filepath.Dir(target) != filepath.Dir(prog) {
		j.keep = append(j.keep, filepath.Dir(target))
	}
	problem := sandbox.BoxProblem
	if sandbox.Rootless() {
		problem = sandbox.RootlessProblem
	}
	if err := problem(); err != nil {
		fmt.Fprintf(log, "note: the program runs without the grader's box (%v)\n", err)
		return j, nil
	}
	if sandbox.Rootless() {
		// The program has this user: it may only run the judges' copy of the binary
		// (sandbox's rootless.go), and its box holds its own folders and work/ alone.
		work := filepath.Join(dir, "work")
		if err := errors.Join(os.Chmod(own, 0o111), os.Mkdir(work, 0o700)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		j.subjKeep = append(append([]string(nil), j.keep[1:]...), work)
		fmt.Fprintln(log, "note: the program runs as you in a rootless box, as in a grade that is not root")
		return j, nil
	}
	if j.lease, err = sandbox.NewLease(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err == nil {
		err = os.Chown(work, j.lease.UID(), j.lease.GID())
	}
	os.Chmod(dir, 0o711)
	fmt.Fprintf(log, "note: the program runs as sandbox user %d in a box, as in a grade\n", j.lease.UID())
	return j, nil
}

// Close releases the sandbox user and removes the scratch folder.
func (j *Judges) Close() {
	if j.lease != nil {
		j.lease.Release()
	}
	os.RemoveAll(j.dir)
}

// run runs `gauntlet exec JUDGE ARGS...` and returns its stdout, stderr and exit status.
func (j *Judges) run(judge string, args ...string) (stdout, stderr string, code int, err error) {
	args = append([]string{"exec", judge}, args...)
	spec := child.Spec{Path: j.gauntlet, Args: args, Dir: j.dir}
	// The judge runs with the limits, which the program it starts inherits: a limit
	// that ends the program is then said in the judge's report (limitkill), as in a grade.
	cfg := sandbox.Config{Limits: j.limits, Identity: sandbox.Identity{Same: true}}
	env := os.Environ()
	if j.subjKeep != nil {
		// Rootless: the judge starts the program in a box of its own (mockhub.Subject).
		work := filepath.Join(j.dir, "work")
		subj, err := json.Marshal(mockhub.Subject{Dir: work, Keep: j.subjKeep})
		if err != nil {
			return "", "", 0, err
		}
		env = sandbox.ProgramEnv(mockhub.SubjectEnv + "=" + string(subj))
		cfg.Box = &sandbox.Box{Keep: j.keep, Writable: []string{work}, Nested: true}
	} else if j.lease != nil {
		// The judge hands this environment on to the program, less mockhub.SubjectEnv's
		// entry, which says as whom the program runs.
		env = sandbox.ProgramEnv(fmt.Sprintf("%s=%d:%d:%s", mockhub.SubjectEnv, j.lease.UID(), j.lease.GID(), filepath.Join(j.dir, "work")))
		cfg.Box = &sandbox.Box{Keep: j.keep}
	}
	spec.Build = func(path string, args []string) *exec.Cmd {
		return sandbox.Command(cfg, env, path, args...)
	}
	cmd := child.Command(spec)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = child.Run(cmd)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// Conversation plays conversation conv (the mock hub's format) against the program; it
// returns the mock hub's report line and the program's stderr.
func (j *Judges) Conversation(conv string) (report, stderr string, err error) {
	file := filepath.Join(j.dir, "conv")
	if err := os.WriteFile(file, []byte(conv), 0o600); err != nil {
		return "", "", err
	}
	out, errText, code, err := j.run("mockhub", "-timeout", j.step.String(), file, j.prog)
	if err != nil || code == 2 {
		return "", "", fmt.Errorf("the mock hub failed: %v %s", err, errText)
	}
	return strings.SplitN(out, "\n", 2)[0], errText, nil
}

// Judge runs the judge program named (a mock program of the binary, such as a game's mock
// clients) with args, the program under test put after their "--" (as a judge's command
// line takes it: its flags, "--", the program, the program's arguments), and returns the
// judge's first line of output, its stderr and its exit status. An error is the harness's:
// the judge could not run.
func (j *Judges) Judge(program string, args ...string) (report, stderr string, code int, err error) {
	for i, a := range args {
		if a == "--" {
			args = append(append(append([]string(nil), args[:i+1]...), j.prog), args[i+1:]...)
			break
		}
	}
	out, errText, code, err := j.run(program, args...)
	if err != nil {
		return "", "", 0, err
	}
	return strings.SplitN(out, "\n", 2)[0], errText, code, nil
}

// Signature keeps one finding per kind of failure: the report without its numbers and
// quoted text.
func Signature(detail string) string {
	var b strings.Builder
	inQuote := false
	for _, c := range detail {
		switch {
		case c == '"':
			inQuote = !inQuote
		case inQuote, c >= '0' && c <= '9':
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// Campaign is a run of cases: the program, the seed, when to stop, where findings go.
type Campaign struct {
	Program string
	Seed    uint64
	Runs    int           // cases to run (0: until Time)
	Time    time.Duration // (0: until Runs)
	Out     string        // where each finding is written as a suite case
	Log     io.Writer     // a line per finding and a summary
	// Gauntlet is a gauntlet binary, which runs the judges as processes of their own;
	// default: this program.
	Gauntlet string
	// CPU is the CPU time the program may use in one case, from the game's protocol
	// (Stratego: programs.StrategoCPU); default: the sandbox's, 10 s.
	CPU time.Duration
	// StepTimeout is how long the mock hub waits for each line the program owes (default
	// 2s, every judged game's; the regression cases say 2s whatever it is).
	StepTimeout time.Duration
	// Replay, when set, is the command line that runs a finding's suite case against the
	// program, printed under the finding (the CLI's gauntlet run).
	Replay func(file string) string
}

// Finding is a case the program failed.
type Finding struct {
	File   string // the suite case written
	Detail string // what went wrong
	// Limit is the resource limit that ended the program (LIMIT: not a rule of the game
	// broken), else limitkill.None.
	Limit limitkill.Limit
}

// Case runs case number n, drawing from r: it returns the suite case's file name (without
// .txtar) and text, and what went wrong ("" when the program passed). Its error is the
// harness's own.
type Case func(r *rand.Rand, j *Judges, n int) (name, text, detail string, err error)

// Run runs the campaign's cases (stream names the random stream, so that two fuzzers with
// the same seed draw differently) and writes each kind of failure once.
func (c Campaign) Run(stream uint64, run Case) ([]Finding, error) {
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return nil, err
	}
	if c.Gauntlet == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		c.Gauntlet = self
	}
	prog, err := filepath.Abs(c.Program)
	if err != nil {
		return nil, err
	}
	j, err := New(c.Gauntlet, prog, c.Log)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	j.limits.CPU, j.step = c.CPU, c.StepTimeout
	if j.step <= 0 {
		j.step = 2 * time.Second
	}
	r := rand.New(rand.NewPCG(c.Seed, stream))
	start := time.Now()
	var found []Finding
	seen := map[string]bool{}
	n := 0
	for ; (c.Runs == 0 || n < c.Runs) && (c.Time == 0 || time.Since(start) < c.Time); n++ {
		name, text, detail, err := run(r, j, n)
		if err != nil {
			return found, err
		}
		if detail == "" || seen[Signature(detail)] {
			continue
		}
		seen[Signature(detail)] = true
		limit := limitkill.InReport(detail)
		if limit != limitkill.None {
			if first, _, _ := strings.Cut(text, "\n"); !strings.Contains(first, "a LIMIT") {
				text = LimitHeader(text, limit)
			}
			detail = "LIMIT (" + limit.Words() + "): " + detail
		}
		file := filepath.Join(c.Out, name+".txtar")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return found, err
		}
		found = append(found, Finding{File: file, Detail: detail, Limit: limit})
		fmt.Fprintf(c.Log, "finding %d: %s\n  %s\n", len(found), file, detail)
		if c.Replay != nil {
			fmt.Fprintf(c.Log, "  replay: %s\n", c.Replay(file))
		}
	}
	fmt.Fprintf(c.Log, "%d cases in %v, %d findings (seed %d)\n", n, time.Since(start).Round(time.Millisecond), len(found), c.Seed)
	return found, nil
}

// LimitHeader rewrites the first line of a finding's case, which says what the program
// did wrong ("broke a rule of the game"), for a finding where a resource limit ended the
// program instead: it broke no rule, and a grade calls it LIMIT.
func LimitHeader(text string, l limitkill.Limit) string {
	first, rest, _ := strings.Cut(text, "\n")
	what := strings.TrimPrefix(first, "# Found by gauntlet fuzz: ")
	return fmt.Sprintf("# Found by gauntlet fuzz: the program was ended by %s (a LIMIT, not a broken rule of the game), in this case: %s\n%s", l.Words(), what, rest)
}
