package dealer2310judges

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"

	"gauntlet/fuzz/pipegame"
	"gauntlet/games/contract"
	dl "gauntlet/games/dealer2310"
	"gauntlet/games/judge"
)

// dealer2310 adapts the 2310 path game (hub 2310dealer; players 2310A, 2310B).
type dealer2310 struct{}

func init() { pipegame.Register(dealer2310{}) }

var dealerPlayers = []string{"2310A", "2310B"}

func (dealer2310) Name() string      { return "dealer2310" }
func (dealer2310) Hub() string       { return "2310dealer" }
func (dealer2310) Players() []string { return dealerPlayers }
func (dealer2310) Hello() string     { return string(rune(dl.Hello)) }

// dealerPath returns a random path of 2 to max sites, barrier-ended, with barriers here
// and there and capacities of 1 to 9 (mostly small, so that sites fill up).
func dealerPath(r *rand.Rand, max int) dl.Path {
	n := dl.MinPath + r.IntN(max-dl.MinPath+1)
	p := make(dl.Path, n)
	for i := 1; i < n-1; i++ {
		if r.IntN(6) == 0 {
			continue // a barrier
		}
		p[i] = dl.Site{Type: dl.SiteType(1 + r.IntN(5)), Cap: pipegame.Pick(r, 1, 1, 2, 3, 9)}
	}
	return p
}

// dealerDeck returns a random deck of 4 to 12 cards.
func dealerDeck(r *rand.Rand) dl.Deck {
	d := make(dl.Deck, dl.MinDeck+r.IntN(9))
	for i := range d {
		d[i] = dl.Card(1 + r.IntN(dl.NumCardKinds))
	}
	return d
}

func (g dealer2310) Conversation(r *rand.Rand, player string) ([]string, []judge.Line, error) {
	s, ok := dl.Strategies[player]
	if !ok {
		return nil, nil, errors.New("dealer2310: no reference player " + player)
	}
	for try := 0; try < 50; try++ {
		n := 1 + r.IntN(4)
		me := r.IntN(n)
		strategies := make([]dl.Strategy, n)
		for i := range strategies {
			strategies[i] = dl.Strategies[pipegame.Pick(r, dealerPlayers...)]
		}
		strategies[me] = s
		_, convs, err := dl.Conversations(dealerPath(r, 14), dealerDeck(r), strategies)
		if err != nil || len(convs[me]) > 400 {
			continue
		}
		events := convs[me]
		return []string{strconv.Itoa(n), strconv.Itoa(me)}, events, nil
	}
	return nil, nil, errors.New("dealer2310: the engine made no game in 50 tries")
}

func (dealer2310) Solicits(line string) bool { return line == dl.TextYT }

// dealerCount is the player count in a player's arguments, as the player reads them
// (dl.ParsePlayerArgs); 4 when they are not valid.
func dealerCount(args []string) int {
	if n, _, status := dl.ParsePlayerArgs(args); status == dl.PlayerExitOK {
		return n
	}
	return 4
}

func (g dealer2310) Malformed(r *rand.Rand, line string) string {
	if p, err := dl.ParsePath(line); err == nil {
		count, sites, _ := strings.Cut(line, ";")
		switch r.IntN(6) {
		case 0:
			return strconv.Itoa(len(p)+pipegame.Pick(r, 1, -1)) + ";" + sites // count mismatch
		case 1:
			return count + ";" + strings.TrimSuffix(sites, "::-") + "Mo1" // no final barrier
		case 2:
			return count + sites // no ';'
		case 3:
			return "0" + line // leading zero
		case 4:
			b := []byte(line)
			i := len(count) + 1 + 3*r.IntN(len(p)) + 2
			b[i] = pipegame.Pick(r, byte('0'), 'x', ':') // a capacity or barrier broken
			return string(b)
		}
		return strings.Replace(line, "::-", pipegame.Pick(r, "::", ":: ", "--"), 1)
	}
	m, err := dl.ParseMsg(line)
	if err != nil || m.Kind != dl.MsgHAP {
		return pipegame.Pick(r, strings.ToLower(line), line+" ", " "+line, line+"0", line[:len(line)/2], "HAP", "DO1")
	}
	f := strings.Split(strings.TrimPrefix(line, "HAP"), ",")
	i := r.IntN(len(f))
	switch r.IntN(5) {
	case 0:
		f = append(f[:i], f[i+1:]...) // a field missing
	case 1:
		f = append(f, "0") // a field too many
	case 2:
		sign := "-" // only m, the money field, may be negative
		if i == 3 {
			sign = "--"
		}
		f[i] = pipegame.Pick(r, "0"+f[i], sign+f[i], "+"+f[i], f[i]+"x", "", " "+f[i], "1234567890")
	case 3:
		f[4] = pipegame.Pick(r, "6", "9", "-1", "A")
	default:
		return pipegame.Pick(r, "hap", "HAP ", "HAP") + strings.Join(f, pipegame.Pick(r, ";", ", ", " "))
	}
	return "HAP" + strings.Join(f, ",")
}

