package grade

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/games/contract"
	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/harness/grading/suite"
	"gauntlet/harness/judges/outcome"
)

// Program is one program a suite names through a variable.
type Program struct {
	Var  string // the script variable, e.g. "DEALER"
	Name string // the spec's name, e.g. "2310dealer"
	// Role is the part the program plays in the protocol: "hub" and "players", "server" and
	// "client", "manager" and "ai", "referee" and "player". A case that runs programs of
	// more than one role is run in pairings (Pairings): the subject's programs of some roles
	// with the reference's of the others. Programs of one role are always on the same side.
	Role string
	// Mock, for a reference player that the mock player can play in process (-as NAME),
	// are the mock player's flags to play it as the reference program does. In the pairing
	// of the subject's hub with the reference players (TheirHub), the hub is handed the
	// player so, witnessed (scriptcmds.WitnessedProgram), and the report of a failure shows
	// what the hub sent it and what it answered. Empty: the reference program itself.
	Mock []string
}

// Game is what the grader needs to know about one game.
type Game struct {
	Name       string
	Programs   []Program
	Categories []contract.Category
	Timeout    time.Duration // default deadline of each program run in a case
	// CPU is the CPU time each process of a case may use when the grader's Limits leave
	// it unset (zero: the sandbox's default, 10 s): a game whose protocol lets a program
	// think for long (Stratego: 2 s a move for up to 500 moves) says so here.
	CPU time.Duration
	// ProgramsOptional lets a submission build some of the game's programs only (Stratego:
	// an AI, a manager, or both): the cases that would run a program it did not build are
	// not run, and the categories of that program are out of its marks (Unclaimed). A
	// submission that built none of them still fails every case as BUILD-FAIL.
	ProgramsOptional bool
}

// Unclaimed is the set of the game's programs that a subject with programs (spec name ->
// path, "" or absent when not built) did not build and, the game's programs being
// optional, is not graded on: nil unless ProgramsOptional and it built at least one.
func (g Game) Unclaimed(programs map[string]string) map[string]bool {
	if !g.ProgramsOptional {
		return nil
	}
	out := map[string]bool{}
	for _, p := range g.Programs {
		if programs[p.Name] == "" {
			out[p.Name] = true
		}
	}
	if len(out) == len(g.Programs) {
		return nil
	}
	return out
}

// runsAny reports whether case c in pairing p runs one of the subject's programs in set.
func (g Game) runsAny(c Case, p Pairing, set map[string]bool) bool {
	for _, v := range c.Vars {
		if g.theirsIn(v, p) && set[g.program(v).Name] {
			return true
		}
	}
	return false
}

// CaseRuns is how many case runs Run makes of cases for subj: one per pairing, without
// those of the programs it need not have built (Unclaimed).
func (g Game) CaseRuns(cases []Case, subj Subject) int {
	unclaimed := g.Unclaimed(subj.Programs)
	n := 0
	for _, c := range cases {
		for _, p := range g.Pairings(c) {
			if !g.runsAny(c, p, unclaimed) {
				n++
			}
		}
	}
	return n
}

// ProgramVars is the set of the game's program variables.
func (g Game) ProgramVars() map[string]bool {
	m := map[string]bool{}
	for _, p := range g.Programs {
		m[p.Var] = true
	}
	return m
}

// VarOf is the suite variable that stands for the program named name ("2310A" ->
// "PLAYER_A"), and whether the game has that program.
func (g Game) VarOf(name string) (string, bool) {
	for _, p := range g.Programs {
		if p.Name == name {
			return p.Var, true
		}
	}
	return "", false
}

func (g Game) program(v string) Program {
	for _, p := range g.Programs {
		if p.Var == v {
			return p
		}
	}
	return Program{}
}

func (g Game) category(name string) (contract.Category, bool) {
	for _, c := range g.Categories {
		if c.Name == name {
			return c, true
		}
	}
	return contract.Category{}, false
}

// Pairing says which of a case's programs are the subject's; the rest are the reference's.
// It is Theirs for a case whose programs all play one role, and otherwise one part per role
// of the case, in the game's order of roles, joined by "+": "their-ROLE" or "ref-ROLE"
// ("their-hub+ref-players").
type Pairing string

// Theirs is the one pairing of a case whose programs all play one role: every program of
// the case is the subject's.
const Theirs Pairing = "theirs"

// The pairings of a case that runs a hub with players (the roles "hub" and "players"):
// their hub with the reference players, the reference hub with their players, theirs with
// theirs.
const (
	TheirHub      Pairing = "their-hub+ref-players"
	TheirPlayers  Pairing = "ref-hub+their-players"
	TheirHubTheir Pairing = "their-hub+their-players"
)

// roles lists the roles of the programs case c names, in the game's order of programs.
func (g Game) roles(c Case) []string {
	used := map[string]bool{}
	for _, v := range c.Vars {
		used[g.program(v).Role] = true
	}
	var roles []string
	for _, p := range g.Programs {
		if used[p.Role] && !slices.Contains(roles, p.Role) {
			roles = append(roles, p.Role)
		}
	}
	return roles
}

// pairing names the pairing of roles in which the roles in theirs are the subject's.
func pairing(roles []string, theirs map[string]bool) Pairing {
	parts := make([]string, len(roles))
	for i, r := range roles {
		side := "ref-"
		if theirs[r] {
			side = "their-"
		}
		parts[i] = side + r
	}
	return Pairing(strings.Join(parts, "+"))
}

