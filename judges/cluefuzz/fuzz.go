// Package cluefuzz is the black-box fuzzer of Clue programs over TCP, for both roles. It is
// not differential, as the pipe games' fuzzer is (fuzz/blackbox): a client or a server may
// choose its moves, so the engine's judge is the oracle, as in the suites.
//
//   - A client is played live up to a random point of a random game (the mock hub in TCP
//     mode, judge clue), then sent one message no state allows: an unknown name, a known
//     name whose data does not parse, or a message cut by the end of the connection. It must
//     exit 3 with "Protocol error from server".
//   - A server plays a random game with six mock clients (mockclients), one of which sends,
//     in place of one of its answers, a line the rules refuse (the judge is asked first): the
//     server must drop that client and play the rest of the game exactly as the protocol
//     says.
//
// Each failure is written as a case of the Clue suite (a .txtar file that passes on the
// reference and fails on the program), and the same seed gives the same cases.
package cluefuzz

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"gauntlet/fuzz/judgerun"
	"gauntlet/games/clue"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/judges/cluejudges"
)

// Options set up a run: the role, and the campaign (program, seed, stop, output).
type Options struct {
	Role string // "client" or "server"
	judgerun.Campaign
}

func init() {
	judgerun.Register("clue", judgerun.Fuzzer{
		About: "clue (over TCP)",
		Roles: []string{"client", "server"},
		Run: func(role string, c judgerun.Campaign) ([]judgerun.Finding, error) {
			return Run(Options{Role: role, Campaign: c})
		},
	})
}

// Run fuzzes the program and returns what it found; the error is the harness's own.
func Run(o Options) ([]judgerun.Finding, error) {
	switch o.Role {
	case "client":
		return o.Campaign.Run(0xf022, clientCase)
	case "server":
		return o.Campaign.Run(0xf023, serverCase)
	}
	return nil, fmt.Errorf("-role must be client or server")
}

// messageNames are the names a server may send.
var messageNames = []string{clue.MsgHello, clue.MsgTurn, clue.MsgRolled, clue.MsgSuggest, clue.MsgCounter,
	clue.MsgAccuse, clue.MsgWrong, clue.MsgMoved}

// validData is a well-formed data line for each message name.
var validData = map[string]string{
	clue.MsgHello: "(0 (rope 3 C))", clue.MsgTurn: clue.InitialState().String(), clue.MsgRolled: "7",
	clue.MsgSuggest: "?", clue.MsgCounter: "(rope 3)", clue.MsgAccuse: "?", clue.MsgWrong: "!",
	clue.MsgMoved: "(((U V) (24 17) (15 0) (10 0) (0 6) (U S)) 0 (5 rope U) 3)",
}

// dataParses reports whether data is well formed for message name.
func dataParses(name, data string) bool {
	var err error
	switch name {
	case clue.MsgHello:
		_, err = clue.ParseHello(data)
	case clue.MsgTurn:
		_, err = clue.ParseState(data)
	case clue.MsgRolled:
		_, err = clue.ParseRolled(data)
	case clue.MsgCounter:
		_, err = clue.ParseCounter(data)
	case clue.MsgMoved:
		_, err = clue.ParseMoved(data)
	case clue.MsgSuggest, clue.MsgAccuse:
		return data == "?"
	case clue.MsgWrong:
		return data == "!"
	}
	return err == nil
}

// mutate breaks s in one small way.
func mutate(r *rand.Rand, s string) string {
	if s == "" {
		return "x"
	}
	i := r.IntN(len(s))
	switch r.IntN(6) {
	case 0: // drop a byte
		return s[:i] + s[i+1:]
	case 1: // double a byte
		return s[:i] + s[i:i+1] + s[i:]
	case 2: // replace a byte by a printable one
		return s[:i] + string(rune(' '+r.IntN(95))) + s[i+1:]
	case 3: // a trailing space
		return s + " "
	case 4: // a number out of range
		return strings.Replace(s, "1", "99", 1)
	}
	return strings.ToUpper(s)
}

// badMessage returns a message no state of a client allows: a name and data, or a name
// alone and the end of the connection (cut).
func badMessage(r *rand.Rand) (name, data string, cut bool) {
	switch r.IntN(3) {
	case 0: // an unknown name
		for {
			n := mutate(r, messageNames[r.IntN(len(messageNames))])
			if !isName(n) && !strings.ContainsAny(n, "\"\\") {
				return n, "?", false
			}
		}
	case 1: // a known name, data that does not parse
		name = messageNames[r.IntN(len(messageNames))]
		for {
			d := mutate(r, validData[name])
			if !dataParses(name, d) && !strings.ContainsAny(d, "\"\\") {
				return name, d, false
			}
		}
	}
	return messageNames[r.IntN(len(messageNames))], "", true
}

func isName(s string) bool {
	for _, n := range messageNames {
		if n == s {
			return true
		}
	}
	return false
}

func kinds(r *rand.Rand, n int) string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = clue.BrainNames[r.IntN(len(clue.BrainNames))]
	}
	return strings.Join(ks, ",")
}

