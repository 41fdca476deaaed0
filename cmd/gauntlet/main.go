// Command gauntlet is the conformance harness's one CLI. It is also every reference and mock
// program: called through a link named after one of them (2310dealer, EAIT, mockplayer...),
// it runs as that program, so `go install ./cmd/gauntlet` is all a machine needs.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"gauntlet/harness/box/sandbox"
	"gauntlet/programs"
)

const usageFormat = `usage: gauntlet COMMAND [ARGS]

Commands:
  grade GAME [flags] [DIR...]
                      grade a submission (or, with no DIR, the built-in reference)
  merge [-csv F] [-html F] [-json F] [-junit F] DIR...
                      a cohort's reports from the JSON reports of its shards
                      (grade -shard K/N -out DIR) or cohort runs
  run CASE.txtar [DIR] [grade flags]
                      run one case file (the suite's, your own, a fuzzer's regression file)
                      as the grader does, with its whole log
  play GAME [-example NAME] [-- HUB-ARGS...]
                      run a complete reference game and show what the hub prints
  fuzz GAME -role hub|player [flags] PROGRAM...
                      fuzz a program against the reference (see 'gauntlet fuzz -help')
  tournament GAME [flags] PROGRAM PROGRAM...
                      a round robin between programs, with a table of points and Elo
                      (the games: 'gauntlet tournament -help')
  adequacy GAME [-suite DIR]
                      run a suite against the game's mutant library: the kill matrix,
                      the survivors and the largest blast radius (from the source folder)
  exec PROGRAM [ARGS...]
                      run as one of the reference or mock programs
  programs            list the programs gauntlet can run as
  version             the module version and the source revision of this binary
  completion bash|zsh|fish
                      a script that makes the shell complete commands, games and flags
  help [COMMAND]      show this text, or a command's (an unknown COMMAND: exit 2)

Games and their programs:
%s

Exit status: grade and merge: 0 when nothing failed, 1 when something did; fuzz: 0 when nothing
failed, 10 + N when N rules of the spec were broken (1 for a game judged live, which
names the rule in its report); all three: 2 on a usage or harness error
(see their -help); play and exec: that of the program run; any command: 2 on a usage
error. -help exits 0.
`

// usage is the top-level help, with each game and its programs from the programs table
// (built when asked for, not each time the binary starts as a reference program).
func usage() string {
	var games []string
	for _, g := range programs.GradeGames() {
		var names []string
		for _, p := range programs.Game(g) {
			names = append(names, p.Name)
		}
		games = append(games, fmt.Sprintf("  %-11s %s\n", g, strings.Join(names, ", ")))
	}
	return fmt.Sprintf(usageFormat, strings.TrimSuffix(strings.Join(games, ""), "\n"))
}

func main() {
	// Called through a link named after a program: be that program.
	if p, ok := programs.Called(); ok {
		os.Exit(p.Main())
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// wantsHelp says whether args ask for help: -h, -help or --help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

func run(args []string, stdout, stderr io.Writer) int {
	// The case users' cgroups and networks, kept for the next case, go when the command
	// ends, also after an interrupt (a grader killed outright leaves its groups to the
	// next one: cgroup.RemoveStale).
	defer sandbox.CaseUsers.Close()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			switch args[1] {
			case "grade", "merge", "play", "fuzz", "tournament", "adequacy", "completion", "run":
				return run([]string{args[1], "-help"}, stdout, stderr)
			}
			if len(args) > 2 || !slices.Contains(commands, args[1]) {
				// As go help: an unknown topic is a usage error, not the general help.
				fmt.Fprintf(stderr, "gauntlet help %s: unknown help topic%s; run 'gauntlet help' for the commands\n",
					strings.Join(args[1:], " "), didYouMean(args[1], commands))
				return 2
			}
		}
		fmt.Fprint(stdout, usage())
		return 0
	case "version":
		fmt.Fprintln(stdout, version())
		return 0
	case "programs":
		for _, p := range programs.All() {
			fmt.Fprintln(stdout, p.Describe())
		}
		return 0
	case "exec":
		if len(args) < 2 {
			fmt.Fprint(stderr, "gauntlet exec: name a program (see 'gauntlet programs')\n")
			return 2
		}
		p, ok := programs.Lookup(args[1])
		if !ok {
			var names []string
			for _, p := range programs.All() {
				names = append(names, p.Name)
			}
			fmt.Fprintf(stderr, "gauntlet exec: no program named %q%s (see 'gauntlet programs')\n", args[1], didYouMean(args[1], names))
			return 2
		}
		os.Args = append([]string{args[1]}, args[2:]...)
		return p.Main()
	case "play":
		return play(args[1:], stdout, stderr)
	case "grade":
		return gradeCmd(args[1:], stdout, stderr)
	case "merge":
		return mergeCmd(args[1:], stdout, stderr)
	case "fuzz":
		return fuzzCmd(args[1:], stdout, stderr)
	case "tournament":
		return tournamentCmd(args[1:], stdout, stderr)
	case "adequacy":
		return adequacyCmd(args[1:], stdout, stderr)
	case "completion":
		return completionCmd(args[1:], stdout, stderr)
	case "run":
		return runCaseCmd(args[1:], stdout, stderr)
	case "__complete":
		return complete(args[1:], stdout)
	}
	fmt.Fprintf(stderr, "gauntlet: unknown command %q%s\n%s", args[0], didYouMean(args[0], commands), usage())
	return 2
}

// version says which gauntlet this is: the module's version and the VCS revision it was
// built from, as the Go toolchain recorded them. A binary built without that stamp (go run
// never stamps one, nor go build -buildvcs=false) that runs from a gauntlet source tree
// reads the revision of that checkout with git, and says so.
func version() string {
	info, ok := debug.ReadBuildInfo()
	wd, _ := os.Getwd()
	return versionOf(info, ok, wd)
}

func versionOf(info *debug.BuildInfo, ok bool, wd string) string {
	if !ok {
		return "gauntlet (no build information)"
	}
	v := "gauntlet " + info.Main.Version
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		v += " revision " + rev
		if modified {
			v += " (modified)"
		}
		return v + " " + info.GoVersion
	}
	root := sourceRoot(wd)
	if root == "" {
		return v + " " + info.GoVersion + " (no revision stamped in this binary, as with go run: run it from the source folder to read the checkout's, or see git log there)"
	}
	rev, modified, err := checkoutRevision(root)
	if err != nil {
		return v + " " + info.GoVersion + fmt.Sprintf(" (no revision stamped in this binary, as with go run, and none read from %s: %v)", root, err)
	}
	v += " revision " + rev
	if modified {
		v += " (modified)"
	}
	return v + " " + info.GoVersion + " (revision read at run time from the checkout " + root + ": the binary has none stamped, as with go run)"
}

// sourceRoot is the gauntlet module's folder that holds dir (dir or a parent of it with
// the go.mod of module gauntlet), or "".
func sourceRoot(dir string) string {
	for dir != "" {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
					if f[1] == "gauntlet" {
						return dir
					}
					return ""
				}
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// checkoutRevision is the commit checked out in root and whether the tree differs from it
// (as the Go toolchain's vcs.modified: any change, untracked files included).
func checkoutRevision(root string) (string, bool, error) {
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false, fmt.Errorf("git rev-parse HEAD: %v", err)
	}
	status, err := exec.Command("git", "-C", root, "status", "--porcelain").Output()
	if err != nil {
		return "", false, fmt.Errorf("git status: %v", err)
	}
	return strings.TrimSpace(string(out)), len(bytes.TrimSpace(status)) > 0, nil
}