// Pairings lists the pairings a case runs in, the counted one (the one whose result earns
// the marks of the case's category) first. A case whose programs play one role runs once
// (Theirs). Otherwise every choice of the subject's roles is a pairing, which together tell
// whose program is wrong: first the category's role alone (the counted one: the role of the
// category's program, or the category's program when it names a role; the case's first role
// when it names neither), then each other role alone, then larger choices, ending with every
// role the subject's. For a hub and players that is TheirHub, TheirPlayers, TheirHubTheir
// when the category is the hub's, and TheirPlayers, TheirHub, TheirHubTheir otherwise.
func (g Game) Pairings(c Case) []Pairing {
	roles := g.roles(c)
	if len(roles) < 2 {
		return []Pairing{Theirs}
	}
	cat, _ := g.category(c.Category)
	counted := roles[0]
	for _, p := range g.Programs {
		if p.Name == cat.Program || p.Role == cat.Program {
			if slices.Contains(roles, p.Role) {
				counted = p.Role
			}
			break
		}
	}
	others := slices.DeleteFunc(slices.Clone(roles), func(r string) bool { return r == counted })
	// Subsets of the roles by size, the counted role leading among those of one role.
	var out []Pairing
	order := append([]string{counted}, others...)
	n := len(order)
	for size := 1; size <= n; size++ {
		for mask := 1; mask < 1<<n; mask++ {
			if bits.OnesCount(uint(mask)) != size {
				continue
			}
			theirs := map[string]bool{}
			for i, r := range order {
				if mask&(1<<i) != 0 {
					theirs[r] = true
				}
			}
			out = append(out, pairing(roles, theirs))
		}
	}
	return out
}

// theirsIn reports whether variable v names the subject's program in pairing p.
func (g Game) theirsIn(v string, p Pairing) bool {
	if p == Theirs {
		return true
	}
	return slices.Contains(strings.Split(string(p), "+"), "their-"+g.program(v).Role)
}

// Subject is what is being graded.
type Subject struct {
	Name     string            // for reports, e.g. the submission's folder name
	Programs map[string]string // spec name -> path of the subject's program
	Notes    []string          // what the grader noticed while preparing it, for the report's notes
}

// Options tune a grading run.
type Options struct {
	Jobs    int            // cases run at once (default 2)
	Run     *regexp.Regexp // only the cases whose ID matches (nil: all)
	Timeout time.Duration  // default deadline of each program run (default: the game's)
	BinDir  string         // a folder holding the reference and mock programs by their names
	// Published maps a program's name to the path a subject is handed it by (a reference
	// player its hub starts) and sandbox users run it by, when it is not BinDir/NAME: the
	// grader's BinDir is its own, and each published program is a file named after it
	// alone in a folder of its own, so that a subject can run the programs it is handed
	// and no other (see cmd/gauntlet's programLinks). They must lie under Scratch, which
	// every box keeps.
	Published map[string]string
	Limits    sandbox.Limits // resource limits of every program run (zero fields: the defaults; CPU: the game's, else the default)
	Scratch   string         // where cases' working folders go (default: the system's temp)
	// SandboxUsers grades an untrusted subject: every case runs in boxes (sandbox.Box), the
	// subject's programs as a sandbox user leased for the case, in a folder holding only its
	// inputs, the judges (mock hub) as the grader, and the expected outputs, scripts and
	// conversations in a folder only the grader can open (see scriptcmds.Settings.SandboxUser).
	// The grader must be root and the machine must allow the box (BoxProblem): where it
	// does not, every case is a HARNESS-ERROR saying why, unless Unsafe is set. The subject
	// never runs as root. Scratch and the folders above it, BinDir and the subject's
	// programs must be reachable by others (the grader's scratch space and the published
	// programs of a boxed build are).
	SandboxUsers bool
	// NoBox, with SandboxUsers, grades at the level below the box, where the machine refuses
	// namespaces but the grader is root (an unprivileged container): the subject's programs
	// still run as the case's sandbox user with their limits, the expected outputs in a folder
	// only the grader can open, but without the box's root, private /tmp, network or cgroup
	// totals (scriptcmds.Settings.NoBox; UsersProblem).
	NoBox bool
	// Unsafe grades without the box where the machine cannot give it: the subject runs as
	// the grader's own user and could read the expected outputs. For a student checking
	// their own work, never for marks.
	Unsafe bool
	// Stop, when closed, makes Run start no more case runs: it waits for the running ones
	// and returns the outcomes it has (fewer than asked; see Run).
	Stop <-chan struct{}
	// Slots, when set, are busy slots this grade shares with others (a cohort's: see
	// Slots), taken with priority Priority; Jobs then only sizes the grade's own slots of
	// the cases that wait. Nil: -j slots of the grade's own.
	Slots    *Slots
	Priority int
	// Cap, when positive, is the wall time the grade may take (staff's -submission-timeout):
	// once it has passed, no more case runs start, and each case run not started is a
	// TIMEOUT saying so (NotRunDetail); the running ones end as they would. A backstop, in
	// wall time, beside each program's limits in CPU time.
	Cap time.Duration
	// OnOutcome, when set, is called with each case run's outcome as soon as it is known
	// (from the goroutine that ran it; calls may come at once), for streaming and progress.
	OnOutcome func(Outcome)
	// OnAlone, when set, is called with each outcome of a case run again alone
	// (Rerun), which replaces the one OnOutcome was given for that case run.
	OnAlone func(Outcome)
	// Keep, when set, is a folder where each failed case run is kept after it ends, with a
	// script that runs it again (keepCase); Rerun is that script's command line up to the
	// case ("gauntlet grade GAME [DIR]" with the grader's own flags).
	Keep  string
	Rerun []string
	// activity is what the case's programs are doing (set per case by Run, for
	// moveWhenQuiet; nil: not watched).
	activity *scriptcmds.Activity
	// owner names the submission Run grades, for its cases' sandbox users (set by Run:
	// scriptcmds.Settings.Owner), which no other Run's cases are lent.
	owner string
}

