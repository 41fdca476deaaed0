package strategohub

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"gauntlet/games/stratego"
)

// shortUsage is what the manager run without arguments writes on stderr (exit 0), in the
// 2012 manager's words.
const shortUsage = "Usage: stratego [options] red blue\n       stratego --help\n"

// manual is what -h and --help print on stdout (exit 0): the manager's manual, in the
// project's words (docs/stratego.md has the whole protocol).
const manual = `NAME
    stratego - runs a game of Stratego between two AI programs

SYNOPSIS
    stratego [-i] [-o FILE|stdout] [-t STALL] [-T TIMEOUT] [-m TURNS] RED BLUE
    stratego -h | --help

DESCRIPTION
    RED and BLUE are the paths of the AI programs (a bare name is looked up in PATH), or
    "human" (also "@human"): that side's moves are typed on stdin, its queries shown on
    stderr, with no time limit. Each AI is asked "COLOUR OPPONENT 10 10" and answers with
    its 4 setup rows; then, on its turn, it is sent START or the other side's last move
    with its outcome, the 10 rows of the board as it sees it, and answers
    "X Y DIRECTION [N]" or SURRENDER; after each move it is sent its own move's outcome.
    At the end each AI is sent "QUIT" and a word, and has 2 seconds to exit.

    The result line goes to stdout:
        NAME COLOUR OUTCOME TURNS RED_VALUE BLUE_VALUE
    OUTCOME is VICTORY, SURRENDER, DRAW, DRAW_DEFAULT, ILLEGAL or BAD_SETUP. The exit
    status is 0 after a game, whatever its outcome; 1 on a usage error or when an AI
    cannot be started.

OPTIONS
    -i          ignore illegal moves: the move is not made and its side loses the turn
    -o FILE     write the game's log to FILE ("stdout": before the result line)
    -t STALL    wait STALL seconds after each move; negative or "inf": wait for Enter
    -T TIMEOUT  the time, in seconds, an AI has for each line it owes: its own time,
                computing or waiting, not the time a busy machine kept it from
                running (default 2; negative or "inf": none)
    -W WALL     the time on the clock an AI has for each line it owes, whatever it
                does: the backstop (default ten times TIMEOUT; "inf": none)
    -m TURNS    draw the game when turn TURNS begins (default 5000; "inf": never)
    -p, -r, -b  accepted, no effect (the 2012 manager's board and graphics options)
    -h, --help  print this manual

    Seconds may be a decimal number (2, 0.5) or carry a unit (2s, 500ms).
`

// Backstop is how many times an AI's time limit (-T) it has on the clock for a line,
// unless -W says otherwise: the limit counts the AI's own time, so that a correct AI does
// not lose on a busy machine, and the clock ends the wait whatever the AI does.
const Backstop = 10

// options are the manager's settings.
type options struct {
	ignoreIllegal bool
	out           string
	stall         time.Duration // -t: a wait after each move
	stallEnter    bool          // -t inf: wait for Enter after each move
	turns         int
	timeout       time.Duration // -T: the AI's own time per line (0: none)
	backstop      time.Duration // -W: the wall time per line (0: none)
	backstopSet   bool          // -W was given
}

// parseArgs reads the arguments as the 2012 manager did: a switch is its first letter
// after '-', one not known is ignored, -t and -T take seconds or "inf", -m turns or "inf".
// status is the exit status when the manager ends there (a usage error, -h, no
// arguments), else -1.
func parseArgs(args []string, stdout, stderr io.Writer) (o options, names [2]string, status int) {
	if len(args) == 0 {
		io.WriteString(stderr, shortUsage)
		return o, names, 0
	}
	o.turns = stratego.DefaultTurnLimit
	o.timeout = DefaultTimeout
	fail := func(format string, a ...any) (options, [2]string, int) {
		fmt.Fprintf(stderr, "stratego: "+format+"\n", a...)
		io.WriteString(stderr, shortUsage)
		return o, names, 1
	}
	var players []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			players = append(players, a)
			continue
		}
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		switch a[1] {
		case 'h':
			io.WriteString(stdout, manual)
			return o, names, 0
		case '-':
			if a == "--help" {
				io.WriteString(stdout, manual)
				return o, names, 0
			}
			return fail("unknown switch %q", a)
		case 'i':
			o.ignoreIllegal = true
		case 'o':
			v, ok := value()
			if !ok || o.out != "" {
				return fail("-o wants one file name, or stdout")
			}
			o.out = v
		case 't':
			v, ok := value()
			d, none, err := seconds(v)
			if !ok || err != nil {
				return fail("-t wants a number of seconds, or inf")
			}
			o.stall, o.stallEnter = d, none
		case 'T':
			v, ok := value()
			d, none, err := seconds(v)
			if !ok || err != nil || d == 0 && !none {
				return fail("-T wants a positive number of seconds, or inf")
			}
			o.timeout = d
		case 'W':
			v, ok := value()
			d, none, err := seconds(v)
			if !ok || err != nil || d == 0 && !none {
				return fail("-W wants a positive number of seconds, or inf")
			}
			o.backstop, o.backstopSet = d, true
		case 'm':
			v, ok := value()
			n, err := turns(v)
			if !ok || err != nil {
				return fail("-m wants a number of turns, or inf")
			}
			o.turns = n
		case 'g', 'I', 'v':
			return fail("%s: this manager draws no graphics", a)
		case 'f':
			return fail("-f: this manager replays no games")
		}
		// -p, -r, -b (the board, the graphics' hidden pieces) and switches not known:
		// ignored, as the 2012 manager built without graphics ignored them.
	}
	if len(players) != 2 {
		return fail("want two AIs, RED and BLUE")
	}
	if !o.backstopSet {
		o.backstop = Backstop * o.timeout
	}
	return o, [2]string{players[0], players[1]}, -1
}

// seconds reads -t's and -T's value: a decimal number of seconds (2, 0.5) or a duration
// with its unit (2s, 500ms); none for "inf" or a negative value.
func seconds(v string) (d time.Duration, none bool, err error) {
	if v == "inf" {
		return 0, true, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err == nil {
		d = time.Duration(f * float64(time.Second))
	} else if d, err = time.ParseDuration(v); err != nil {
		return 0, false, err
	}
	if d < 0 {
		return 0, true, nil
	}
	return d, false, nil
}

// turns reads -m's value: a number of turns; "inf" or a negative number for none; 0 as 1
// (the game is drawn before the first move, as -m 0 in 2012).
func turns(v string) (int, error) {
	if v == "inf" {
		return stratego.NoTurnLimit, nil
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return 0, err
	case n < 0:
		return stratego.NoTurnLimit, nil
	case n == 0:
		return 1, nil
	}
	return n, nil
}
