package stluciajudges

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"

	"gauntlet/fuzz/pipegame"
	"gauntlet/games/contract"
	"gauntlet/games/judge"
	st "gauntlet/games/stlucia"
)

// stlucia adapts King of St Lucia (hub stlucia; players EAIT, SCIENCE, HABS, HASS, MABS).
type stlucia struct{}

func init() { pipegame.Register(stlucia{}) }

var stluciaPlayers = []string{"EAIT", "SCIENCE", "HABS", "HASS", "MABS"}

func (stlucia) Name() string      { return "stlucia" }
func (stlucia) Hub() string       { return "stlucia" }
func (stlucia) Players() []string { return stluciaPlayers }
func (stlucia) Hello() string     { return "!" }

// stluciaRolls returns a random roll stream: uniform faces, or (one time in three) faces
// weighted towards A so that games have claims, attacks and eliminations.
func stluciaRolls(r *rand.Rand, min, max int) []st.Face {
	n := min + r.IntN(max-min+1)
	attacky := r.IntN(3) == 0
	rolls := make([]st.Face, n)
	for i := range rolls {
		rolls[i] = st.Face(r.IntN(st.NumFaces))
		if attacky && r.IntN(3) == 0 {
			rolls[i] = st.Attack
		}
	}
	return rolls
}

func (g stlucia) Conversation(r *rand.Rand, player string) ([]string, []judge.Line, error) {
	s, ok := st.Strategies[player]
	if !ok {
		return nil, nil, errors.New("stlucia: no reference player " + player)
	}
	for try := 0; try < 50; try++ {
		n := st.MinPlayers + r.IntN(4)
		me := r.IntN(n)
		strategies := make([]st.Strategy, n)
		for i := range strategies {
			strategies[i] = st.Strategies[pipegame.Pick(r, stluciaPlayers...)]
		}
		strategies[me] = s
		convs, err := st.Conversations(stluciaRolls(r, 6, 48), 2+r.IntN(14), strategies, 2000)
		if err != nil || len(convs[me]) > 400 {
			continue
		}
		events := convs[me]
		return []string{strconv.Itoa(n), string(st.Label(me))}, events, nil
	}
	return nil, nil, errors.New("stlucia: the engine made no short game in 50 tries")
}

func (stlucia) Solicits(line string) bool {
	m, err := st.ParseMsg(line)
	return err == nil && (m.Kind == st.MsgTurn || m.Kind == st.MsgRerolled || m.Kind == st.MsgStay)
}

// stluciaCount is the player count in a player's arguments, as the player reads them
// (st.ParsePlayerArgs); 26 when they are not valid.
func stluciaCount(args []string) int {
	if n, _, status := st.ParsePlayerArgs(args); status == st.PlayerExitOK {
		return n
	}
	return st.MaxPlayers
}

func (g stlucia) Malformed(r *rand.Rand, line string) string {
	f := strings.Split(line, " ")
	m, err := st.ParseMsg(line)
	switch r.IntN(6) {
	case 0: // the keyword's case
		if r.IntN(2) == 0 {
			f[0] = strings.ToUpper(f[0])
		} else if f[0] != "" {
			f[0] = strings.ToUpper(f[0][:1]) + f[0][1:]
		}
	case 1: // a field missing
		if len(f) > 1 {
			f = f[:len(f)-1]
		} else {
			f = append(f, "A")
		}
	case 2: // a field too many
		f = append(f, pipegame.Pick(r, "A", "1", "x", f[len(f)-1]))
	case 3: // spacing
		switch r.IntN(3) {
		case 0:
			return " " + line
		case 1:
			return line + " "
		default:
			if !strings.Contains(line, " ") {
				return line + "\t"
			}
			return strings.Replace(line, " ", pipegame.Pick(r, "  ", "\t"), 1)
		}
	case 4: // a field of the wrong form
		if err != nil || len(f) < 2 {
			return line + "?"
		}
		i := 1 + r.IntN(len(f)-1)
		switch {
		case len(f[i]) == 6 && (m.Kind == st.MsgTurn || m.Kind == st.MsgRerolled || m.Kind == st.MsgRolled):
			f[i] = badDice(r, f[i])
		case i == 1 && m.Kind != st.MsgTurn && m.Kind != st.MsgRerolled:
			f[i] = pipegame.Pick(r, strings.ToLower(f[i]), f[i]+f[i], "1", "@", "[", "")
		case i == 3:
			f[i] = pipegame.Pick(r, "IN", "Out", "up", "inn", "")
		default:
			f[i] = pipegame.Pick(r, "0", "01", "-1", "+1", "1x", "1234567890", "")
		}
	default: // another keyword
		f[0] = pipegame.Pick(r, "turns", "stay", "winners", "roll", "point", "attack", "eliminate", "hello", "")
	}
	return strings.Join(f, " ")
}