// Outcome is the result of one case in one pairing.
type Outcome struct {
	Case    *Case
	Pairing Pairing
	Counted bool // this pairing earns the case's marks
	Verdict Verdict
	Detail  string   // one line saying what went wrong (empty on PASS)
	Lenient []string // what passed on an allowed alternative
	// Divergence is what the subject did up to its first divergence from what was
	// expected, that point marked (see Divergence); empty when the log does not show it.
	Divergence string
	// Conversation is, for a case whose hub is under test, what the hub sent each mock
	// player and what each answered, from the records the harness keeps out of the
	// subject's reach (see MockConversation); empty when there is none.
	Conversation string
	Log          string // the full script log: commands, outputs, the failure
	Duration     time.Duration
	// Alone says how a case run was run again alone (Rerun): a verdict that depends on wall
	// time (TIMEOUT, HYGIENE), "confirmed alone" or what the case did beside other cases
	// before it passed alone; a HARNESS-ERROR, what came of it alone. Empty when not re-run.
	Alone string
	// Cleanup says why the case's folder could not be removed once the case had ended (the
	// subject's files are then left on the grader's disk, which the report's notes say),
	// or is empty.
	Cleanup string
	// waited: the case's programs waited (on input that never came) rather than worked, so
	// that a TIMEOUT would only be repeated alone (see waited).
	waited bool
	// final: a HARNESS-ERROR that running the case again cannot change (the machine gives
	// no box for the subject).
	final bool
	// untimed: a HYGIENE that does not depend on the machine's load (an output held open,
	// outcome.Held), which Rerun does not run again.
	untimed bool
}

// removeCaseDir removes a case's folder, whatever modes its subject left on what it wrote
// (sandbox.RemoveTree), and says what kept anything from going, or "".
func removeCaseDir(dir string) string {
	if err := sandbox.RemoveTree(dir); err != nil {
		return err.Error()
	}
	return ""
}

// Run grades the subject on the given cases and returns one outcome per case and pairing,
// in case order. When opt.Stop is closed during the run, the case runs not yet started are
// left out of the result.
func Run(g Game, cases []Case, subj Subject, opt Options) []Outcome {
	if opt.Jobs <= 0 {
		opt.Jobs = 2
	}
	opt, boxErr := opt.forGame(g)
	defer sandbox.CaseUsers.Retire(opt.owner)
	type job struct {
		c       *Case
		p       Pairing
		counted bool
		slot    int
	}
	var jobs []job
	unclaimed := g.Unclaimed(subj.Programs)
	for i := range cases {
		c := &cases[i]
		if opt.Run != nil && !opt.Run.MatchString(c.ID) {
			continue
		}
		counted := c.Unmarked == "" // an unmarked case runs, but none of its runs counts
		for _, p := range g.Pairings(*c) {
			if g.runsAny(*c, p, unclaimed) {
				continue // a program the subject need not have built
			}
			jobs = append(jobs, job{c, p, counted, len(jobs)})
			counted = false
		}
	}
	// The cases' folders: in a tmpfs of the grade's own where the grader may mount one.
	casesDir := opt.Scratch
	if opt.Scratch != "" && os.Geteuid() == 0 {
		if dir, release, err := sandbox.MemoryFolder(opt.Scratch, "cases-"); err == nil {
			casesDir = dir
			defer release()
		}
	}
	out := make([]Outcome, len(jobs))
	ran := make([]bool, len(jobs))
	// Busy cases take one of -j slots; cases that mostly wait (Case.Waits) take one of
	// their own, more numerous, slots, and leave the CPU to the busy ones. Each kind has a
	// dispatcher of its own, so that a case waiting for a slot of its kind never holds back
	// the cases of the other kind queued behind it.
	busy := newPool(opt.Jobs)
	if opt.Slots != nil {
		busy = opt.Slots.busy
	}
	idle := newPool(waitingSlots(opt.Jobs))
	// A busy case whose programs have all been quiet a while (they wait on input that
	// never comes: a submission that hangs) moves to one of these, many more, and frees
	// its busy slot for the next case: waiting costs no CPU (see moveWhenQuiet).
	quiet := newPool(quietSlots())
	// stop: opt.Stop, or the grade's Cap passed (capReached, checked before each case
	// starts; the timer wakes the dispatchers that wait for a slot).
	stop := opt.Stop
	var deadline time.Time
	capReached := func() bool { return !deadline.IsZero() && !time.Now().Before(deadline) }
	if opt.Cap > 0 {
		deadline = time.Now().Add(opt.Cap)
		both, capped := make(chan struct{}), make(chan struct{})
		timer := time.AfterFunc(opt.Cap, func() { close(capped) })
		defer timer.Stop()
		go func() {
			select {
			case <-opt.Stop:
			case <-capped:
			}
			close(both)
		}()
		stop = both
	}
	var waiting, working []job
	for _, j := range jobs {
		if j.c.Waits {
			waiting = append(waiting, j)
		} else {
			working = append(working, j)
		}
	}
	var wg sync.WaitGroup
	dispatch := func(list []job, sem *pool) {
		for _, j := range list {
			if !sem.acquire(opt.Priority, stop) {
				return
			}
			select {
			case <-stop:
				sem.release()
				return
			default:
			}
			if capReached() {
				sem.release()
				return
			}
			wg.Add(1)
			ran[j.slot] = true
			held := &heldSlot{sem: sem}
			jopt := opt
			ended := make(chan struct{}) // closed when the case's outcome is in
			jopt.activity = &scriptcmds.Activity{}
			moveTo := quiet
			if sem != busy {
				moveTo = nil // a waiting case is only watched
			}
			go held.watch(jopt.activity, moveTo, ended)
			go func(j job) {
				defer wg.Done()
				var o Outcome
				var dir string
				if boxErr != nil {
					o = Outcome{Case: j.c, Pairing: j.p, Verdict: HarnessError, final: true,
						Detail: "no box for the subject (refused; -unsafe grades without it): " + boxErr.Error()}
				} else {
					o, dir = runCase(casesDir, g, j.c, j.p, subj, jopt, false)
				}
				close(ended)
				o.waited = waited(jopt.activity)
				o.Counted = j.counted
				out[j.slot] = o
				// Told before the slot is free, so that a caller who stops the grade on
				// this outcome (-failfast) does so before the next case starts.
				if opt.OnOutcome != nil {
					opt.OnOutcome(o)
				}
				// The slot is free once the verdict is in: removing the case's folder (its
				// files, what the run left) overlaps the next case. Run returns only once
				// every folder is gone.
				held.release()
				if dir != "" {
					out[j.slot].Cleanup = removeCaseDir(dir)
				}
			}(j)
		}
	}
	var dispatchers sync.WaitGroup
	dispatchers.Add(1)
	go func() {
		defer dispatchers.Done()
		dispatch(waiting, idle)
	}()
	dispatch(working, busy)
	dispatchers.Wait()
	wg.Wait()
	// Past the cap, the case runs not started are TIMEOUTs, which are not run again (they
	// did not wait, they were not run: waited keeps Rerun off them).
	select {
	case <-opt.Stop: // interrupted: what was not run is left out
	default:
		if !capReached() {
			break
		}
		for i, j := range jobs {
			if !ran[i] {
				ran[i] = true
				out[i] = Outcome{Case: j.c, Pairing: j.p, Counted: j.counted, Verdict: Timeout, Detail: NotRunDetail(opt.Cap), waited: true}
			}
		}
	}
	done := out[:0]
	for i, o := range out {
		if ran[i] {
			done = append(done, o)
		}
	}
	rerunIn(casesDir, g, done, subj, opt)
	return done
}

