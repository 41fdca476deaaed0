package stlucia

import (
	"strconv"
	"strings"
)

// MaxPlayers is the largest number of players in a game; labels run from A to Z.
const MaxPlayers = 26

// Label returns the letter of the player with index i (0 is 'A').
func Label(i int) byte { return byte('A' + i) }

// parseLabel reads a one-letter player label.
func parseLabel(s string) (int, error) {
	if len(s) != 1 || s[0] < 'A' || s[0] > 'Z' {
		return 0, formatError(RuleLabel, s)
	}
	return int(s[0] - 'A'), nil
}

// parseNumber reads a positive decimal integer written canonically (no sign, no leading
// zero), so that formatting it again gives the same text. Nine digits at most keeps it far
// from overflow.
func parseNumber(s string) (int, error) {
	if len(s) == 0 || len(s) > 9 || s[0] == '0' {
		return 0, formatError(RuleNumber, s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, formatError(RuleNumber, s)
		}
	}
	n, _ := strconv.Atoi(s)
	return n, nil
}

// MsgKind names a message from the hub to a player.
type MsgKind uint8

// The messages the hub sends.
const (
	MsgTurn       MsgKind = iota + 1 // "turn DDDDDD": your turn, here is your roll
	MsgRerolled                      // "rerolled DDDDDD": the result of your reroll
	MsgRolled                        // "rolled p DDDDDD": player p's final dice
	MsgPoints                        // "points p v": player p scored v points
	MsgAttacks                       // "attacks p v in|out": player p attacks for v
	MsgEliminated                    // "eliminated p": player p is out of the game
	MsgClaim                         // "claim p": player p has claimed StLucia
	MsgStay                          // "stay?": you were attacked in StLucia; stay or go?
	MsgWinner                        // "winner p": player p has won
	MsgShutdown                      // "shutdown": the hub is shutting down
)

var msgWords = [...]string{
	MsgTurn:       "turn",
	MsgRerolled:   "rerolled",
	MsgRolled:     "rolled",
	MsgPoints:     "points",
	MsgAttacks:    "attacks",
	MsgEliminated: "eliminated",
	MsgClaim:      "claim",
	MsgStay:       "stay?",
	MsgWinner:     "winner",
	MsgShutdown:   "shutdown",
}

// String returns the keyword the message starts with.
func (k MsgKind) String() string {
	if k == 0 || int(k) >= len(msgWords) {
		return "MsgKind(" + strconv.Itoa(int(k)) + ")"
	}
	return msgWords[k]
}

// Msg is one message from the hub to a player. Only the fields its Kind uses are set.
type Msg struct {
	Kind   MsgKind
	Player int  // rolled, points, attacks, eliminated, claim, winner: the player's index
	Dice   Roll // turn, rerolled, rolled
	Value  int  // points: points scored; attacks: number of A dice
	Out    bool // attacks: true for "out" of StLucia, false for "in"
}

// String formats m as a protocol line, without the '\n'.
func (m Msg) String() string {
	var b [32]byte
	return string(m.appendTo(b[:0]))
}

func (m Msg) appendTo(b []byte) []byte {
	b = append(b, m.Kind.String()...)
	switch m.Kind {
	case MsgTurn, MsgRerolled:
		b = append(b, ' ')
		b = m.Dice.appendTo(b)
	case MsgRolled:
		b = append(b, ' ', Label(m.Player), ' ')
		b = m.Dice.appendTo(b)
	case MsgPoints:
		b = append(b, ' ', Label(m.Player), ' ')
		b = strconv.AppendInt(b, int64(m.Value), 10)
	case MsgAttacks:
		b = append(b, ' ', Label(m.Player), ' ')
		b = strconv.AppendInt(b, int64(m.Value), 10)
		if m.Out {
			b = append(b, " out"...)
		} else {
			b = append(b, " in"...)
		}
	case MsgEliminated, MsgClaim, MsgWinner:
		b = append(b, ' ', Label(m.Player))
	}
	return b
}

