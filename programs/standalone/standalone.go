// Package standalone is what each reference and mock program of the gauntlet binary runs,
// and runs it from an init function when the binary was started as one of them, before the
// binary's grader packages initialise.
//
// Why: Go initialises every package of a binary before main, and the gauntlet binary
// carries the grader (testscript, go/build, the templates, the report writers). A reference
// program needs none of them, yet paid for their initialisation on every start, and a
// grade starts about a thousand of them. Go initialises packages in dependency order,
// taking the first ready one by import path: this package needs only the programs' own
// packages, and its path sorts before the grader's third-party and standard packages, so
// its init runs as soon as the programs' packages are ready, and exits the process when the
// program ends (TestProgramsSkipTheGradersPackages). Started as anything else (the CLI, a
// test binary), its init returns and changes nothing.
//
// The package gauntlet/programs adds each program's game and role to this table for the
// CLI and the grader; the mock hub stays there, because its judge steps need the games'
// live judges, which the programs package registers.
package standalone

import (
	"io"
	"os"
	"path/filepath"
	"slices"

	"gauntlet/games/clue"
	"gauntlet/games/dealer2310"
	"gauntlet/games/stlucia"
	"gauntlet/harness/judges/mockplayer"
	"gauntlet/hub/cluehub"
	"gauntlet/hub/dealer2310hub"
	"gauntlet/hub/refereehub"
	"gauntlet/hub/stluciahub"
	"gauntlet/hub/strategohub"
	"gauntlet/judges/cluejudges"
	"gauntlet/players/clueplayers"
	"gauntlet/players/dealer2310players"
	"gauntlet/players/refereeplayers"
	"gauntlet/players/stluciaplayers"
	"gauntlet/players/strategoplayers"
)

// Program is what one program runs.
type Program struct {
	Main func() int // runs the program on the process's arguments and streams; its exit status
	// Player is the in-process form of a reference player, for the mock player to wrap
	// (nil: the mock player cannot wrap it).
	Player func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var table = map[string]Program{}

func add(name string, p Program) {
	if _, dup := table[name]; dup {
		panic("standalone: " + name + " added twice")
	}
	table[name] = p
}

func init() {
	add("stlucia", Program{Main: stluciahub.Main})
	addPlayers(stlucia.Strategies, stluciaplayers.Main, stluciaplayers.Run)

	add("2310dealer", Program{Main: dealer2310hub.Main})
	addPlayers(dealer2310.Strategies, dealer2310players.Main, dealer2310players.Run)

	add("clue-server", Program{Main: cluehub.Main})
	add("clue-client", Program{Main: clueplayers.Main("strong")}) // the reference client is the strong one
	for _, k := range clue.BrainNames {
		add("clue-"+k, Program{Main: clueplayers.Main(k)})
	}

	add("referee-runner", Program{Main: refereehub.Main})
	add("ttt-referee", Program{Main: refereeplayers.TTTReferee})
	add("c4-referee", Program{Main: refereeplayers.C4Referee})
	add("referee", Program{Main: refereeplayers.C4Referee}) // the suite's referee of any game, as the reference plays it
	add("ttt-random", Program{Main: func() int { return refereeplayers.TTTPlayer(false) }})
	add("ttt-perfect", Program{Main: func() int { return refereeplayers.TTTPlayer(true) }})
	add("c4-random", Program{Main: refereeplayers.C4Player})
	// The programs a submission builds for the referee suite, as the reference plays them.
	add("ttt-player", Program{Main: func() int { return refereeplayers.TTTPlayer(true) }})
	add("c4-player", Program{Main: refereeplayers.C4Player})

	add("stratego", Program{Main: strategohub.Main})
	add("stratego-random", Program{Main: strategoplayers.MainRandom, Player: strategoplayers.PlayRandom})
	add("stratego-hunter", Program{Main: strategoplayers.MainHunter, Player: strategoplayers.PlayHunter})
	add("ai", Program{Main: strategoplayers.MainHunter}) // the reference of the program a submission builds

	add("mockplayer", Program{Main: func() int {
		return mockplayer.Main(os.Args[1:], lookupPlayer, mockplayer.PolledStdin(), os.Stdout, os.Stderr)
	}})
	add("mockclients", Program{Main: func() int {
		return cluejudges.Main(os.Args[1:], os.Stdout, os.Stderr)
	}})

	if p, ok := Called(); ok {
		run(p)
	}
}

// addPlayers adds a pipe game's reference players, one per strategy: main runs the one
// named, run plays a strategy in process.
func addPlayers[S any](strategies map[string]S, main func(name string) int,
	run func(s S, args []string, stdin io.Reader, stdout, stderr io.Writer) int) {
	for name, s := range strategies {
		add(name, Program{
			Main: func() int { return main(name) },
			Player: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
				return run(s, args, stdin, stdout, stderr)
			}})
	}
}

// run runs p as the process's program and exits with its status. It runs in a goroutine
// of its own, as main would: during initialisation the runtime keeps this goroutine locked
// to the main thread, and a program run here would have every wake-up of its main loop
// handed over to that one thread.
func run(p Program) {
	status := make(chan int)
	go func() { status <- p.Main() }()
	os.Exit(<-status)
}

// Lookup finds a program by name.
func Lookup(name string) (Program, bool) {
	p, ok := table[name]
	return p, ok
}

// Names lists every program of the table, in no particular order.
func Names() []string {
	var names []string
	for name := range table {
		names = append(names, name)
	}
	return names
}

// Player returns the in-process form of the reference player named name: what the mock
// player wraps and the fuzzer plays in place of the process.
func Player(name string) (func(args []string, stdin io.Reader, stdout, stderr io.Writer) int, bool) {
	p, ok := table[name]
	if !ok || p.Player == nil {
		return nil, false
	}
	return p.Player, true
}

func lookupPlayer(name string) (mockplayer.InProcess, bool) { return Player(name) }

// Later are the programs that gauntlet/programs adds with a Main of its own: the mock
// hub, whose judge steps need the games' live judges that package registers. Started as
// one of them, the process is left to main.
var Later = []string{"mockhub"}

// Called returns the program of this table the process was started as, if any: the one
// the file the kernel ran is named after, when it is named after a program (this table's
// or Later), else the one argv[0] names. The grader hands a subject each reference program
// as a hard link named after it, so that a subject allowed to run one (a hub starting
// reference players) cannot make it another program (the reference hub) by the argv[0] it
// passes; a symbolic link named after a program (gauntlet play's, the tests') resolves to
// the binary's own name, and argv[0] decides.
func Called() (Program, bool) {
	name, ok := CalledName(func(name string) bool {
		_, here := table[name]
		return here || slices.Contains(Later, name)
	})
	if !ok || slices.Contains(Later, name) {
		return Program{}, false
	}
	return table[name], true
}

// CalledName is Called's rule for any table of programs (isProgram says whether a name is
// one): the name of the file the kernel ran when it is a program's, else argv[0]'s base
// name, and whether that is a program. gauntlet/programs applies it to its own table.
func CalledName(isProgram func(name string) bool) (string, bool) {
	if exe, err := os.Readlink("/proc/self/exe"); err == nil && isProgram(filepath.Base(exe)) {
		return filepath.Base(exe), true
	}
	name := filepath.Base(os.Args[0])
	return name, isProgram(name)
}