// harnessFault, when set (tests only: SetHarnessFault), is asked before each case run
// whether to fail it as the harness's own failure, with the error it returns: a real
// harness failure, injected, which a subject can never cause.
var harnessFault func(c *Case, p Pairing, rerun bool) error

// SetHarnessFault makes every case run for which fault returns an error (rerun: the case's
// run again, Rerun) a HARNESS-ERROR with that error, until the returned function is called.
// For tests of what a grade does with the harness's own failures; never set in a grade.
func SetHarnessFault(fault func(caseID string, p Pairing, rerun bool) error) (restore func()) {
	harnessFault = func(c *Case, p Pairing, rerun bool) error { return fault(c.ID, p, rerun) }
	return func() { harnessFault = nil }
}

// forGame completes opt for grading a subject on game g (the game's deadline and CPU time
// where opt leaves them unset), and says why the subject cannot be boxed as opt asks, if it
// cannot: with Unsafe, it is then graded without the box.
func (opt Options) forGame(g Game) (Options, error) {
	var boxErr error
	if opt.SandboxUsers {
		problem := BoxProblem
		if opt.NoBox {
			problem = UsersProblem
		}
		if boxErr = problem(); boxErr != nil && opt.Unsafe {
			opt.SandboxUsers, boxErr = false, nil
		}
	}
	if opt.Timeout <= 0 {
		opt.Timeout = g.Timeout
	}
	if opt.Limits.CPU == 0 {
		opt.Limits.CPU = g.CPU
	}
	// The submission's own sandbox users: lent to no other grade of this process (a
	// cohort's other submissions); the caller gives them back to the machine when it is
	// done (sandbox.CaseUsers.Retire).
	tok := make([]byte, 8)
	rand.Read(tok)
	opt.owner = hex.EncodeToString(tok)
	return opt, boxErr
}

// NotRunDetail is the detail of the TIMEOUT of a case run that a grade's Cap left unstarted.
func NotRunDetail(limit time.Duration) string {
	return fmt.Sprintf("not run: the submission's grade reached its time cap (-submission-timeout %v) before this case started", limit)
}

// runCase runs one case in a pairing in a folder of its own under parent and returns its
// outcome and that folder, for the caller to remove ("" when none was made). rerun says
// that it runs again (Rerun).
func runCase(parent string, g Game, c *Case, p Pairing, subj Subject, opt Options, rerun bool) (Outcome, string) {
	if harnessFault != nil {
		if err := harnessFault(c, p, rerun); err != nil {
			return Outcome{Case: c, Pairing: p, Verdict: HarnessError, Detail: "harness error: " + err.Error()}, ""
		}
	}
	dir, err := os.MkdirTemp(parent, "case-")
	if err != nil {
		return Outcome{Case: c, Pairing: p, Verdict: HarnessError, Detail: err.Error()}, ""
	}
	return runCaseIn(dir, g, c, p, subj, opt), dir
}

