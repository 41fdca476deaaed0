package dealer2310

import (
	"strconv"
	"strings"
)

// Hello is the byte each player sends first, without a newline, once its arguments are
// checked.
const Hello = '^'

// MsgKind names a message of the protocol (the path line aside, which ParsePath reads).
type MsgKind uint8

// The messages. YT, HAP, EARLY and DONE go from the dealer to players; DO goes from a
// player to the dealer.
const (
	MsgYT    MsgKind = iota + 1 // "YT": your turn, send a move
	MsgDO                       // "DOn": move me to site n
	MsgHAP                      // "HAPp,n,s,m,c": player p moved to site n
	MsgEarly                    // "EARLY": the game ended early (communications error)
	MsgDone                     // "DONE": the game ended normally
)

// HAP is the content of a HAP message: player Player moved to site Site, gained Points
// points, its money changed by Money (which may be negative) and it drew Card (NoCard when
// it drew none).
type HAP struct {
	Player int
	Site   int
	Points int
	Money  int
	Card   Card
}

// String returns the HAP message without '\n', e.g. "HAP0,1,0,3,0".
func (h HAP) String() string {
	b := make([]byte, 0, 24)
	b = append(b, "HAP"...)
	b = strconv.AppendInt(b, int64(h.Player), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(h.Site), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(h.Points), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(h.Money), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(h.Card), 10)
	return string(b)
}

// Msg is one message. Site is set for MsgDO, HAP for MsgHAP.
type Msg struct {
	Kind MsgKind
	Site int
	HAP  HAP
}

// The message texts without fields.
const (
	TextYT    = "YT"
	TextEarly = "EARLY"
	TextDone  = "DONE"
)

// MoveMsg returns the DO message asking for site n.
func MoveMsg(n int) Msg { return Msg{Kind: MsgDO, Site: n} }

// String returns the message line without '\n'.
func (m Msg) String() string {
	switch m.Kind {
	case MsgYT:
		return TextYT
	case MsgDO:
		return "DO" + strconv.Itoa(m.Site)
	case MsgHAP:
		return m.HAP.String()
	case MsgEarly:
		return TextEarly
	case MsgDone:
		return TextDone
	}
	return "?"
}

// ParseMsg parses one message line without its '\n'.
func ParseMsg(line string) (Msg, error) {
	switch {
	case line == TextYT:
		return Msg{Kind: MsgYT}, nil
	case line == TextEarly:
		return Msg{Kind: MsgEarly}, nil
	case line == TextDone:
		return Msg{Kind: MsgDone}, nil
	case strings.HasPrefix(line, "DO") && !strings.HasPrefix(line, TextDone):
		n, ok := parseNumber(line[2:], false)
		if !ok {
			return Msg{}, formatError(RuleMsgNumber, line)
		}
		return Msg{Kind: MsgDO, Site: n}, nil
	case strings.HasPrefix(line, "HAP"):
		h, err := parseHAP(line)
		if err != nil {
			return Msg{}, err
		}
		return Msg{Kind: MsgHAP, HAP: h}, nil
	}
	return Msg{}, formatError(RuleMsgKind, line)
}

// ParsePlayerMsg parses a line a player sent the dealer: it must be a DO message. It
// returns the site asked for.
func ParsePlayerMsg(line string) (int, error) {
	m, err := ParseMsg(line)
	if err != nil {
		return 0, err
	}
	if m.Kind != MsgDO {
		return 0, formatError(RuleFromPlayer, line)
	}
	return m.Site, nil
}

// ParseDealerMsg parses a line the dealer sent a player (after the path): YT, HAP, EARLY
// or DONE.
func ParseDealerMsg(line string) (Msg, error) {
	m, err := ParseMsg(line)
	if err != nil {
		return Msg{}, err
	}
	if m.Kind == MsgDO {
		return Msg{}, formatError(RuleFromDealer, line)
	}
	return m, nil
}

func parseHAP(line string) (HAP, error) {
	f := strings.Split(line[len("HAP"):], ",")
	if len(f) != 5 {
		return HAP{}, formatError(RuleHAPFields, line)
	}
	var v [5]int
	for i, s := range f {
		signed := i == 3
		if !signed && strings.HasPrefix(s, "-") {
			if _, ok := parseNumber(s[1:], false); ok {
				return HAP{}, formatError(RuleHAPSign, line)
			}
		}
		n, ok := parseNumber(s, signed)
		if !ok {
			return HAP{}, formatError(RuleMsgNumber, line)
		}
		v[i] = n
	}
	if v[4] > int(CardE) {
		return HAP{}, formatError(RuleHAPCard, line)
	}
	return HAP{Player: v[0], Site: v[1], Points: v[2], Money: v[3], Card: Card(v[4])}, nil
}

// parseNumber reads a decimal integer written canonically: digits without leading zeros,
// with a '-' in front when signed allows it ("-0" is not canonical). Nine digits at most
// keeps it far from overflow.
func parseNumber(s string, signed bool) (int, bool) {
	neg := false
	if signed && strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 9 || (len(s) > 1 && s[0] == '0') || (neg && s == "0") {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(s)
	if neg {
		n = -n
	}
	return n, true
}