// ParseMsg reads one line from the hub (without its '\n'). The grammar is strict: the
// keyword, then exactly the message's fields separated by single spaces, nothing before or
// after, dice sorted, numbers canonical; so Parse then String gives back the line.
func ParseMsg(line string) (Msg, error) {
	fields := strings.Split(line, " ")
	var m Msg
	for k := MsgTurn; k <= MsgShutdown; k++ {
		if fields[0] == msgWords[k] {
			m.Kind = k
		}
	}
	want := 0
	switch m.Kind {
	case 0:
		return Msg{}, formatError(RuleMsgKind, line)
	case MsgStay, MsgShutdown:
		want = 1
	case MsgTurn, MsgRerolled, MsgEliminated, MsgClaim, MsgWinner:
		want = 2
	case MsgRolled, MsgPoints:
		want = 3
	case MsgAttacks:
		want = 4
	}
	if len(fields) != want {
		return Msg{}, formatError(RuleMsgFields, line)
	}
	var err error
	switch m.Kind {
	case MsgTurn, MsgRerolled:
		m.Dice, err = ParseRoll(fields[1])
	case MsgEliminated, MsgClaim, MsgWinner:
		m.Player, err = parseLabel(fields[1])
	case MsgRolled:
		if m.Player, err = parseLabel(fields[1]); err == nil {
			m.Dice, err = ParseRoll(fields[2])
		}
	case MsgPoints, MsgAttacks:
		if m.Player, err = parseLabel(fields[1]); err == nil {
			m.Value, err = parseNumber(fields[2])
		}
		if err == nil && m.Kind == MsgAttacks {
			switch fields[3] {
			case "in":
			case "out":
				m.Out = true
			default:
				err = formatError(RuleDirection, fields[3])
			}
		}
	}
	if err != nil {
		return Msg{}, err
	}
	return m, nil
}

// ReplyKind names a message from a player to the hub.
type ReplyKind uint8

// The messages a player sends.
const (
	ReplyKeepAll ReplyKind = iota + 1 // "keepall": my dice are final
	ReplyReroll                       // "reroll F...F": reroll one die of each listed face
	ReplyStay                         // "stay": I stay in StLucia
	ReplyGo                           // "go": I leave StLucia
)

// Reply is one message from a player to the hub.
type Reply struct {
	Kind ReplyKind
	// Faces are the faces to reroll, in the order the player listed them (the hub accepts
	// any order; the reference players list them sorted). Set for ReplyReroll only.
	Faces []Face
}

// Reroll returns the reroll message for the dice of r, listed in increasing order, or
// keepall when r is empty.
func Reroll(r Roll) Reply {
	if r.Len() == 0 {
		return Reply{Kind: ReplyKeepAll}
	}
	faces := make([]Face, 0, r.Len())
	for f, c := range r {
		for ; c > 0; c-- {
			faces = append(faces, Face(f))
		}
	}
	return Reply{Kind: ReplyReroll, Faces: faces}
}

// Dice returns the multiset of faces a reroll lists.
func (r Reply) Dice() Roll { return RollOf(r.Faces...) }

// String formats r as a protocol line, without the '\n'.
func (r Reply) String() string {
	switch r.Kind {
	case ReplyKeepAll:
		return "keepall"
	case ReplyStay:
		return "stay"
	case ReplyGo:
		return "go"
	case ReplyReroll:
		b := make([]byte, 0, 7+len(r.Faces))
		b = append(b, "reroll "...)
		for _, f := range r.Faces {
			b = append(b, f.Byte())
		}
		return string(b)
	}
	return "ReplyKind(" + strconv.Itoa(int(r.Kind)) + ")"
}

// ParseReply reads one line from a player (without its '\n'). A line that is none of
// "keepall", "stay", "go" and "reroll " followed by one or more faces is malformed: the hub
// exits 7 for it. Whether a well-formed reply is legal is the engine's business (exit 8).
func ParseReply(line string) (Reply, error) {
	switch line {
	case "keepall":
		return Reply{Kind: ReplyKeepAll}, nil
	case "stay":
		return Reply{Kind: ReplyStay}, nil
	case "go":
		return Reply{Kind: ReplyGo}, nil
	}
	rest, ok := strings.CutPrefix(line, "reroll ")
	if !ok {
		return Reply{}, formatError(RuleMsgKind, line)
	}
	if rest == "" {
		return Reply{}, formatError(RuleRerollFaces, line)
	}
	faces := make([]Face, len(rest))
	for i := 0; i < len(rest); i++ {
		f, ok := FaceOf(rest[i])
		if !ok {
			return Reply{}, formatError(RuleRerollFaces, line)
		}
		faces[i] = f
	}
	return Reply{Kind: ReplyReroll, Faces: faces}, nil
}
