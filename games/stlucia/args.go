package stlucia

import "math"

// MinPlayers is the fewest players a game has.
const MinPlayers = 2

// HubArgs is the hub's command line once checked.
type HubArgs struct {
	RollFile string   // path of the roll file
	Winscore int      // points to play to
	Programs []string // one program per player, in label order
}

// ParseHubArgs makes the hub's argument checks that need no file, in the spec's order:
// the number of arguments (2 to 26 programs), then winscore. It returns ExitOK, ExitUsage
// or ExitScore. Opening and reading the roll file (ExitRollAccess, ExitRollContent) is the
// hub's I/O and comes after.
func ParseHubArgs(args []string) (HubArgs, int) {
	if len(args) < 2+MinPlayers || len(args) > 2+MaxPlayers {
		return HubArgs{}, ExitUsage
	}
	win, err := ParseWinscore(args[1])
	if err != nil {
		return HubArgs{}, ExitScore
	}
	return HubArgs{RollFile: args[0], Winscore: win, Programs: args[2:]}, ExitOK
}

// ParseWinscore reads winscore: one or more decimal digits (no sign, no spaces) whose value
// is above zero. Leading zeros are allowed ("010" is 10); a value too large for an int is
// taken as the largest int, since it is still a positive integer.
func ParseWinscore(s string) (int, error) {
	if s == "" {
		return 0, formatError(RuleWinscore, s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, formatError(RuleWinscore, s)
		}
		d := int(c - '0')
		if n > (math.MaxInt-d)/10 {
			n = math.MaxInt
		} else {
			n = n*10 + d
		}
	}
	if n == 0 {
		return 0, formatError(RuleWinscore, s)
	}
	return n, nil
}

// ParsePlayerArgs makes a player's argument checks in the spec's order: exactly two
// arguments (ExitUsage), a player count of 2 to 26 written in decimal digits
// (PlayerExitCount), and a label that is one capital letter among the first count letters
// (PlayerExitID). It returns the count, the player's index and the status.
func ParsePlayerArgs(args []string) (n, me, status int) {
	if len(args) != 2 {
		return 0, 0, PlayerExitUsage
	}
	n, err := parsePlayerCount(args[0])
	if err != nil {
		return 0, 0, PlayerExitCount
	}
	id := args[1]
	if len(id) != 1 || id[0] < 'A' || int(id[0]-'A') >= n {
		return 0, 0, PlayerExitID
	}
	return n, int(id[0] - 'A'), PlayerExitOK
}

// parsePlayerCount reads the player count: decimal digits only (leading zeros allowed, any
// number of them), value 2 to 26.
func parsePlayerCount(s string) (int, error) {
	if s == "" {
		return 0, formatError(RulePlayerCount, s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, formatError(RulePlayerCount, s)
		}
		// Past MaxPlayers the value is out of range whatever follows; stop growing it so
		// that a long count cannot overflow.
		n = min(n*10+int(s[i]-'0'), MaxPlayers+1)
	}
	if n < MinPlayers || n > MaxPlayers {
		return 0, formatError(RulePlayerCount, s)
	}
	return n, nil
}