// clientCase runs one client case; detail is empty when the client behaved.
func clientCase(r *rand.Rand, j *judgerun.Judges, n int) (name, text, detail string, err error) {
	seat, seed, lines := r.IntN(clue.Tokens), 1+r.IntN(1000), 1+r.IntN(40)
	msgName, data, cut := badMessage(r)
	var conv strings.Builder
	fmt.Fprintf(&conv, "tcp\njudge clue seat=%d seed=%d others=%s\nexpect-any\nlive %d\nsend %s\n",
		seat, seed, kinds(r, clue.Tokens-1), lines, strconv.Quote(msgName))
	if cut {
		conv.WriteString("close\n")
	} else {
		fmt.Fprintf(&conv, "send %s\n", strconv.Quote(data))
	}
	conv.WriteString("exit 3\n")
	if _, err := mockhub.Parse(conv.String()); err != nil {
		return "", "", "", fmt.Errorf("clue fuzz: a conversation that does not parse: %v", err)
	}
	report, stderr, err := j.Conversation(conv.String())
	if err != nil {
		return "", "", "", err
	}
	switch {
	case !strings.HasPrefix(report, "ok: "):
		detail = report
	case !strings.HasPrefix(stderr, clue.ProtocolError):
		detail = fmt.Sprintf("stderr %q, want its first line %q", stderr, clue.ProtocolError)
	default:
		return "", "", "", nil
	}
	what := fmt.Sprintf("the message %q / %q", msgName, data)
	if cut {
		what = fmt.Sprintf("the name %q, then the end of the connection", msgName)
	}
	name = fmt.Sprintf("client_fuzz_%d", n)
	text = fmt.Sprintf(`# Found by gauntlet fuzz: after %d lines of a live game (seat %d), %s: the client must exit 3 with "Protocol error from server".
# section: Clients
# category: client/faults
# requirement: "This protocol has the property that the message type sent by a server is always predictable."
# Only the first line of stderr is checked (docs/clue.md): the client may write more lines after it.
run -status 0 mockhub -timeout 2s conv $CLIENT
stdout '^ok: '
cmpprefix stderr want.stderr

-- conv --
%s-- want.stderr --
%s`, lines, seat, what, conv.String(), clue.ProtocolError)
	return name, text, detail, nil
}

// badAnswers are lines a client may send that the rules often refuse.
var badAnswers = []string{"", "dance", "ROLL", "roll ", " roll", "(12 12)", "(25 3)", "(0 0)", "(U S)",
	"(5 spoon U)", "(5 rope)", "(6 rope U)", "spoon", "(- -)", "no-roll", "(3 3)", strings.Repeat("x", 5000)}

// serverCase runs one server case; detail is empty when the server behaved.
func serverCase(r *rand.Rand, j *judgerun.Judges, n int) (name, text, detail string, err error) {
	seed := uint64(1 + r.IntN(1000))
	ks := kinds(r, clue.Tokens)
	for try := 0; try < 20; try++ {
		inj := cluejudges.Injection{Token: r.IntN(clue.Tokens), K: 1 + r.IntN(12)}
		inj.Line = badAnswers[r.IntN(len(badAnswers))]
		if r.IntN(3) == 0 {
			inj.Line = mutate(r, []string{"roll", "accuse", "(17 20)", "(U V)", "(5 rope U)", "rope"}[r.IntN(6)])
		}
		if strings.ContainsAny(inj.Line, "'\"\\") {
			continue
		}
		res, errText, code, err := j.Judge("mockclients", "-timeout", "3s", "-kinds", ks, "-seed", strconv.FormatUint(seed, 10),
			"-inject", fmt.Sprintf("%d:%d:%s", inj.Token, inj.K, inj.Line),
			"--", "-seed", strconv.FormatUint(seed, 10), "-clients", "6", "-t", "1", "0")
		switch {
		case err != nil:
			return "", "", "", err
		case code == 2 && strings.Contains(errText, "is a legal answer"):
			continue // not a fault there: draw another
		case code == 2:
			return "", "", "", fmt.Errorf("the mock clients failed: %s", errText)
		}
		if strings.HasPrefix(res, "ok: ") {
			return "", "", "", nil
		}
		name = fmt.Sprintf("server_fuzz_%d", n)
		text = fmt.Sprintf(`# Found by gauntlet fuzz: the client of token %d sends %q in place of its answer %d; the server must drop it and play the rest of the game as the protocol says.
# section: Server
# category: server/faults
# requirement: "The server knows all the cards that it dealt to the players, so it knows which player must disprove a suggestion, and it checks that the player's response to a moved message is legal."
run -status 0 -timeout 30s mockclients -timeout 3s -kinds %s -seed %d -inject '%d:%d:%s' -- $SERVER -seed %d -clients 6 -t 1 0
stdout '^ok: '
noprocs
`, inj.Token, inj.Line, inj.K, ks, seed, inj.Token, inj.K, inj.Line, seed)
		return name, text, strings.SplitN(res, "\n", 2)[0], nil
	}
	return "", "", "", nil
}
