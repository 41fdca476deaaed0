package dealer2310

// MaxPlayers is the largest player count a player accepts. The spec sets no limit; this
// one keeps a player's memory bounded whatever count it is given (see docs/dealer2310.md).
const MaxPlayers = 1 << 16

// DealerArgs are the dealer's command-line arguments.
type DealerArgs struct {
	DeckFile string
	PathFile string
	Programs []string // one or more player programs
}

// ParseDealerArgs checks the dealer's arguments (without the program name): a deck file,
// a path file and at least one player program. It returns ExitUsage if they are too few.
func ParseDealerArgs(args []string) (DealerArgs, int) {
	if len(args) < 3 {
		return DealerArgs{}, ExitUsage
	}
	return DealerArgs{DeckFile: args[0], PathFile: args[1], Programs: args[2:]}, ExitOK
}

// ParsePlayerArgs checks a player's arguments (without the program name), in the spec's
// order: exactly two of them (PlayerExitUsage), a player count of decimal digits from 1 to
// MaxPlayers (PlayerExitCount), and an id of decimal digits below the count
// (PlayerExitID). Leading zeros are accepted, as strtol would.
func ParsePlayerArgs(args []string) (n, me, status int) {
	if len(args) != 2 {
		return 0, 0, PlayerExitUsage
	}
	n, ok := parseArg(args[0])
	if !ok || n < 1 || n > MaxPlayers {
		return 0, 0, PlayerExitCount
	}
	me, ok = parseArg(args[1])
	if !ok || me >= n {
		return 0, 0, PlayerExitID
	}
	return n, me, PlayerExitOK
}

// parseArg reads a non-empty string of decimal digits. Values past MaxPlayers saturate,
// which keeps the result from overflowing and is as invalid as the exact value.
func parseArg(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		if n <= MaxPlayers {
			n = n*10 + int(s[i]-'0')
		}
	}
	return n, true
}