// badDice breaks a dice word: unsorted, too few or too many, lowercase, or a wrong face.
func badDice(r *rand.Rand, d string) string {
	switch r.IntN(5) {
	case 0:
		b := []byte(d)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		if string(b) == d { // a palindrome, such as 111111: one die short instead
			return d[:5]
		}
		return string(b)
	case 1:
		return d[:5]
	case 2:
		return d + "P"
	case 3:
		return strings.ToLower(d[:5]) + "p"
	}
	b := []byte(d)
	b[r.IntN(6)] = pipegame.Pick(r, byte('4'), '0', 'X', 'h')
	return string(b)
}

func (g stlucia) Boundary(r *rand.Rand, line string, args []string) string {
	m, err := st.ParseMsg(line)
	if err != nil {
		return line
	}
	n := stluciaCount(args)
	labels := []int{0, st.MaxPlayers - 1, n - 1}
	if n < st.MaxPlayers {
		labels = append(labels, n, n) // the first label beyond the game, twice as likely
	}
	switch m.Kind {
	case st.MsgRolled, st.MsgPoints, st.MsgAttacks, st.MsgEliminated, st.MsgClaim, st.MsgWinner:
		if r.IntN(2) == 0 {
			m.Player = pipegame.Pick(r, labels...)
			return m.String()
		}
	}
	switch m.Kind {
	case st.MsgPoints, st.MsgAttacks:
		m.Value = pipegame.Pick(r, 1, 6, 7, 10, 99, 999999999)
	case st.MsgTurn, st.MsgRerolled, st.MsgRolled:
		var d st.Roll
		d[r.IntN(st.NumFaces)] = st.DiceCount
		m.Dice = d
	default:
		return g.Message(r, args)
	}
	return m.String()
}

func (g stlucia) Message(r *rand.Rand, args []string) string {
	n := stluciaCount(args)
	var d st.Roll
	for i := 0; i < st.DiceCount; i++ {
		d[r.IntN(st.NumFaces)]++
	}
	m := st.Msg{Kind: st.MsgKind(1 + r.IntN(10)), Player: r.IntN(n), Dice: d, Value: 1 + r.IntN(6), Out: r.IntN(2) == 0}
	switch m.Kind {
	case st.MsgTurn, st.MsgRerolled:
		m.Player = 0
	case st.MsgStay, st.MsgShutdown:
		m.Player, m.Dice = 0, st.Roll{}
	}
	if m.Kind != st.MsgTurn && m.Kind != st.MsgRerolled && m.Kind != st.MsgRolled {
		m.Dice = st.Roll{}
	}
	if m.Kind != st.MsgPoints && m.Kind != st.MsgAttacks {
		m.Value = 0
	}
	if m.Kind != st.MsgAttacks {
		m.Out = false
	}
	return m.String()
}

func (g stlucia) BadArgs(r *rand.Rand, args []string) []string {
	n, id := "2", "A"
	if len(args) == 2 {
		n, id = args[0], args[1]
	}
	count := stluciaCount(args)
	beyond := "Z"
	if count < st.MaxPlayers {
		beyond = string(st.Label(count))
	}
	return pipegame.Pick(r,
		[]string{}, []string{n}, []string{n, id, id},
		[]string{"1", id}, []string{"27", id}, []string{"0", id}, []string{"x", id}, []string{"", id},
		[]string{"0" + n, id}, []string{"+" + n, id}, []string{n + " ", id},
		[]string{n, strings.ToLower(id)}, []string{n, id + id}, []string{n, beyond}, []string{n, ""}, []string{n, "["},
	)
}

func (g stlucia) Setup(r *rand.Rand) pipegame.HubSetup {
	for {
		rolls := stluciaRolls(r, 6, 60)
		var b strings.Builder
		for i, f := range rolls {
			b.WriteByte(f.Byte())
			if r.IntN(12) == 0 || i == len(rolls)-1 {
				b.WriteByte('\n')
			}
		}
		n := st.MinPlayers + r.IntN(4)
		players := make([]string, n)
		for i := range players {
			players[i] = pipegame.Pick(r, stluciaPlayers...)
		}
		s := pipegame.HubSetup{
			Files:   map[string]string{"game.roll": b.String()},
			Args:    []string{"game.roll", strconv.Itoa(2 + r.IntN(14))},
			Players: players,
		}
		if g.Finite(s) {
			return s
		}
	}
}

// Smaller cuts runs of dice out of the roll file.
func (stlucia) Smaller(s pipegame.HubSetup) []pipegame.HubSetup { return pipegame.SmallerBytes(s) }

// stluciaMaxReplies bounds the honest games Finite accepts: a few seconds of a real hub.
const stluciaMaxReplies = 3000

