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

// Examples are the built-in games, registered by each game's file in programs/; the first
// of each game is its default.
var Examples []Example

func registerExample(es ...Example) { Examples = append(Examples, es...) }

// FindExample returns the named example of a game, or its default when name is "".
func FindExample(game, name string) (Example, bool) {
	for _, e := range Examples {
		if e.Game == game && (name == "" || e.Name == name) {
			return e, true
		}
	}
	return Example{}, false
}
