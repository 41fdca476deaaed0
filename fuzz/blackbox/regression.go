package blackbox

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"gauntlet/fuzz/record"
	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/harness/grading/suite"
	"gauntlet/harness/judges/faults"
)

// regression writes a minimised case as a conformance case of the game's suite
// (docs/suites.md): it asserts the reference's behaviour, so it passes on the reference and
// fails on the program that differed from it.
func (f *fuzzer) regression(c shrinker, subj Subject, ref *record.Result, sig Signature, run int, fd Finding) ([]byte, error) {
	if ref.Exit.Hung {
		return nil, fmt.Errorf("the reference did not end on the minimised case")
	}
	section, category := f.g.Category(f.opt.Role, subj.Ref, caseKind(c))
	var b strings.Builder
	what := "answers"
	if f.opt.Role == RoleHub {
		what = "runs"
	}
	fmt.Fprintf(&b, "# %s %s this fuzzer-found input exactly as the reference does: same exit, stdout and stderr.\n", subj.Ref, what)
	fmt.Fprintf(&b, "# section: %s\n# category: %s\n", section, category)
	fmt.Fprintf(&b, "# Found by: gauntlet fuzz %s -role %s -seed %d (run %d); minimised from %d to %d %s.\n",
		f.g.Name(), f.opt.Role, f.opt.Seed, run, fd.Steps[0], fd.Steps[1], f.unit())
	for _, n := range caseNotes(c) {
		fmt.Fprintf(&b, "# Before minimising: %s\n", oneLine(n))
	}
	fmt.Fprintf(&b, "# The reference: %s. The program that failed: %s.\n", ref.Exit, oneLine(sig.String()))
	header := b.String()
	b.Reset()
	var pre strings.Builder // unquote commands, which must come first
	arch := &txtar.Archive{}
	var files []txtar.File
	addFile := func(name string, data []byte) error {
		if txtar.NeedsQuote(data) || (len(data) > 0 && data[len(data)-1] != '\n') {
			q, err := txtar.Quote(data)
			if err != nil {
				return fmt.Errorf("%s cannot be stored in a script: %v", name, err)
			}
			fmt.Fprintf(&pre, "unquote %s\n", name)
			data = q
		}
		files = append(files, txtar.File{Name: name, Data: data})
		return nil
	}
	outputs := func(stdout, stderr []byte, checkStdout bool) error {
		if checkStdout {
			if len(stdout) == 0 {
				b.WriteString("! stdout .\n")
			} else {
				b.WriteString("cmp stdout want.stdout\n")
			}
		}
		if len(stderr) == 0 {
			b.WriteString("! stderr .\n")
		} else {
			b.WriteString("cmp stderr want.stderr\n")
		}
		b.WriteString("noprocs\n")
		if checkStdout && len(stdout) > 0 {
			if err := addFile("want.stdout", stdout); err != nil {
				return err
			}
		}
		if len(stderr) > 0 {
			return addFile("want.stderr", stderr)
		}
		return nil
	}
	switch c := c.(type) {
	case *PlayerCase:
		conv, err := c.Conversation(f.g.Hello(), ref)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "run -status 0 mockhub conv $%s\n", scriptVar(f.g, f.opt.Vars, subj.Ref))
		b.WriteString("stdout '^ok: '\n")
		files = append(files, txtar.File{Name: "conv", Data: []byte(conv.Format())})
		if err := outputs(nil, ref.Stderr, false); err != nil {
			return nil, err
		}
	case *HubCase:
		for i := range c.Setup.Players {
			fmt.Fprintf(&b, "mkplayer %s", seatName(i))
			for _, fl := range c.mockFlags(i) {
				b.WriteString(" " + scriptQuote(fl))
			}
			b.WriteString("\n")
		}
		for _, name := range c.Setup.FileNames() {
			if err := addFile(name, []byte(c.Setup.Files[name])); err != nil {
				return nil, err
			}
		}
		status := fmt.Sprint(ref.Exit.Code)
		if ref.Exit.Signal != 0 {
			status = "signal:" + faults.SignalWord(ref.Exit.Signal)
		}
		fmt.Fprintf(&b, "run -status %s $%s", status, scriptVar(f.g, f.opt.Vars, subj.Ref))
		for _, a := range c.Setup.Args {
			b.WriteString(" " + scriptQuote(a))
		}
		for i := range c.Setup.Players {
			// The seat's wrapper as a path, as the suite's cases give it (HubCase.args).
			b.WriteString(" $MOCKBIN/" + seatName(i))
		}
		b.WriteString("\n")
		if err := outputs(ref.Stdout, ref.Stderr, true); err != nil {
			return nil, err
		}
	}
	arch.Comment = []byte(header + pre.String() + b.String())
	arch.Files = files
	return txtar.Format(arch), nil
}

