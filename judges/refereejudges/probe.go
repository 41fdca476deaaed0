package refereejudges

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"gauntlet/games/referee"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/judges/outcome"
	"gauntlet/harness/runtime/transcript"
)

// A conversation's `referee` line makes the program a referee of the referee protocol,
// of any game, and the mock hub probes it as the match runner would (docs/referee.md):
//
//	referee check=scores [seed=N] [games=N] [sessions=N] [time=D] [mutate=1]
//
// It starts the referee again and again (a session each), reads its features, sends the
// player count and two names, and plays moves it makes up: words of moves the referee
// accepted, words of the lines it writes to the players (write_lines), small numbers. A
// move judged `invalid` ends the session, as it ends a match; the next session replays the
// moves accepted so far and sends that move again, and after a game ends the next session
// replays the whole game: the same moves must get the same verdicts. The probe stops when
// `games` games have ended (default 1), after `sessions` sessions (default 400), or once
// the referee has used `time` of CPU (default 12s: a referee that starts slowly, 400 times,
// must not outlast its case's deadline; a part not reached by then fails as not checked;
// CPU time, which the machine's load does not change, with ten times as much wall time as
// a backstop). Not every move judged `invalid` is sent again (a session each): the first
// two, and up to ten more shaped like an accepted move.
//
// Each case marks one of the protocol's parts, its check:
//
//	handshake    feature lines (`feature NAME`, known features only) and feature_end
//	verdicts     every answer to a move is valid, invalid or `valid end`, in time
//	blocks       with write_lines, every block's lines are `<0|1> <text>`, ended by write_end
//	scores       after `valid end` (and its block), two integers
//	ending       after `invalid`, or after the scores, the runner closes the referee's
//	             input: the referee writes nothing more and exits
//	consistency  the same moves in the same position get the same verdicts
//
// check=all (the fuzzer's) stops at the first breach of any part and names it. mutate=1
// also sends mutated moves (a '\r' before the newline, doubled, leading or trailing
// spaces, a tab, an empty line, a line of 5000 bytes, bytes that are not UTF-8): the
// runner passes a player's line as it came, so a referee must answer each.
//
// A breach of another part than the one checked is worked around where the probe can
// (an unknown feature ignored, a block ended by silence, a malformed verdict read as the
// end of a session), so that each bug costs marks in its own part; a part that the probe
// could not reach (no game ended, say) fails as not checked.
type Spec struct {
	Check    string // one of Checks, or "all"
	Mutate   bool
	Seed     uint64
	Games    int
	Sessions int
	Time     time.Duration
}

// Checks are the parts of the protocol a referee probe checks, by name.
var Checks = []string{"handshake", "verdicts", "blocks", "scores", "ending", "consistency"}

// Parse reads a referee line's settings (the words after `referee`): it is the probe, as
// mockhub.RegisterProbe takes it, and the Spec it returns runs it.
func Parse(kv []string) (mockhub.ProbeSpec, error) {
	s := &Spec{Seed: 1, Games: 1, Sessions: 400, Time: 12 * time.Second}
	for _, w := range kv {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("referee setting %q is not KEY=VALUE", w)
		}
		var err error
		switch k {
		case "mutate":
			s.Mutate = v == "1"
			if v != "0" && v != "1" {
				err = fmt.Errorf("0 or 1")
			}
		case "check":
			if !contains(Checks, v) && v != "all" {
				return nil, fmt.Errorf("referee check=%s: want one of %s", v, strings.Join(Checks, ", "))
			}
			s.Check = v
		case "seed":
			s.Seed, err = strconv.ParseUint(v, 10, 64)
		case "games":
			s.Games, err = strconv.Atoi(v)
			if err == nil && s.Games < 1 {
				err = fmt.Errorf("at least 1")
			}
		case "time":
			s.Time, err = time.ParseDuration(v)
			if err == nil && s.Time <= 0 {
				err = fmt.Errorf("above zero")
			}
		case "sessions":
			s.Sessions, err = strconv.Atoi(v)
			if err == nil && s.Sessions < 1 {
				err = fmt.Errorf("at least 1")
			}
		default:
			return nil, fmt.Errorf("referee: unknown setting %q", k)
		}
		if err != nil {
			return nil, fmt.Errorf("referee %s: %v", w, err)
		}
	}
	if s.Check == "" {
		return nil, fmt.Errorf("referee needs check=PART")
	}
	return s, nil
}