// runCaseIn is runCase in the case's folder dir, which the caller removes.
func runCaseIn(dir string, g Game, c *Case, p Pairing, subj Subject, opt Options) Outcome {
	o := Outcome{Case: c, Pairing: p}
	if opt.SandboxUsers {
		// testscript's exec runs its program as the grader, outside the box, and no case
		// can be given another exec: a case that uses it is the suite's error, and the
		// subject does not run.
		if cmd := scriptcmds.UnboxedCommand(c.Script); cmd != "" {
			o.Verdict = HarnessError
			o.Detail = fmt.Sprintf("the case starts a program with testscript's exec (%q), which would run it as the grader, outside the box: a case starts programs with run", cmd)
			return o
		}
		// The sandbox user is handed the script's folder, inside this one.
		if err := os.Chmod(dir, 0o711); err != nil {
			o.Verdict, o.Detail = HarnessError, err.Error()
			return o
		}
	}
	file := filepath.Join(dir, c.ID+".txtar")
	if err := os.WriteFile(file, c.Script, 0o600); err != nil {
		o.Verdict, o.Detail = HarnessError, err.Error()
		return o
	}
	// A subject program that was not built fails its cases as BUILD-FAIL, without running.
	theirNames := map[string]bool{}
	for _, v := range c.Vars {
		if g.theirsIn(v, p) {
			name := g.program(v).Name
			theirNames[name] = true
			if subj.Programs[name] == "" {
				o.Verdict, o.Detail = BuildFail, "program not built: "+name
				return o
			}
		}
	}
	witnessed := map[string]string{} // the witnessed reference players' wrappers -> their names
	runs := scriptcmds.NewRuns()     // what each run ran, for the log's "as typed" lines
	typed := typing{programs: map[string]string{}}
	params := testscript.Params{
		Files:               []string{file},
		WorkdirRoot:         dir,
		RequireExplicitExec: true,
		Cmds:                scriptcmds.Commands(),
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", opt.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			for _, prog := range g.Programs {
				// A reference program is passed by its path, as a course passes programs to a
				// hub (./2310A), so that a hub that starts them with execl, without a PATH
				// search, runs them too.
				val := opt.reference(prog.Name)
				if g.theirsIn(prog.Var, p) && subj.Programs[prog.Name] != "" {
					val = subj.Programs[prog.Name]
				}
				env.Setenv(prog.Var, val)
				typed.programs[val] = "ref/" + prog.Name
				if val == subj.Programs[prog.Name] {
					typed.programs[val] = "./" + prog.Name
				}
			}
			env.Values[scriptcmds.RunsKey{}] = runs
			if opt.activity != nil {
				env.Values[scriptcmds.ActivityKey{}] = opt.activity
			}
			// The grader's settings, handed to the commands as a value (they run in this
			// process): none of them is in the script's environment, which its programs get.
			set := scriptcmds.Settings{Timeout: opt.Timeout, Limits: opt.Limits, MockPlayer: opt.Published["mockplayer"]}
			if opt.SandboxUsers {
				set.SandboxUser, set.Owner, set.NoBox = true, opt.owner, opt.NoBox
				set.BoxKeep = boxKeep(subj, opt)
				if opt.BinDir != "" && len(opt.Published) > 0 && sandbox.Rootless() {
					// A subject is handed the programs it may run as published files; the
					// grader's folder, every program by its name, is the judges' alone.
					// (A root grader's is its own, 0700: no sandbox user enters it.)
					// Shown there, a rootless subject's program could run the reference
					// program of its own name and score 42/42.
					set.BoxHide = []string{opt.BinDir}
				}
			}
			if err := set.Setup(env); err != nil {
				return err
			}
			typed.mockBin = env.Getenv("MOCKBIN")
			if p == TheirHub {
				for _, prog := range g.Programs {
					if len(prog.Mock) == 0 || g.theirsIn(prog.Var, p) {
						continue
					}
					path, err := scriptcmds.WitnessedProgram(env, prog.Name, prog.Mock)
					if err != nil {
						return fmt.Errorf("harness error: the witnessed %s: %w", prog.Name, err)
					}
					env.Setenv(prog.Var, path)
					witnessed[path] = prog.Name
					typed.programs[path] = "ref/" + prog.Name
				}
			}
			return nil
		},
	}
	start := time.Now()
	res := suite.Run(params)
	o.Duration = time.Since(start)
	if len(res) != 1 {
		o.Verdict, o.Detail = HarnessError, fmt.Sprintf("the suite runner returned %d results", len(res))
		return o
	}
	r := res[0]
	o.Log, o.Lenient = Escape(boundLog(withoutRunMarks(r.Log, runs))), r.Lenient
	switch {
	case r.Passed && len(r.Lenient) > 0:
		o.Verdict, o.Detail = PassLenient, strings.Join(r.Lenient, "; ")
	case r.Passed:
		o.Verdict = Pass
	case r.Skipped:
		o.Verdict, o.Detail = HarnessError, "the case skipped itself"
	default:
		judged, _ := os.ReadFile(filepath.Join(dir, scriptcmds.JudgeOutputFile))
		var rec *outcome.Record
		if last, ok, err := outcome.Last(filepath.Join(dir, outcome.File)); ok {
			rec = &last
		} else if err != nil {
			o.Verdict, o.Detail = HarnessError, "the failure's record: "+err.Error()
			return o
		}
		o.untimed = rec != nil && rec.Kind == outcome.Held
		o.Verdict, o.Detail = Classify(r.Log, c.Script, string(judged), rec, func(prog string) bool {
			if v, ok := strings.CutPrefix(prog, "$"); ok {
				return g.theirsIn(strings.Trim(v, "{}"), p)
			}
			return theirNames[prog]
		})
		o.Divergence = Escape(Divergence(r.Log, c.Script, string(judged), runs))
		o.Conversation = MockConversation(scriptcmds.WitnessRecords(dir))
		if o.Conversation == "" {
			o.Conversation = JudgeExchange(string(judged))
		}
		o.Conversation = Escape(o.Conversation)
		o.Detail = Escape(o.Detail)
		paths := map[string]string{dir + string(os.PathSeparator): ""}
		for path, name := range witnessed {
			paths[path] = name // as the reference program itself is named
		}
		for _, prog := range g.Programs {
			if path := subj.Programs[prog.Name]; path != "" && g.theirsIn(prog.Var, p) {
				paths[path] = "./" + prog.Name
			}
			if opt.BinDir != "" {
				paths[filepath.Join(opt.BinDir, prog.Name)] = prog.Name
			}
			if pub := opt.Published[prog.Name]; pub != "" {
				paths[pub] = prog.Name
			}
		}
		o.Log = Escape(boundLog(UserLog(r.Log, runs, typed, paths)))
		if opt.Keep != "" && o.Verdict != HarnessError {
			if err := keepCase(opt.Keep, o, dir, opt.Rerun); err != nil {
				o.Detail += Escape(" (not kept: " + err.Error() + ")")
			}
		}
	}
	return o
}