func (g dealer2310) Boundary(r *rand.Rand, line string, args []string) string {
	if _, err := dl.ParsePath(line); err == nil {
		return pipegame.Pick(r, "2;::-::-", dl.Path(append(append(dl.Path{{}}, repeatSite(dl.Site{Type: dl.Mo, Cap: 9}, 200)...), dl.Site{})).String(),
			"3;::-Ri9::-", "4;::-Do1Do1::-", "3;::-::-::-")
	}
	m, err := dl.ParseMsg(line)
	if err != nil || m.Kind != dl.MsgHAP {
		return line
	}
	n := dealerCount(args)
	h := &m.HAP
	switch r.IntN(5) {
	case 0:
		h.Player = pipegame.Pick(r, n, n+1, 999999999, 0)
	case 1:
		h.Site = pipegame.Pick(r, 0, 999999999, h.Site+1)
	case 2:
		h.Points = pipegame.Pick(r, 999999999, 100)
	case 3:
		h.Money = pipegame.Pick(r, -999999999, 999999999, -h.Money-1)
	default:
		h.Card = pipegame.Pick(r, dl.NoCard, dl.CardE)
	}
	return m.String()
}

func repeatSite(s dl.Site, n int) []dl.Site {
	out := make([]dl.Site, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func (g dealer2310) Message(r *rand.Rand, args []string) string {
	switch r.IntN(5) {
	case 0:
		return dl.TextYT
	case 1:
		return dl.TextDone
	case 2:
		return dl.TextEarly
	}
	h := dl.HAP{Player: r.IntN(dealerCount(args)), Site: 1 + r.IntN(6), Card: dl.Card(r.IntN(dl.NumCardKinds + 1))}
	switch r.IntN(3) {
	case 0:
		h.Money = 3
	case 1:
		h.Points, h.Money = 1+r.IntN(5), -r.IntN(10)
	}
	return h.String()
}

func (g dealer2310) BadArgs(r *rand.Rand, args []string) []string {
	n, id := "2", "0"
	if len(args) == 2 {
		n, id = args[0], args[1]
	}
	return pipegame.Pick(r,
		[]string{}, []string{n}, []string{n, id, id},
		[]string{"0", "0"}, []string{"", id}, []string{"x", id}, []string{"-1", id}, []string{"65537", id},
		[]string{"0" + n, "0" + id}, []string{n + " ", id}, []string{n, n}, []string{n, "x"}, []string{n, ""}, []string{n, "-0"},
	)
}

func (g dealer2310) Setup(r *rand.Rand) pipegame.HubSetup {
	n := 1 + r.IntN(4)
	players := make([]string, n)
	for i := range players {
		players[i] = pipegame.Pick(r, dealerPlayers...)
	}
	return pipegame.HubSetup{
		Files:   map[string]string{"game.deck": dealerDeck(r).String() + "\n", "game.path": dealerPath(r, 14).String() + "\n"},
		Args:    []string{"game.deck", "game.path"},
		Players: players,
	}
}

func (g dealer2310) BadSetup(r *rand.Rand, s pipegame.HubSetup) pipegame.HubSetup {
	s = s.Clone()
	deck := strings.TrimSuffix(s.Files["game.deck"], "\n")
	path := strings.TrimSuffix(s.Files["game.path"], "\n")
	switch r.IntN(5) {
	case 0: // a bad deck
		count, _ := strconv.Atoi(strings.TrimRight(deck, "ABCDE"))
		cards := strings.TrimLeft(deck, "0123456789")
		s.Files["game.deck"] = pipegame.Pick(r, deck+"A", "0"+deck, deck+"\r", deck+"\n"+deck, strconv.Itoa(count)+strings.ToLower(cards),
			"3ABC", strconv.Itoa(count)+cards[:len(cards)-1]+"F", "") + "\n"
	case 1: // a bad path
		count, sites, _ := strings.Cut(path, ";")
		s.Files["game.path"] = pipegame.Pick(r, "0"+path, path+"\r", count+";"+sites+"::-", count+sites, "1;::-",
			count+";"+strings.Replace(sites, "::-", "::", 1), path+"\n"+path) + "\n"
	case 2: // no such file
		s.Args[r.IntN(2)] = pipegame.Pick(r, "missing.deck", "missing.path")
	case 3: // deck and path swapped
		s.Args[0], s.Args[1] = s.Args[1], s.Args[0]
	default: // no players
		s.Players = nil
	}
	return s
}

func (g dealer2310) BadReply(r *rand.Rand) string {
	return pipegame.Pick(r, "DO1", "DO2", "DO0", "DO999999999", "DO", "DO-1", "DO01", "DO 1", "do1", "DONE", "YT", "HAP0,1,0,0,0", "DO1 ", "")
}

// Smaller drops runs of cards from a valid deck (keeping four) and runs of inner sites from
// a valid path, with their counts made right; files that are not valid are cut as bytes.
func (dealer2310) Smaller(s pipegame.HubSetup) []pipegame.HubSetup {
	var out []pipegame.HubSetup
	for _, name := range s.FileNames() {
		data := s.Files[name]
		if d, err := dl.ParseDeckFile([]byte(data)); err == nil {
			for _, ch := range pipegame.Chunks(len(d)) {
				if len(d)-(ch[1]-ch[0]) < dl.MinDeck {
					continue
				}
				v := s.Clone()
				v.Files[name] = append(append(dl.Deck(nil), d[:ch[0]]...), d[ch[1]:]...).String() + "\n"
				out = append(out, v)
			}
			continue
		}
		if p, err := dl.ParsePathFile([]byte(data)); err == nil {
			inner := p[1 : len(p)-1]
			for _, ch := range pipegame.Chunks(len(inner)) {
				q := append(dl.Path{p[0]}, inner[:ch[0]]...)
				q = append(append(q, inner[ch[1]:]...), p[len(p)-1])
				v := s.Clone()
				v.Files[name] = q.String() + "\n"
				out = append(out, v)
			}
			continue
		}
		one := pipegame.HubSetup{Files: map[string]string{name: data}}
		for _, b := range pipegame.SmallerBytes(one) {
			v := s.Clone()
			v.Files[name] = b.Files[name]
			out = append(out, v)
		}
	}
	return out
}

// Finite: every dealer game ends, since each move takes a player forward.
func (dealer2310) Finite(pipegame.HubSetup) bool { return true }

func (dealer2310) Category(role pipegame.Role, program, kind string) (string, string) {
	if role == pipegame.RoleHub {
		switch kind {
		case "args":
			return "Dealer errors", "dealer/argument checking"
		case "hello":
			return "Dealer errors", "dealer/starting players"
		}
		return "Dealer errors", "dealer/comms errors and SIGHUP"
	}
	a := program == "2310A"
	switch kind {
	case "args":
		if a {
			return "Player errors", "2310A/arg checking"
		}
		return "Player errors", "2310B/arg checking and path output"
	case "signal", "delay", "split", "wrong-turn":
		if a {
			return "Player A strategy", "2310A/multiplayer games"
		}
		return "Player B strategy", "2310B/complete games"
	}
	if a {
		return "Player errors", "2310A/comms errors"
	}
	return "Player errors", "2310B/comms errors"
}

func (dealer2310) Contract(role pipegame.Role) contract.Table {
	if role == pipegame.RoleHub {
		return dl.DealerContract
	}
	return dl.PlayerContract
}

// LineRule names the kinds of line the dealer writes on stdout and the players on stderr
// (the same display and status lines), and the players' moves.
func (dealer2310) LineRule(role pipegame.Role, stream, line string) (string, string) {
	display := (role == pipegame.RoleHub) == (stream == "stdout")
	switch {
	case role == pipegame.RolePlayer && stream == "stdout" && strings.HasPrefix(line, "DO"):
		return "move", "on YT, the move the player's strategy chooses (DOn)"
	case !display:
		return "", ""
	case strings.HasPrefix(line, "Player "):
		return "status", "after each move, the mover's status line (Player p Money=m V1=a V2=b Points=s A=.. E=..)"
	case strings.HasPrefix(line, "Scores: "):
		return "scores", "at the end of the game, every player's score, in player order (Scores: a,b,...)"
	case strings.HasPrefix(line, "::"):
		return "display", "the path display: each site's type and a space, 3 columns a site, then the players' ids in each site's first column, by order of arrival, every row padded to the top line's width"
	case strings.TrimLeft(line, "0123456789 ") == "":
		return "display", "the path display: each site's type and a space, 3 columns a site, then the players' ids in each site's first column, by order of arrival, every row padded to the top line's width"
	}
	return "", ""
}

func (dealer2310) Refusal(program string, args, lines []string) string {
	n, me, status := dl.ParsePlayerArgs(args)
	strategy, ok := dl.Strategies[program]
	if status != dl.PlayerExitOK || !ok {
		return ""
	}
	p := dl.NewPlayer(strategy, n, me)
	for _, l := range lines {
		if r := p.Handle(l); r.Done {
			var he *dl.HAPError
			if errors.As(r.Err, &he) {
				return "HAP: " + he.Rule
			}
			return pipegame.ErrorRule(r.Err)
		}
	}
	return ""
}