// String is the settings in their canonical form.
func (s *Spec) String() string {
	mutate := 0
	if s.Mutate {
		mutate = 1
	}
	return fmt.Sprintf("check=%s games=%d mutate=%d seed=%d sessions=%d time=%v", s.Check, s.Games, mutate, s.Seed, s.Sessions, s.Time)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rec is one move of a game and the verdict it got.
type rec struct {
	move    string
	verdict referee.Verdict
	scores  string // after valid end
}

// breach is a part of the protocol the referee broke.
type breach struct {
	part, want, got string
}

// prober probes one referee.
type prober struct {
	spec     *Spec
	cpu      time.Duration // the CPU time of the referee's sessions so far (spec.Time bounds it)
	prog     string
	opt      mockhub.Options
	r        *rand.Rand
	sess     *mockhub.Session // the referee of the current session
	feats    referee.Features
	log      []string       // the current session, for the account
	reached  map[string]int // how often each part was checked
	words    []string       // words seen in accepted moves and written lines
	accepted []string       // moves the referee accepted
	tried    map[string]map[string]bool
	lenient  bool // the referee does not end its blocks: wait for them briefly
	// pendingScores is the scores line found as the last line of a block that never ended.
	pendingScores string
	fail          *breach
	failLog       []string
	others        []string // breaches of other parts, worked around
	sessions      int
	moves         int
	ended         int
	resent        int // invalid moves sent again
	tries         int // new moves made up
	silences      int // breaches of other parts that cost a timeout
}

// Run probes the referee prog, started with args, as the settings say.
func (s *Spec) Run(prog string, args []string, opt mockhub.Options) (mockhub.Result, error) {
	pr := &prober{spec: s, prog: prog, opt: opt, r: rand.New(rand.NewPCG(s.Seed, 0x7ef)),
		reached: map[string]int{}, tried: map[string]map[string]bool{}}
	if err := pr.run(args); err != nil {
		return mockhub.Result{}, err
	}
	return pr.result(), nil
}

func (pr *prober) run(args []string) error {
	var played, check []rec // the game so far (accepted moves), and what the next session replays
	// Five silences of other parts are enough to say that the part checked cannot be
	// reached (each cost a timeout).
	// `time` counts the referee's CPU time (every session's, reaped), which the machine's
	// load does not change: a wall bound stopped a probe of a correct referee on a loaded
	// machine before it reached a part, which then failed as not checked. Wall time is only
	// a backstop (ten times as much); a graded case's own deadline comes first, and its
	// TIMEOUT is confirmed alone (docs/grading.md).
	backstop := time.Now().Add(10 * pr.spec.Time)
	for pr.sessions < pr.spec.Sessions && (pr.ended < pr.spec.Games || check != nil) && pr.fail == nil && pr.silences < 5 &&
		pr.cpu < pr.spec.Time && time.Now().Before(backstop) {
		pr.sessions++
		replay := check
		if replay == nil {
			replay = played
		}
		check = nil
		out, err := pr.session(args, replay)
		if err != nil {
			return err
		}
		switch {
		case out.aborted:
			played = nil // the referee disagreed with itself or broke the protocol: start over
		case out.last.verdict == referee.Invalid:
			if !out.replayedLast && pr.resendable(out.last.move) {
				pr.resent++
				check = append(append([]rec{}, out.moves...), out.last) // send it again
			}
			played = out.moves
		case out.last.verdict == referee.ValidEnd:
			if !out.replayedLast {
				pr.ended++
				check = append(append([]rec{}, out.moves...), out.last) // replay the whole game
			}
			played = nil
		default:
			played = out.moves
		}
	}
	return nil
}

// sessionOut is how a session went: the moves accepted before its last, and its last.
type sessionOut struct {
	moves        []rec
	last         rec
	replayedLast bool // the last move was a replay (a consistency check), not a new one
	aborted      bool
}

// session starts the referee, replays the moves given, then plays new ones until an
// `invalid` or a `valid end`.
func (pr *prober) session(args []string, replay []rec) (out sessionOut, err error) {
	pr.log = nil
	s, err := mockhub.StartSession(pr.prog, args, pr.opt)
	if err != nil {
		return out, err
	}
	pr.sess = s
	defer func() { pr.cpu += s.Kill() }()
	if !pr.handshake() {
		out.aborted = true
		return out, nil
	}
	for i := 0; ; i++ {
		var r rec
		replaying := i < len(replay)
		if replaying {
			r.move = replay[i].move
		} else {
			if pr.tries >= 1000*pr.spec.Games {
				out.aborted = true
				return out, nil
			}
			pr.tries++
			r.move = pr.candidate(out.moves)
		}
		pr.moves++
		v, ok := pr.judge(len(out.moves)%2, r.move)
		if !ok {
			out.aborted = true
			return out, nil
		}
		r.verdict = v
		if v == referee.ValidEnd {
			if r.scores, ok = pr.scores(); !ok {
				out.aborted = true
				return out, nil
			}
		}
		if replaying {
			pr.reached["consistency"]++
			want := replay[i]
			if want.verdict != v || (v == referee.ValidEnd && want.scores != r.scores) {
				pr.breach("consistency", fmt.Sprintf("%q in the same position to get %s again", r.move, describe(want)),
					describe(r))
				out.aborted = true
				return out, nil
			}
		}
		if v != referee.Valid {
			out.last, out.replayedLast = r, replaying
			pr.ending(v)
			return out, nil
		}
		if !replaying {
			pr.learn(r.move)
		}
		out.moves = append(out.moves, r)
	}
}

func describe(r rec) string {
	if r.verdict == referee.ValidEnd {
		return fmt.Sprintf("%q and the scores %q", r.verdict.String(), r.scores)
	}
	return strconv.Quote(r.verdict.String())
}

// handshake reads the features, sends the players, and reads the first block.
func (pr *prober) handshake() bool {
	pr.feats = referee.Features{}
	for {
		line, ok := pr.line("handshake", "a feature line or feature_end")
		if !ok {
			return false
		}
		name, end, err := referee.ParseFeature(line)
		if end {
			break
		}
		if err != nil {
			if pr.breach("handshake", "feature NAME (write_lines or no_last_move) or feature_end", strconv.Quote(line)) {
				return false
			}
			continue // worked around: the line is ignored
		}
		pr.feats.Set(name)
	}
	pr.reached["handshake"]++
	pr.send("2")
	pr.send("player0")
	pr.send("player1")
	if pr.feats.WriteLines {
		if _, ok := pr.block(false); !ok {
			return false
		}
	}
	return true
}

// judge sends player's move and reads the verdict and the block after it.
func (pr *prober) judge(player int, move string) (referee.Verdict, bool) {
	pr.send(referee.MoveLine(player, move))
	var line string
	for {
		var ok bool
		if line, ok = pr.line("verdicts", "valid, invalid or valid end"); !ok {
			return 0, false
		}
		// A referee that does not end its blocks: the last block's lines come first.
		if _, _, _, err := referee.ParseWriteLine(line, 2); !pr.lenient || err != nil {
			break
		}
	}
	v, err := referee.ParseVerdict(line)
	if err != nil {
		pr.breach("verdicts", "valid, invalid or valid end", strconv.Quote(line))
		return 0, false
	}
	pr.reached["verdicts"]++
	if pr.feats.WriteLines {
		last, ok := pr.block(v == referee.ValidEnd)
		if !ok {
			return 0, false
		}
		if v == referee.ValidEnd {
			pr.pendingScores = last
		}
	}
	return v, true
}

// block reads a write_lines block. When the referee does not end its blocks, and blocks
// are not the part checked, the probe goes on without them (the verdict's reader skips
// their lines, as does the end's), and after `valid end` (final) reads what comes until a
// moment's silence and returns the last line: the scores line.
func (pr *prober) block(final bool) (string, bool) {
	if pr.lenient {
		if !final {
			return "", true
		}
		last := ""
		for {
			line, state := pr.lineWithin(150 * time.Millisecond)
			if state != mockhub.GotLine {
				return last, true
			}
			last = line
		}
	}
	var lines []string
	for {
		line, state := pr.lineWithin(pr.opt.StepTimeout)
		switch state {
		case mockhub.GotEOF:
			return "", pr.lost("blocks", "write_end")
		case mockhub.GotNothing:
			if pr.breach("blocks", "a write_lines line or write_end", fmt.Sprintf("nothing within %v", pr.opt.StepTimeout)) {
				return "", false
			}
			pr.lenient = true
			if final && len(lines) > 0 {
				return lines[len(lines)-1], true
			}
			return "", true
		}
		_, text, end, err := referee.ParseWriteLine(line, 2)
		if end {
			pr.reached["blocks"]++
			return "", true
		}
		if err != nil && pr.breach("blocks", "<0|1> <line> or write_end", strconv.Quote(line)) {
			return "", false
		}
		pr.learnWords(text)
		lines = append(lines, line)
	}
}

// scores reads the scores line after `valid end`.
func (pr *prober) scores() (string, bool) {
	line := pr.pendingScores
	pr.pendingScores = ""
	if line == "" {
		var ok bool
		if line, ok = pr.line("scores", "the scores: two integers"); !ok {
			return "", false
		}
	}
	if _, err := referee.ParseScores(line, 2); err != nil {
		if pr.breach("scores", "the scores: two integers separated by a space", strconv.Quote(line)) {
			return "", false
		}
	}
	pr.reached["scores"]++
	return line, true
}

// ending closes the referee's input after the game's last verdict (and its scores): the
// referee must write nothing more and exit.
func (pr *prober) ending(v referee.Verdict) {
	pr.sess.CloseInput()
	pr.log = append(pr.log, "hub: close")
	line, state := pr.lineWithin(pr.opt.StepTimeout)
	for pr.lenient && state == mockhub.GotLine {
		// The block after an `invalid` of a referee that does not end its blocks.
		if _, _, _, err := referee.ParseWriteLine(line, 2); err != nil {
			break
		}
		line, state = pr.lineWithin(pr.opt.StepTimeout)
	}
	switch state {
	case mockhub.GotLine:
		pr.breach("ending", "nothing more after "+strconv.Quote(v.String())+" (then the end of its output)", strconv.Quote(line+"\n"))
		return
	case mockhub.GotNothing:
		pr.breach("ending", "the end of its output once its input is closed", fmt.Sprintf("nothing within %v (stdout still open)", pr.opt.StepTimeout))
		return
	}
	if !pr.sess.Exits(pr.opt.StepTimeout) {
		pr.breach("ending", "an exit once its input is closed", fmt.Sprintf("still running after %v", pr.opt.StepTimeout))
		return
	}
	pr.reached["ending"]++
}

// lineWithin reads the referee's next line within d (a last line without its newline
// counts, as for the runner).
func (pr *prober) lineWithin(d time.Duration) (string, mockhub.LineState) {
	line, state := pr.sess.ReadLine(d)
	if state == mockhub.GotLine {
		pr.log = append(pr.log, "referee -> runner | "+transcript.Escape([]byte(line)))
	}
	return line, state
}

// line reads a line the part owes; silence or the end of the output breach that part.
func (pr *prober) line(part, want string) (string, bool) {
	line, state := pr.lineWithin(pr.opt.StepTimeout)
	switch state {
	case mockhub.GotNothing:
		pr.breach(part, want, fmt.Sprintf("nothing within %v", pr.opt.StepTimeout))
		return "", false
	case mockhub.GotEOF:
		return "", pr.lost(part, want)
	}
	return line, true
}

func (pr *prober) lost(part, want string) bool {
	pr.breach(part, want, "EOF")
	return false
}

func (pr *prober) send(line string) {
	pr.sess.Send(line)
	pr.log = append(pr.log, "runner -> referee | "+transcript.Escape([]byte(line)))
}

// breach records that the referee broke part, and says whether the probe must stop: it
// does when part is the one checked; another part's breach is noted and worked around.
func (pr *prober) breach(part, want, got string) (stop bool) {
	if part != pr.spec.Check && pr.spec.Check != "all" {
		pr.others = append(pr.others, fmt.Sprintf("%s (want %s, got %s)", part, want, got))
		if strings.HasPrefix(got, "nothing within") || strings.HasPrefix(got, "still running") {
			pr.silences++
		}
		return false
	}
	if pr.fail == nil {
		pr.fail = &breach{part, want, got}
		pr.failLog = append([]string{}, pr.log...)
	}
	return true
}

// resendable says whether an invalid move is sent again, in its position, to check that
// the referee still refuses it: the first two, and up to ten shaped like a move the
// referee accepted (as many words), which are the likely near misses.
func (pr *prober) resendable(move string) bool {
	if pr.resent < 2 {
		return true
	}
	if pr.resent >= 12 {
		return false
	}
	n := len(strings.Split(move, " "))
	for _, a := range pr.accepted {
		if len(strings.Split(a, " ")) == n {
			return true
		}
	}
	return false
}

// learn records an accepted move's words.
func (pr *prober) learn(move string) {
	if !contains(pr.accepted, move) {
		pr.accepted = append(pr.accepted, move)
	}
	pr.learnWords(move)
}

func (pr *prober) learnWords(text string) {
	for _, w := range strings.Fields(text) {
		if len(w) <= 16 && !contains(pr.words, w) && len(pr.words) < 200 {
			pr.words = append(pr.words, w)
		}
	}
}

// candidate makes up a move not yet tried after the moves given: an accepted move with
// one word changed, or one to three words (small numbers, words seen).
func (pr *prober) candidate(moves []rec) string {
	var key strings.Builder
	for _, m := range moves {
		key.WriteString(m.move + "\n")
	}
	tried := pr.tried[key.String()]
	if tried == nil {
		tried = map[string]bool{}
		pr.tried[key.String()] = tried
	}
	var c string
	for range 50 {
		c = pr.makeUp()
		if !tried[c] {
			break
		}
	}
	tried[c] = true
	return c
}

// mutations are what a player may write that the runner passes on as it came.
var mutations = []func(m string) string{
	func(m string) string { return m + "\r" },
	func(m string) string { return strings.ReplaceAll(m, " ", "  ") },
	func(m string) string { return " " + m },
	func(m string) string { return m + " " },
	func(m string) string { return strings.ReplaceAll(m, " ", "\t") },
	func(string) string { return "" },
	func(m string) string { return m + strings.Repeat("9", 5000) },
	func(m string) string { return m + "\xff\x00" },
}

func (pr *prober) makeUp() string {
	m := pr.makeUpWords()
	if pr.spec.Mutate && pr.r.IntN(4) == 0 {
		m = mutations[pr.r.IntN(len(mutations))](m)
	}
	return m
}

func (pr *prober) makeUpWords() string {
	digit := func() string { return strconv.Itoa(pr.r.IntN(10)) }
	if len(pr.accepted) == 0 || pr.r.IntN(4) == 0 {
		w := make([]string, 1+pr.r.IntN(2))
		for i := range w {
			w[i] = digit()
			if len(pr.words) > 0 && pr.r.IntN(4) == 0 {
				w[i] = pr.words[pr.r.IntN(len(pr.words))]
			}
		}
		return strings.Join(w, " ")
	}
	// The shape of an accepted move: each word one seen there in an accepted move of as
	// many words (most often), or a digit.
	shape := strings.Split(pr.accepted[pr.r.IntN(len(pr.accepted))], " ")
	w := make([]string, len(shape))
	for i := range w {
		w[i] = digit()
		if pr.r.IntN(3) > 0 {
			var seen []string
			for _, a := range pr.accepted {
				if f := strings.Split(a, " "); len(f) == len(shape) {
					seen = append(seen, f[i])
				}
			}
			w[i] = seen[pr.r.IntN(len(seen))]
		}
	}
	return strings.Join(w, " ")
}

// result is the probe's verdict on its part.
func (pr *prober) result() mockhub.Result {
	account := fmt.Sprintf("%d sessions, %d moves, %d games ended", pr.sessions, pr.moves, pr.ended)
	if pr.fail != nil {
		text := fmt.Sprintf("FAIL (referee protocol: %s): want %s, got %s; %s", pr.fail.part, pr.fail.want, pr.fail.got, account)
		text += "\nthe session, line by line, up to the breach:\n"
		for i, l := range tail(pr.failLog, mockhub.DivergenceContext) {
			text += fmt.Sprintf("  %4d  %s\n", i+1, l)
		}
		// The referee breached the protocol: a divergence, whatever the breach (the grader
		// reads no verdict from the text).
		return mockhub.Result{Text: strings.TrimSuffix(text, "\n"), Kind: outcome.Diverged, Want: pr.fail.want, Got: pr.fail.got}
	}
	need, part := 1, pr.spec.Check
	if part == "all" {
		part = "handshake"
	}
	if part == "blocks" && !pr.feats.WriteLines {
		need = 0 // nothing to check: the referee writes no blocks
	}
	if pr.reached[part] < need {
		text := fmt.Sprintf("FAIL (referee protocol: %s): not checked: the probe never reached it (%s)", part, account)
		if len(pr.others) > 0 {
			text += "; the referee broke " + pr.others[0]
		}
		return mockhub.Result{Text: text, Kind: outcome.Diverged}
	}
	text := fmt.Sprintf("ok: referee protocol: %s checked %d times; %s", pr.spec.Check, pr.reached[part], account)
	if need == 0 {
		text = fmt.Sprintf("ok: referee protocol: %s: nothing to check (the referee has no write_lines); %s", pr.spec.Check, account)
	}
	if len(pr.others) > 0 {
		text += fmt.Sprintf("; worked around %d breaches of other parts, the first: %s", len(pr.others), pr.others[0])
	}
	return mockhub.Result{OK: true, Text: text}
}

func tail(l []string, n int) []string {
	if len(l) > n {
		return l[len(l)-n:]
	}
	return l
}
