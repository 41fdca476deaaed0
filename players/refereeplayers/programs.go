// Package refereeplayers holds the example referees and players of the referee protocol as
// programs: thin line loops over gauntlet/games/referee. Each exits 0 at end of input.
package refereeplayers

import (
	"bufio"
	"gauntlet/harness/runtime/csignal"
	"io"
	"math/rand/v2"
	"os"

	"gauntlet/games/referee"
	"gauntlet/harness/runtime/lineio"
)

func lines(stdin io.Reader, stdout io.Writer, hello []string, react func(string) []string) int {
	csignal.Player()
	out := bufio.NewWriter(stdout)
	write := func(ls []string) {
		for _, l := range ls {
			out.WriteString(l)
			out.WriteByte('\n')
		}
		out.Flush()
	}
	write(hello)
	in := lineio.NewReader(stdin)
	for {
		line, err := in.ReadLine()
		if err != nil {
			return 0
		}
		write(react(line))
	}
}

// TTTReferee is the ttt-referee program.
func TTTReferee() int {
	r := referee.NewReferee(&referee.TicTacToe{})
	return lines(os.Stdin, os.Stdout, r.Hello(), r.React)
}

// C4Referee is the c4-referee program.
func C4Referee() int {
	r := referee.NewReferee(referee.NewConnectFour())
	return lines(os.Stdin, os.Stdout, r.Hello(), r.React)
}

func seeded() *rand.Rand {
	s := rand.Uint64()
	return rand.New(rand.NewPCG(s, s))
}

// TTTPlayer is the ttt-random (perfect false) or ttt-perfect program.
func TTTPlayer(perfect bool) int {
	p := &referee.TTTPlayer{Perfect: perfect, R: seeded()}
	return lines(os.Stdin, os.Stdout, nil, func(l string) []string { return []string{p.React(l)} })
}

// C4Player is the c4-random program.
func C4Player() int {
	p := &referee.C4Player{R: seeded()}
	return lines(os.Stdin, os.Stdout, nil, func(l string) []string {
		if m, ok := p.React(l); ok {
			return []string{m}
		}
		return nil
	})
}