// waitingSlots is how many cases that mostly wait run at once beside jobs busy ones.
func waitingSlots(jobs int) int { return max(8, 4*jobs) }

// quietSlots is how many cases found quiet (moveWhenQuiet) may wait at once: 128, or fewer
// where the machine has less than 128 MiB of memory for each (a quiet case's programs hold
// a few MiB: a budget, not a use). A submission whose programs never answer then grades
// in about its cases' timeouts over this many, not over -j (a dealer2310 submission that
// never answers takes 33 to 59 s at -j 2, where over -j it would take over half an hour;
// see docs/grading.md).
func quietSlots() int {
	n := 128
	if mem := memTotal(); mem > 0 {
		n = min(n, int(mem/(128<<20)))
	}
	return max(n, 8)
}

// memTotal is the machine's memory in bytes, from /proc/meminfo (0 when unknown).
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}

// The checks of moveWhenQuiet: how often a busy case is looked at, and how long its
// programs must all have been quiet.
const (
	quietCheck = 50 * time.Millisecond
	quietAfter = 100 * time.Millisecond
)

// rerunIn runs again, one at a time, the case runs of outs (one subject's, after every one
// of them ran) whose verdict cannot stand as it is, and puts what came of each in its
// place (Outcome.Alone says what happened):
//
//   - a verdict that depends on wall time, before it costs marks: a HYGIENE finding (what a
//     program left running; not an output held open, which does not), and a TIMEOUT of a
//     case that worked to the end (one that went quiet, its programs waiting on input that
//     never came, would wait as long alone). A case that passes alone takes that outcome, saying what it did
//     beside the others; one that fails again takes the outcome alone, "confirmed alone"
//     (five real "left running" verdicts flipped to PASS when their case ran alone). One whose run again is a HARNESS-ERROR was not confirmed, and is that
//     HARNESS-ERROR: a verdict never costs marks unconfirmed;
//   - a HARNESS-ERROR, the harness's own failure, which may have been a passing one: it
//     takes the verdict of its run again, or stays a HARNESS-ERROR when the failure
//     persists, and the grade is then incomplete (Report.Incomplete): no mark is given
//     over the cases that were judged (else a hub that made every case it could not pass
//     a HARNESS-ERROR would score 10.29/42 with no logic).
//
// "Alone" is the subject's alone: none of its other case runs runs beside the one run
// again, but other subjects' cases go on (a cohort's), so that one submission's reruns
// never stop the others' grading (12 reruns under a lock that stopped every other
// submission would cost them 187 s). Nothing is run again once the grade was stopped
// (opt.Stop). The cases' folders are made under casesDir.
func rerunIn(casesDir string, g Game, outs []Outcome, subj Subject, opt Options) {
	for i := range outs {
		o := outs[i]
		timed := o.Verdict == Hygiene && !o.untimed || o.Verdict == Timeout && !o.waited
		harness := o.Verdict == HarnessError && !o.final
		if !timed && !harness {
			continue
		}
		select {
		case <-opt.Stop:
			return
		default:
		}
		opt.activity = nil
		again, dir := runCase(casesDir, g, o.Case, o.Pairing, subj, opt, true)
		if dir != "" {
			again.Cleanup = removeCaseDir(dir)
		}
		again.Counted = o.Counted
		unjudged := "the case is not judged"
		if o.Counted {
			unjudged += ", and the grade is incomplete"
		}
		switch {
		case harness && again.Verdict == HarnessError:
			again.Alone = "a HARNESS-ERROR again when run alone: " + unjudged
		case harness:
			again.Alone = fmt.Sprintf("a HARNESS-ERROR when run beside other cases (%s); this is its verdict when run alone", o.Detail)
		case again.Verdict == HarnessError:
			again.Alone = fmt.Sprintf("%s when run beside other cases (%s), which could not be confirmed alone: %s", o.Verdict, o.Detail, unjudged)
		case again.Verdict.Passed():
			again.Alone = fmt.Sprintf("%s when run beside other cases (%s); passed when run alone", o.Verdict, o.Detail)
		default:
			again.Alone = "confirmed alone"
		}
		outs[i] = again
		if opt.OnAlone != nil {
			opt.OnAlone(again)
		}
	}
}

// heldSlot is the slot a running case holds: busy or waiting first, a quiet one once
// moveWhenQuiet moved it.
type heldSlot struct {
	mu  sync.Mutex
	sem *pool // nil once released
}