func (g stlucia) Finite(s pipegame.HubSetup) bool {
	if len(s.Args) != 2 || len(s.Players) < st.MinPlayers || len(s.Players) > st.MaxPlayers {
		return true // refused at once
	}
	win, err := st.ParseWinscore(s.Args[1])
	data, ok := s.Files[s.Args[0]]
	if err != nil || !ok {
		return true
	}
	rf, err := st.ParseRollFile([]byte(data))
	if err != nil {
		return true
	}
	strategies := make([]st.Strategy, len(s.Players))
	for i, p := range s.Players {
		if strategies[i], ok = st.Strategies[p]; !ok {
			return true
		}
	}
	_, err = st.Simulate(rf.Dice(), win, strategies, stluciaMaxReplies)
	return err == nil
}

func (g stlucia) BadSetup(r *rand.Rand, s pipegame.HubSetup) pipegame.HubSetup {
	s = s.Clone()
	switch r.IntN(5) {
	case 0: // a byte that is no face
		data := s.Files["game.roll"]
		at := r.IntN(len(data))
		s.Files["game.roll"] = data[:at] + pipegame.Pick(r, "p", "4", " ", "\r", "\x00", "h") + data[at:]
	case 1: // no dice
		s.Files["game.roll"] = pipegame.Pick(r, "\n", "\n\n\n")
	case 2: // no such file
		s.Args[0] = "missing.roll"
	case 3: // winscore
		s.Args[1] = pipegame.Pick(r, "0", "-1", "x", "1.5", "", "+3", " 5", "5 ", "010", "99999999999999999999")
	default: // too few players
		s.Players = s.Players[:1]
	}
	return s
}

func (g stlucia) BadReply(r *rand.Rand) string {
	return pipegame.Pick(r, "keepall", "keepall", "reroll 1", "stay", "go",
		"keepall ", "KEEPALL", "keep all", "reroll", "reroll ", "reroll 4", "reroll 1 2", "reroll h",
		"reroll 1111111", "reroll PPPPPP", "reroll 123HAP", "stay?", "DO1")
}

func (stlucia) Category(role pipegame.Role, _, kind string) (string, string) {
	if role == pipegame.RolePlayer {
		switch kind {
		case "args":
			return "Exit status for player", "players/arguments"
		case "signal", "delay", "split", "wrong-turn":
			return "Messages from stlucia to player", "players/game play"
		}
		return "Exit status for player", "players/comms errors"
	}
	switch kind {
	case "args":
		return "Exit status for stlucia", "hub/arguments"
	case "hello":
		return "Exit status for stlucia", "hub/starting players"
	case "hang", "signal":
		return "Shutting down stlucia", "hub/signals and shutdown"
	}
	return "Exit status for stlucia", "hub/player faults"
}

func (stlucia) Contract(role pipegame.Role) contract.Table {
	if role == pipegame.RoleHub {
		return st.HubContract
	}
	return st.PlayerContract
}

// LineRule names the kinds of line the hub writes on stderr and the players write on
// stdout (their replies) and stderr (the echo of each message).
func (stlucia) LineRule(role pipegame.Role, stream, line string) (string, string) {
	first, _, _ := strings.Cut(line, " ")
	switch {
	case role == pipegame.RoleHub && stream == "stderr" && first == "Player":
		return "report", "the hub's account of the game on stderr (Player X rolled, healed, took damage, claimed StLucia, scored, wins), in the order a turn is processed"
	case role == pipegame.RolePlayer && stream == "stderr" && strings.HasPrefix(line, "From StLucia:"):
		return "echo", "every line from the hub echoed as From StLucia:LINE before it is acted on"
	case role == pipegame.RolePlayer && stream == "stdout" && (first == "reroll" || first == "keepall"):
		return "dice", "on turn and rerolled, the dice the player's strategy rerolls (reroll FACES, or keepall)"
	case role == pipegame.RolePlayer && stream == "stdout" && (first == "stay" || first == "go"):
		return "stay", "on stay?, the answer of the player's strategy (stay or go)"
	}
	return "", ""
}

func (stlucia) Refusal(program string, args, lines []string) string {
	n, me, status := st.ParsePlayerArgs(args)
	strategy, ok := st.Strategies[program]
	if status != st.PlayerExitOK || !ok {
		return ""
	}
	p := st.NewPlayer(strategy, n, me)
	for _, l := range lines {
		if _, _, done, err := p.Handle(l); err != nil {
			if r := pipegame.ErrorRule(err); r != "" && pipegame.IsCodecError(err) {
				return r
			}
			// The view's one refusal (View.Observe).
			return "a message names only players of the game"
		} else if done {
			return ""
		}
	}
	return ""
}
