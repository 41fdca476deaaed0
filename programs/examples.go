package programs

// Example is a complete reference game that needs no input from the user: the hub's
// arguments, with the input files it names, taken from the game's spec.
type Example struct {
	Game  string
	Name  string
	About string
	Files map[string]string // file name -> contents
	Args  []string          // the hub's arguments; file names refer to Files
}

// Examples are the built-in games, the first of each game being its default.
var Examples = []Example{
	{
		Game: "dealer2310", Name: "spec",
		About: "the spec's example session: 2310dealer d1.deck p1.path 2310A 2310A",
		Files: map[string]string{"d1.deck": "7ABACDEE\n", "p1.path": "7;::-Mo1V11V22Mo1Mo1::-\n"},
		Args:  []string{"d1.deck", "p1.path", "2310A", "2310A"},
	},
	{
		Game: "stlucia", Name: "x",
		About: "the rules file's first worked example: stlucia x.roll 10 EAIT EAIT",
		Files: map[string]string{"x.roll": "HAHPPPPPPPP1233331111\nAAAA1232322AAA\n"},
		Args:  []string{"x.roll", "10", "EAIT", "EAIT"},
	},
	{
		Game: "stlucia", Name: "z",
		About: "the rules file's second worked example: stlucia z.roll 10 EAIT EAIT",
		Files: map[string]string{"z.roll": "1221AAHHAAHHAAHH12333\n331221AAHHHPPPPP\nPAPAPHHAPPA123\n"},
		Args:  []string{"z.roll", "10", "EAIT", "EAIT"},
	},
	{
		Game: "stratego", Name: "hunter-random",
		About: "the stronger reference AI against the random one: stratego -o stdout stratego-hunter stratego-random",
		Args:  []string{"-o", "stdout", "stratego-hunter", "stratego-random"},
	},
	{
		Game: "clue", Name: "bots",
		About: "a Clue server whose six seats are all bots, one of each kind: clue-server -clients 0 -bots strong,random,sensible,leech,sensible,random 0",
		Args:  []string{"-clients", "0", "-bots", "strong,random,sensible,leech,sensible,random", "0"},
	},
	{
		Game: "referee", Name: "tictactoe",
		About: "a tic-tac-toe match judged by its referee: referee-runner ttt-referee ttt-perfect ttt-random",
		Args:  []string{"ttt-referee", "ttt-perfect", "ttt-random"},
	},
}

// FindExample returns the named example of a game, or its default when name is "".
func FindExample(game, name string) (Example, bool) {
	for _, e := range Examples {
		if e.Game == game && (name == "" || e.Name == name) {
			return e, true
		}
	}
	return Example{}, false
}