// release gives the slot back.
func (h *heldSlot) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sem != nil {
		h.sem.release()
		h.sem = nil
	}
}

// waitedEnough is how long a case's programs must have been quiet at once for its TIMEOUT
// to count as a wait (input that never came), which a re-run alone would only repeat,
// when no run's deadline said what they were doing (a judge's wait for a line).
const waitedEnough = 500 * time.Millisecond

// waited says whether a case whose activity a was watched waited rather than worked, for
// Rerun: when a run's deadline passed, by what its programs were doing then (all
// waiting: a wait, which a re-run alone would only repeat); else (a judge that waited for
// a line) by whether they were all quiet for waitedEnough at once. Never by the case's move
// to a quiet slot, which quietAfter makes: a program the loaded machine held at its start
// (stopped at its exec while the harness set its limits) looks quiet that long, then loops,
// and its TIMEOUT must be confirmed alone (TestTimeDependentVerdictsAreConfirmedAlone failed
// so under load).
func waited(a *scriptcmds.Activity) bool {
	if passed, waiting := a.AtDeadlines(); passed {
		return waiting
	}
	return a.Longest() >= waitedEnough
}

// watch watches a case until ended, keeping the longest time its programs were all quiet
// (Activity.Longest); with quiet not nil (a busy case), once every program it has running
// has used no CPU for quietAfter (a hang: input that never comes), it takes a slot of
// quiet, when one is free, and gives its busy slot to the next case. Only the case's
// programs are looked at, as the sandbox's sweeps see them, never wall time alone: a slow
// program on a loaded machine is not quiet.
func (h *heldSlot) watch(a *scriptcmds.Activity, quiet *pool, ended <-chan struct{}) {
	t := time.NewTicker(quietCheck)
	defer t.Stop()
	for {
		select {
		case <-ended:
			return
		case <-t.C:
		}
		if a.Quiet() < quietAfter || quiet == nil {
			continue
		}
		if !quiet.tryAcquire() {
			continue
		}
		h.mu.Lock()
		if h.sem == nil {
			quiet.release() // the case ended meanwhile
		} else {
			h.sem.release()
			h.sem = quiet
		}
		h.mu.Unlock()
		quiet = nil // moved: from now on only watched
	}
}

// CategoryMarks is the mark earned in one category.
type CategoryMarks struct {
	Category contract.Category
	Cases    int // counted case runs in the category, judged or not
	Passed   int // of which passed (PASS or PASS-LENIENT)
	// Unjudged are the counted case runs that are HARNESS-ERROR (after Rerun): the
	// harness's own failure, which says nothing of the subject, for or against it.
	Unjudged int
	// Marks is Category.Marks times the weights of the passed case runs (CaseWeights).
	// With Unjudged case runs it is not the category's mark but a lower bound of it (each
	// unjudged run counted as lost): the grade is incomplete (Complete), never a mark over
	// fewer cases.
	Marks float64
}

// Complete says whether every counted case run of the category was judged.
func (cm CategoryMarks) Complete() bool { return cm.Unjudged == 0 }

// CaseWeights gives each outcome the share of its category's marks it carries: 0 for a run
// that is not counted or whose failure is charged in another case (ChargedIn); else its part's
// share of the category (the category's marks split equally among the parts its counted
// cases name, Case.Part, a case without one in the part "") split equally among the
// part's counted cases. Without parts every counted case of a category weighs the same.
func CaseWeights(outs []Outcome) []float64 {
	type key struct{ category, part string }
	cases := map[key]int{}
	parts := map[string]map[string]bool{}
	charged := ChargedIn(outs)
	marked := func(i int) bool {
		return outs[i].Counted && charged[i] == ""
	}
	for i, o := range outs {
		if !marked(i) {
			continue
		}
		cases[key{o.Case.Category, o.Case.Part}]++
		if parts[o.Case.Category] == nil {
			parts[o.Case.Category] = map[string]bool{}
		}
		parts[o.Case.Category][o.Case.Part] = true
	}
	w := make([]float64, len(outs))
	for i, o := range outs {
		if n := cases[key{o.Case.Category, o.Case.Part}]; n > 0 && marked(i) {
			w[i] = 1 / float64(len(parts[o.Case.Category])) / float64(n)
		}
	}
	return w
}

// ChargedIn says, for each outcome, the case its failure is already charged in ("" for
// none): a counted run that failed, of a case whose header says it needs another case
// (Case.Needs) whose counted run failed too. One bug, one charge: a case that can only
// reach its own requirement through what another case marks (a player that must go on
// after another's elimination before it can lose its hub) is not charged when that other
// case failed; it is left out of its category. A run that passed is marked as any other, and
// a HarnessError is never charged in another case (it stays unjudged).
func ChargedIn(outs []Outcome) []string {
	failed := map[string]bool{}
	for _, o := range outs {
		if o.Counted && o.Verdict != HarnessError && !o.Verdict.Passed() {
			failed[o.Case.ID] = true
		}
	}
	in := make([]string, len(outs))
	for i, o := range outs {
		if !o.Counted || o.Verdict == HarnessError || o.Verdict.Passed() {
			continue
		}
		for _, n := range o.Case.Needs {
			if failed[n] {
				in[i] = n
				break
			}
		}
	}
	return in
}