func caseKind(c shrinker) string {
	switch c := c.(type) {
	case *PlayerCase:
		return c.Kind
	case *HubCase:
		return c.Kind
	}
	return ""
}

func caseNotes(c shrinker) []string {
	switch c := c.(type) {
	case *PlayerCase:
		return c.Notes
	case *HubCase:
		return c.Notes
	}
	return nil
}

// oneLine makes s safe for a comment line.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=+,@%-]+$`)

// scriptQuote quotes an argument for a testscript command line: single quotes, a quote
// inside doubled; plain words as they are.
func scriptQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ScriptBox is how Verify runs a regression file's programs: as the campaign ran its cases
// (fuzzer.box). A nil *ScriptBox runs them as the fuzzer's own user without a box, as an
// unboxed campaign does (a fuzzer that is not root, or a machine without boxes).
type ScriptBox struct {
	Scratch string   // the folder the script's folders go in, which sandbox users may search
	Keep    []string // the folders every box keeps visible (see sandbox.Box.Keep)
	// Published are the paths the sandbox user runs programs by (Options.Published): the
	// references the judge starts, and the mock player of mkplayer's wrappers.
	Published map[string]string
}

// Verify runs a regression file through the suite runner twice: with every program the
// reference, where it must pass, and with the subject in place of its reference, where it
// must fail. It returns "" when both hold, else what went wrong. With box, the subject runs
// as a sandbox user in a case box, as in a grade (scriptcmds.Settings.SandboxUser): never as the
// fuzzer's user when the campaign itself boxed it. vars names the programs' suite
// variables (Options.Vars).
func Verify(g Game, vars func(program string) (string, bool), refDir, file string, subj Subject, box *ScriptBox) string {
	if res := runScript(g, vars, refDir, file, Subject{}, box); !res.Passed {
		return "fails on the reference: " + lastLines(res.Log, 3)
	}
	if res := runScript(g, vars, refDir, file, subj, box); res.Passed {
		return "passes on " + subj.Path
	}
	return ""
}

// runScript runs one script with the game's programs set to the references, except
// subj.Ref, which is set to subj.Path when that is given; in box when that is given.
func runScript(g Game, vars func(program string) (string, bool), refDir, file string, subj Subject, box *ScriptBox) suite.Result {
	parent := ""
	if box != nil {
		parent = box.Scratch
	}
	work, err := os.MkdirTemp(parent, "verify-")
	if err != nil {
		return suite.Result{Log: err.Error()}
	}
	defer os.RemoveAll(work)
	if box != nil {
		// The sandbox user is handed the script's folder, inside this one (as a grade's
		// case folder).
		if err := os.Chmod(work, 0o711); err != nil {
			return suite.Result{Log: err.Error()}
		}
	}
	res := suite.Run(testscript.Params{
		Files:               []string{file},
		WorkdirRoot:         work,
		RequireExplicitExec: true,
		Cmds:                scriptcmds.Commands(),
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", refDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			for _, p := range append([]string{g.Hub()}, g.Players()...) {
				prog := p
				if p == subj.Ref && subj.Path != "" {
					prog = subj.Path
				} else if box != nil && box.Published[p] != "" {
					prog = box.Published[p]
				}
				env.Setenv(scriptVar(g, vars, p), prog)
			}
			var set scriptcmds.Settings
			if box != nil {
				set = scriptcmds.Settings{SandboxUser: true, BoxKeep: box.Keep, MockPlayer: box.Published["mockplayer"]}
			}
			return set.Setup(env)
		},
	})
	if len(res) != 1 {
		return suite.Result{Log: fmt.Sprintf("%d results", len(res))}
	}
	return res[0]
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
