package dealer2310

import "errors"

// Stdout is the Out.To of a line the dealer prints on its standard output.
const Stdout = -1

// Out is one line the dealer emits: a message to player To, or a line of its standard
// output when To is Stdout. Line has no '\n'; the dealer adds one to every line.
type Out struct {
	To   int
	Line string
}

// Dealer is the dealer's side of a game: the engine plus the conversation the spec
// prescribes around it (the path to each player after its handshake, the display, YT to
// the player whose turn it is, HAP to everyone after each move, DONE or EARLY at the end).
// It does no I/O: each step returns the lines to send and print, in order.
type Dealer struct {
	g        Game
	pathLine string
	awaiting int // the player whose move is awaited, or -1
	ended    bool
}

// ErrNotAwaiting is returned by Reply when no move is awaited (before Begin, or after the
// game ended).
var ErrNotAwaiting = errors.New("dealer2310: no move is awaited")

// NewDealer returns the dealer of a game on path with deck between n players. It sends
// each player the path formatted (Path.String).
func NewDealer(path Path, deck Deck, n int) (*Dealer, error) {
	return NewDealerAsRead(path, path.String(), deck, n)
}

// NewDealerAsRead is NewDealer for a path read from a file whose line (without its '\n')
// is line: it sends each player that line as read, as the notes say the dealer does. With
// the strict grammar of ParsePath it is path.String() byte for byte; a dealer that reads
// counts more leniently forwards what the file holds.
func NewDealerAsRead(path Path, line string, deck Deck, n int) (*Dealer, error) {
	g, err := New(path, deck, n)
	if err != nil {
		return nil, err
	}
	return &Dealer{g: g, pathLine: line, awaiting: -1}, nil
}

// Game returns the game as it stands (read it only).
func (d *Dealer) Game() *Game { return &d.g }

// Clone returns an independent copy of the dealer.
func (d *Dealer) Clone() *Dealer {
	c := *d
	c.g = d.g.Clone()
	return &c
}

// Welcome is what the dealer sends player i as soon as it has read the player's
// handshake (Hello): the path line.
func (d *Dealer) Welcome(i int) []Out {
	return []Out{{To: i, Line: d.pathLine}}
}

// Begin starts the game once every player has started: the initial display, then YT to
// the first player to move.
func (d *Dealer) Begin() []Out {
	outs := d.display(nil)
	return d.prompt(outs)
}

// Awaiting returns the player whose move the dealer waits for, or -1.
func (d *Dealer) Awaiting() int { return d.awaiting }

// Ended reports whether the game is over, normally (DONE) or early (EARLY).
func (d *Dealer) Ended() bool { return d.ended }

// Reply handles the line the awaited player sent. A valid move gives HAP to every player,
// the mover's status line and the display on stdout, then YT to the next player, or DONE
// to every player and the scores when the game is over. An invalid line (not a DO message,
// or an illegal move) gives EARLY to every player and the error that says why; the caller
// then ends with a communications error.
func (d *Dealer) Reply(line string) ([]Out, error) {
	if d.awaiting < 0 {
		return nil, ErrNotAwaiting
	}
	site, err := ParsePlayerMsg(line)
	if err != nil {
		return d.Abort(), err
	}
	h, err := d.g.Move(site)
	if err != nil {
		return d.Abort(), err
	}
	msg := h.String()
	outs := make([]Out, 0, 2*len(d.g.players)+8)
	for i := range d.g.players {
		outs = append(outs, Out{To: i, Line: msg})
	}
	outs = append(outs, Out{To: Stdout, Line: d.g.StatusLine(h.Player)})
	outs = d.display(outs)
	if d.g.Over() {
		d.awaiting = -1
		d.ended = true
		for i := range d.g.players {
			outs = append(outs, Out{To: i, Line: TextDone})
		}
		return append(outs, Out{To: Stdout, Line: d.g.ScoresLine()}), nil
	}
	return d.prompt(outs), nil
}

// Abort ends the game early: EARLY to every player. The dealer calls it for any invalid
// message, including EOF or a read error on a player's pipe.
func (d *Dealer) Abort() []Out {
	d.awaiting = -1
	d.ended = true
	outs := make([]Out, len(d.g.players))
	for i := range outs {
		outs[i] = Out{To: i, Line: TextEarly}
	}
	return outs
}

func (d *Dealer) display(outs []Out) []Out {
	for _, l := range d.g.DisplayLines() {
		outs = append(outs, Out{To: Stdout, Line: l})
	}
	return outs
}

func (d *Dealer) prompt(outs []Out) []Out {
	d.awaiting = d.g.Next()
	return append(outs, Out{To: d.awaiting, Line: TextYT})
}