// Marks totals the counted outcomes by category, in the game's category order: a
// category's marks times the weights of its passed cases (CaseWeights). A failure already
// charged in a case it needs is left out (ChargedIn). A HarnessError is not a case left out
// (a subject that made its failures harness errors would then be marked on the cases it
// chose): it counts in Cases and Unjudged, and makes the category, and the grade,
// incomplete.
func Marks(g Game, outs []Outcome) []CategoryMarks {
	by := map[string]*CategoryMarks{}
	var order []string
	for _, c := range g.Categories {
		by[c.Name] = &CategoryMarks{Category: c}
		order = append(order, c.Name)
	}
	weights := CaseWeights(outs)
	charged := ChargedIn(outs)
	for i, o := range outs {
		if !o.Counted || charged[i] != "" {
			continue
		}
		cm := by[o.Case.Category]
		if cm == nil {
			continue
		}
		cm.Cases++
		switch {
		case o.Verdict.Passed():
			cm.Passed++
			cm.Marks += cm.Category.Marks * weights[i]
		case o.Verdict == HarnessError:
			cm.Unjudged++
		}
	}
	var res []CategoryMarks
	for _, name := range order {
		res = append(res, *by[name])
	}
	return res
}

// UnknownCategories lists category names used by cases but not defined by the game: a
// suite error the grader reports rather than silently dropping cases.
func UnknownCategories(g Game, cases []Case) []string {
	seen := map[string]bool{}
	for _, c := range cases {
		if _, ok := g.category(c.Category); !ok && !seen[c.Category] {
			seen[c.Category] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// BoxProblem says why this machine cannot grade an untrusted subject (Options.SandboxUsers),
// or nil when it can: the kernel must give the grader boxes, as root, or, for a grader
// that is not root, rootless ones (sandbox's rootless.go: no sandbox users, every program
// the grader's own user in a box of its own, the oracle kept out of the subject's boxes).
func BoxProblem() error {
	if sandbox.Rootless() {
		return sandbox.RootlessProblem()
	}
	return sandbox.BoxProblem()
}

// UsersProblem says why this machine cannot run the subject as sandbox users even without
// the box (Options.NoBox), or nil when it can.
func UsersProblem() error {
	return sandbox.UsersProblem()
}

// TotalsProblem says why the cases of a boxed grade get no memory and process totals over
// the whole case (harness/box/cgroup) on this machine, or nil when they do. Without them each
// process still has its own limits.
func TotalsProblem() error {
	return cgroup.Problem()
}

// reference is what a case's variable for the reference program name holds: the path it
// is published at, else BinDir/NAME, else the bare name (looked up in PATH).
func (opt Options) reference(name string) string {
	switch {
	case opt.Published[name] != "":
		return opt.Published[name]
	case opt.BinDir != "":
		return filepath.Join(opt.BinDir, name)
	}
	return name
}

// boxKeep lists the folders a case's boxes must keep visible: the scratch space, the
// reference programs and the subject's.
func boxKeep(subj Subject, opt Options) []string {
	keep := []string{}
	// The folders of the published programs (programs/RANDOM/NAME: the folder that holds
	// them all, which others may search but not list), not the whole scratch space, where
	// every other case's folder lies. Without published programs (a caller that gives the
	// references in BinDir alone), the scratch space.
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(opt.Published)) {
		if d := filepath.Dir(filepath.Dir(opt.Published[name])); !seen[d] {
			seen[d] = true
			keep = append(keep, d)
		}
	}
	if len(seen) == 0 && opt.Scratch != "" && !sandbox.Rootless() {
		// Not rootless: there the subject has the grader's user, and the modes of the
		// case's files (0600) would not keep it from another case's script.
		keep = append(keep, opt.Scratch)
	}
	if opt.BinDir != "" {
		keep = append(keep, opt.BinDir)
	}
	for _, name := range slices.Sorted(maps.Keys(subj.Programs)) {
		if p := subj.Programs[name]; p != "" {
			keep = append(keep, filepath.Dir(p))
		}
	}
	// Folders the user asked to keep visible (shared data a submission reads).
	return append(keep, filepath.SplitList(os.Getenv(scriptcmds.BoxKeepVar))...)
}

// Escape makes text that may hold a subject's output safe to show anywhere (a terminal,
// JSON, XML, HTML): control characters other than newline and tab, and bytes that are not
// UTF-8, become \xNN, so that no escape sequence of the subject's reaches a reader's
// terminal and no report carries invalid text. Everything else is unchanged.
func Escape(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r < 0x20 && r != '\n' && r != '\t', r == 0x7f,
			r >= 0x80 && r < 0xa0, bidiControl(r):
			for _, c := range []byte(text[i : i+max(size, 1)]) {
				fmt.Fprintf(&b, "\\x%02x", c)
			}
		default:
			b.WriteString(text[i : i+size])
		}
		i += max(size, 1)
	}
	return b.String()
}

// bidiControl says whether r is one of Unicode's bidirectional formatting characters (the
// embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, the marks U+200E,
// U+200F and U+061C): shown as they are, a subject's text with U+202E would print the
// rest of a report's line backwards, in a terminal or a browser.
func bidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// MaxLog bounds the log an outcome keeps: the start and the end of a longer one (where
// the failure is) are kept, so that a subject's flood of output cannot grow the grader's
// memory or its reports.
const MaxLog = 32 << 10

func boundLog(log string) string {
	if len(log) <= MaxLog {
		return log
	}
	head, tail := log[:MaxLog/4], log[len(log)-MaxLog*3/4:]
	return head + fmt.Sprintf("\n[... %d bytes of the log left out ...]\n", len(log)-len(head)-len(tail)) + tail
}

// MakeScratch makes the grader's scratch folder (sandbox.MakeScratch) in the system's
// temporary folder, or in a private one when that is not safe (note says so).
func MakeScratch() (dir, note string, err error) {
	return sandbox.MakeScratch("", "gauntlet-grade-")
}
