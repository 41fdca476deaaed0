package scriptcmds

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/mockplayer"
	"gauntlet/harness/runtime/child"
)

// WitnessFolder, in the folder above a script's $WORK, holds a folder per script (named
// after $WORK's) with the records of its witnessed mock players: one file of transcript
// events (JSON lines) per mock player started, written by the mock players that mkplayer's
// stand-ins had the harness run outside the subject's reach (mockplayer.Stub). The grader
// shows them in the report of a failed case: what the hub under test sent each mock player
// and what it answered. Nothing the subject runs can write there.
const WitnessFolder = "witnessed"

// maxAtOnce bounds the mock players one run's door lets in at once (counted from their
// connection to their reaping): the most players a game of the project has (St Lucia's
// 26) and some to spare. A hub that has more stand-ins wait at once (a flood of never-
// ending mock players) is refused the next, and the run is charged with it (door.refuse).
// A variable for the tests alone.
var maxAtOnce = 32

// witnessSocket is the name, in $MOCKBIN, of the witness's socket: the fallback of the
// stand-ins that find no door at mockplayer.WitnessFD, their hub having closed every
// descriptor above 2 before it started them (as careful C code does). A connection there
// is taken as one through the door of the script's run that opened last (witness.listen).
const witnessSocket = ".witness"

// maxPerRun bounds the mock players one run's door lets in in all (connections to the
// witness's socket that are the run's included).
const maxPerRun = 256

// helloWithin is how long a connection has to say which mock it stands for (a stand-in
// sends its hello before it hands the connection over: it is there at once).
const helloWithin = 5 * time.Second

// drainWithin bounds how long a door's close waits for the mock players it kills and for
// the hellos of the connections its run made.
const drainWithin = 2 * time.Second

// witness is a script's side of its witnessed mock players: the mocks mkplayer set up
// (name -> the mock player's flags), the doors of its runs, and the mock players running.
type witness struct {
	bin string // $MOCKBIN, where the stand-ins are
	// ln is the witness's socket in bin (witnessSocket), for the stand-ins that find no
	// door: what connects there is taken as the connection of the run whose door opened
	// last and is still open (listen), with the same token and the same bounds.
	ln       *mockplayer.WitnessListener
	acceptMu sync.Mutex // held while connections to ln are taken and counted to a run
	// token is what a hello must carry: written into the C stand-ins alone (writeStandIn),
	// "" where none could be built (a wrapper of gauntlet's own program, which a hub can
	// read, stands in: it carries no token).
	token string
	// box is the case's box (nil: none). Where it has a cgroup (the machine gives totals),
	// every mock player joins, as soon as it starts, a cgroup of the mocks' own (group,
	// made with the first of them, mockLimits): a hub that has its stand-ins started
	// without end has at most maxAtOnce mock players a run, within the mocks' totals, not
	// the machine's; and the case's own totals are the subject's alone.
	box     *caseBox
	group   *cgroup.Group // the mocks' cgroup (nil: none yet, or none to be had)
	noGroup bool          // the mocks' cgroup could not be made: they join the case's
	work    string        // the script's $WORK, where the launcher works
	records string        // the folder of this script's records
	mock    string        // the mock player's program
	env     []string
	limits  sandbox.Limits // the case's limits, which its mock players run under too
	// marker is the case's marker entry in an environment ("GAUNTLET_CASE=ID\x00") and
	// mark the pid mark of the script's start: what the mock players leave is found by them
	// when the script ends (close).
	marker []byte
	mark   hygiene.PidMark

	// launcher starts the mock players in their box, made with the first of them
	// (launcherFor; launchErr: why it could not be); launchMu is held while it is made.
	launchMu  sync.Mutex
	launcher  *launcher
	launchErr error

	mu       sync.Mutex
	flags    map[string][]string // name -> the mock player's flags
	dirs     map[string]string   // name -> where it runs: the script's folder at its mkplayer
	boxed    map[string]string   // name -> the program a relay has its stand-in start (Run)
	started  int                 // the mock players started so far (their records' numbers)
	sessions map[*session]bool   // the mock players started and not yet reaped
	doors    []*door             // the doors of the runs still running, in the order they opened
	closed   bool
	// failures are the witness's own failures to run a mock player it was asked for (the
	// harness's, never the hub's): a conversation missing from its record is the harness's
	// failure when there is one (see Transcript), and the subject's otherwise.
	failures []string
	cpu      uint64    // the CPU ticks of the mock players running, at the last look (quiet)
	since    time.Time // since when they have all been quiet; zero: busy at the last look
}

// session is one witnessed mock player running.
type session struct {
	pid  int                     // the process the mock player runs in (its launcher)
	kill func()                  // ends the mock player now (nothing once it has ended)
	door *door                   // the door of the run that let it in
	conn *mockplayer.WitnessConn // its stand-in's connection
	gone <-chan struct{}         // closed once its stand-in has ended
	done chan struct{}           // closed once the mock player has been reaped
}

type witnessKey struct{}

// relayed returns the program a mock player with these flags relays (-relay), or "".
func relayed(flags []string) string {
	if vals := flagValues(flags, "relay"); len(vals) > 0 {
		return vals[len(vals)-1]
	}
	return ""
}

// recordsOf returns the files a mock player with these flags records to (-record).
func recordsOf(flags []string) []string { return flagValues(flags, "record") }

// flagValues returns the values given to the mock player's flag name (-name V, --name V,
// -name=V), up to "--".
func flagValues(flags []string, name string) []string {
	var out []string
	for i := 0; i < len(flags) && flags[i] != "--"; i++ {
		if !strings.HasPrefix(flags[i], "-") {
			continue
		}
		n, val, hasVal := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
		switch {
		case n != name:
		case hasVal:
			out = append(out, val)
		case i+1 < len(flags):
			i++
			out = append(out, flags[i])
		}
	}
	return out
}

// standsIn reports whether path is the stand-in of one of this witness's mock players: a
// relay of it starts only that stand-in, which hands its streams to the witness, so the
// relay may run outside the box too, witnessed.
func (w *witness) standsIn(path string) bool {
	dir, name := filepath.Split(path)
	if filepath.Clean(dir) != filepath.Clean(w.bin) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.flags[name]
	return ok
}

// withoutFlag returns flags without the flag name and its value (-name V, --name V,
// -name=V), up to "--".
func withoutFlag(flags []string, name string) []string {
	var out []string
	for i := 0; i < len(flags); i++ {
		if flags[i] == "--" {
			return append(out, flags[i:]...)
		}
		if !strings.HasPrefix(flags[i], "-") {
			out = append(out, flags[i])
			continue
		}
		n, _, hasVal := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
		switch {
		case n != name:
			out = append(out, flags[i])
		case !hasVal:
			i++ // its value
		}
	}
	return out
}

// witnessed reports whether a mock player with these flags plays a reference player
// in-process (-as), and so runs witnessed. A relay (-relay PROGRAM) runs witnessed too
// (MkPlayer): its program is either a witnessed mock's stand-in (witness.standsIn), which
// the relay may start outside the box, or a program that must run where the hub runs,
// which the stand-in starts there (witness.boxed).
func witnessed(flags []string) bool {
	as := false
	for _, f := range flags {
		if f == "--" {
			break
		}
		if !strings.HasPrefix(f, "-") {
			continue // a flag's value
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		switch name {
		case "-relay", "relay":
			return false
		case "-as", "as":
			as = true
		}
	}
	return as
}

// scriptWitness returns the script's witness, listening from its first use.
func scriptWitness(ts *testscript.TestScript, mock string) *witness {
	holder, _ := ts.Value(witnessKey{}).(*witnessHolder)
	if holder == nil {
		ts.Fatalf("mkplayer: harness error: the script was not set up by scriptcmds.Setup")
	}
	if holder.w != nil {
		return holder.w
	}
	w, err := newWitness(ts.Getenv("WORK"), ts.Getenv("MOCKBIN"), mock, subjectEnviron(ts, nil, false))
	if err != nil {
		ts.Fatalf("mkplayer: harness error: %v", err)
	}
	holder.w = w
	w.joinCase(ts.Getenv(MarkerVar), settings(ts).Limits, ts.Value, ts.Defer)
	return w
}

// joinCase makes the witness its case's: the case's marker (marker) and limits, and what
// its set-up keeps among the script's values (value: the pid mark, the box, the activity);
// onEnd defers the witness's close to the script's end.
func (w *witness) joinCase(marker string, limits sandbox.Limits, value func(key any) any, onEnd func(func())) {
	w.marker = []byte(MarkerVar + "=" + marker + "\x00")
	w.limits = limits
	w.mark, _ = value(caseMarkKey{}).(hygiene.PidMark)
	w.box, _ = value(caseBoxKey{}).(*caseBox)
	onEnd(w.close)
	if a, ok := value(ActivityKey{}).(*Activity); ok && a != nil {
		a.watch(w.quiet)
	}
}

// newWitness makes the witness of the stand-ins in bin of the script whose $WORK is work;
// mock is the mock player's program, env its environment.
func newWitness(work, bin, mock string, env []string) (*witness, error) {
	records := filepath.Join(filepath.Dir(work), WitnessFolder, filepath.Base(work))
	if err := os.MkdirAll(records, 0o700); err != nil {
		return nil, err
	}
	ln, err := mockplayer.ListenWitness(filepath.Join(bin, witnessSocket))
	if err != nil {
		return nil, fmt.Errorf("the witness's socket: %w", err)
	}
	w := &witness{bin: bin, ln: ln, work: work, records: records, mock: mock, env: env,
		flags: map[string][]string{}, dirs: map[string]string{}, boxed: map[string]string{}, sessions: map[*session]bool{}}
	if _, err := mockplayer.StandIn(); err == nil {
		w.token = newToken()
	}
	go w.listen()
	return w, nil
}

// listen takes the connections to the witness's socket until the witness closes: each is
// the connection of the run whose door opened last of those still open, and is let in (or
// refused and charged) as one that came through that door; with no door open (no run of
// the script is running: nothing of the case's can have connected, but a leftover of an
// earlier run) it is closed, and nobody is charged.
func (w *witness) listen() {
	for w.ln.Wait() == nil {
		w.takeQueued()
	}
}

// takeQueued takes the connections queued at the witness's socket now, as listen does: a
// door's close calls it before it takes the door from the open ones, so that what its run
// connected just before it ended is counted to it as listen would have.
func (w *witness) takeQueued() {
	w.acceptMu.Lock()
	defer w.acceptMu.Unlock()
	for {
		c, err := w.ln.AcceptQueued()
		if err != nil || c == nil {
			return
		}
		w.mu.Lock()
		var d *door
		if n := len(w.doors); n > 0 && !w.closed {
			d = w.doors[n-1]
		}
		why := ""
		if d != nil {
			why = d.admit()
		}
		w.mu.Unlock()
		if d == nil {
			c.Close()
			continue
		}
		d.start(c, why)
	}
}

// WitnessedProgram sets up, for a script being set up (after Setup), a witnessed mock
// player named name with the flags given (-as NAME: a reference player played in
// process), and returns the path of its wrapper in $MOCKBIN: the grader hands a subject's
// hub the reference players so, so that the report can show what the hub sent them.
func WitnessedProgram(env *testscript.Env, name string, flags []string) (string, error) {
	holder, _ := env.Values[witnessKey{}].(*witnessHolder)
	if holder == nil {
		return "", fmt.Errorf("the script was not set up by scriptcmds.Setup")
	}
	prog := envSettings(env).MockPlayer
	quoted := "mockplayer"
	if prog != "" {
		quoted = shellQuote(prog)
	} else {
		var err error
		if prog, err = lookPath("mockplayer", env.Getenv("PATH")); err != nil {
			return "", err
		}
	}
	if holder.w == nil {
		menv := child.SubjectEnv(env.Vars, "")
		w, err := newWitness(env.WorkDir, env.Getenv("MOCKBIN"), prog, menv)
		if err != nil {
			return "", err
		}
		holder.w = w
		w.joinCase(env.Getenv(MarkerVar), envSettings(env).Limits, func(key any) any { return env.Values[key] }, env.Defer)
	}
	holder.w.add(name, env.WorkDir, flags, "")
	path := filepath.Join(env.Getenv("MOCKBIN"), name)
	if err := holder.w.writeStandIn(path, quoted); err != nil {
		return "", err
	}
	return path, nil
}

// witnessHolder is set up for every script (Setup); the witness starts with the first mock.
type witnessHolder struct{ w *witness }

// add sets up the mock NAME, to run in dir (where its relative paths, -record FILE or
// -faults FILE, are). boxed, when not "", is the program the mock relays, which its
// stand-in starts where the hub runs (the mock is then given -relayed-fds in place of
// -relay).
func (w *witness) add(name, dir string, flags []string, boxed string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flags[name], w.dirs[name] = flags, dir
	if boxed != "" {
		w.boxed[name] = boxed
	} else {
		delete(w.boxed, name)
	}
}

// door is the witness's door of one run: what its program (and whatever it starts) may
// reach the witness through, and the account of what came through it.
type door struct {
	w  *witness
	wd *mockplayer.WitnessDoor
	// Under w.mu: the connections being served (from their arrival to their mock's
	// reaping), the most there were at once, how many in all, and why anything that came
	// through was refused.
	atOnce, most, all int
	refused           []string
	closed            bool
	// draining (under w.mu): the run has ended and close is taking what it left queued
	// in the door; served is closed when serve has returned, and hellos counts the
	// connections whose hello has not been read yet.
	draining bool
	served   chan struct{}
	hellos   sync.WaitGroup
}

// openDoor makes a door for a run (nil when the script has no witness): its end is handed
// to the run's program at mockplayer.WitnessFD (runFiles), and close shuts it when the run
// has ended.
func (h *witnessHolder) openDoor() (*door, error) {
	if h == nil || h.w == nil {
		return nil, nil
	}
	wd, err := mockplayer.NewWitnessDoor()
	if err != nil {
		return nil, err
	}
	d := &door{w: h.w, wd: wd, served: make(chan struct{})}
	h.w.mu.Lock()
	h.w.doors = append(h.w.doors, d)
	h.w.mu.Unlock()
	go d.serve()
	return d, nil
}

// runFiles is a run's ExtraFiles: the door's end at mockplayer.WitnessFD (none without a door).
func (d *door) runFiles() []*os.File {
	if d == nil {
		return nil
	}
	return mockplayer.AtWitnessFD(nil, d.wd.BoxEnd())
}

// serve takes the connections that come through the door until it closes, within its bounds.
func (d *door) serve() {
	defer close(d.served)
	w := d.w
	for {
		c, err := d.wd.Accept()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Woken by close once the run ended: nothing more is queued.
			return
		}
		if err == mockplayer.ErrKnock {
			d.refuse("a message through the witness's door that no stand-in sends")
			continue
		}
		if err != nil {
			w.mu.Lock()
			shut := !d.closed && !d.draining
			w.mu.Unlock()
			if shut && err == io.EOF {
				d.refuse("the witness's door shut from the box (or an empty message through it)")
			}
			return
		}
		w.mu.Lock()
		why := d.admit()
		w.mu.Unlock()
		d.start(c, why)
	}
}

// admit counts a connection that came for the door (through it, or to the witness's
// socket), within its bounds, and returns "" when it is let in, else why not ("-": the run
// has ended, not its doing). Called with w.mu held: a connection let in is counted among
// the hellos the door's close waits for before the close can start waiting.
func (d *door) admit() string {
	switch {
	case d.closed || d.w.closed:
		return "-"
	case d.atOnce >= maxAtOnce:
		return fmt.Sprintf("more than %d mock players at once", maxAtOnce)
	case d.all >= maxPerRun:
		return fmt.Sprintf("more than %d mock players in all", maxPerRun)
	}
	d.atOnce++
	d.all++
	d.most = max(d.most, d.atOnce)
	d.hellos.Add(1)
	return ""
}

// start serves the connection c that admit let in (why ""), or closes it and charges the
// run with why.
func (d *door) start(c *mockplayer.WitnessConn, why string) {
	if why != "" {
		c.Close()
		if why != "-" {
			d.refuse(why)
		}
		return
	}
	go func() {
		defer func() {
			d.w.mu.Lock()
			d.atOnce--
			d.w.mu.Unlock()
		}()
		d.w.session(c, d)
	}()
}

// refuse records that the door refused something: the run's program (or what it started)
// asked the witness for what no stand-in asks, which the run is charged with.
func (d *door) refuse(why string) {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	if len(d.refused) < 8 && !slices.Contains(d.refused, why) {
		d.refused = append(d.refused, why)
	}
}

// refusals says why the door refused what came through it, if it did.
func (d *door) refusals() []string {
	if d == nil {
		return nil
	}
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	return slices.Clone(d.refused)
}

// close shuts the door once its run has ended (everything of the run's box is gone by
// then, the stand-ins too): the mock players it let in are killed and reaped (up to a
// bound), whatever holds their connections open (a hub that handed a mock the stand-in's
// own end of its connection, so that it would never hang up, and its own output, which
// the mock would have held open outside the box).
func (d *door) close() {
	if d == nil {
		return
	}
	w := d.w
	// What the run connected to the witness's socket before it ended is its own.
	w.takeQueued()
	// The mock players the door let in go first: they may hold the run's end of the door
	// (a relay's, for the stand-ins its program starts), and no new one starts now
	// (draining).
	w.mu.Lock()
	d.draining = true
	// No connection to the witness's socket is the run's any more.
	w.doors = slices.DeleteFunc(w.doors, func(o *door) bool { return o == d })
	var reaped []chan struct{}
	for s := range w.sessions {
		if s.door == d {
			s.kill()
			reaped = append(reaped, s.done)
		}
	}
	w.mu.Unlock()
	drain := time.After(drainWithin)
	for _, done := range reaped {
		select {
		case <-done:
		case <-drain:
		}
	}
	// Then what the run sent before it ended: the messages still queued in the door (the
	// run's program is gone, so nothing of its own comes later; serve takes what is
	// there and returns) and the hellos of the connections taken, so that a hub that
	// knocked and exited at once is charged as one that waited.
	d.wd.Wake()
	select {
	case <-d.served:
	case <-drain:
	}
	hellos := make(chan struct{})
	go func() {
		d.hellos.Wait()
		close(hellos)
	}()
	select {
	case <-hellos:
	case <-drain:
	}
	w.mu.Lock()
	d.closed = true
	w.mu.Unlock()
	d.wd.Close()
}

// session runs the mock player a stand-in stands for, on the streams it handed over, and
// tells the stand-in how the mock ended; if the stand-in ends first, the mock is killed.
func (w *witness) session(c *mockplayer.WitnessConn, d *door) {
	defer c.Close()
	// The hello has been read and judged (a refusal recorded) once the mock is about to
	// start or the session ends: what the door's close waits for (door.hellos).
	seen := sync.OnceFunc(d.hellos.Done)
	defer seen()
	hello, files, err := c.Hello(time.Now().Add(helloWithin))
	if err != nil {
		d.refuse("a hello no stand-in sends (" + err.Error() + ")")
		return
	}
	if w.token != "" && subtle.ConstantTimeCompare([]byte(hello.Token), []byte(w.token)) != 1 {
		// Not from a stand-in of this witness: a program of the box that sent it itself,
		// to have a mock hold what it hands over outside its box. No mock, no verdict:
		// the program then ends as it will, and its run is charged with it.
		for _, f := range files {
			f.Close()
		}
		d.refuse("a hello without the witness's token: not a stand-in's")
		return
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	w.mu.Lock()
	flags, ok := w.flags[hello.Name]
	dir, boxed := w.dirs[hello.Name], w.boxed[hello.Name]
	n := w.started + 1
	if !ok || w.closed || d.closed || d.draining {
		w.mu.Unlock()
		if !ok {
			d.refuse("a hello for a mock player nobody set up")
		}
		return
	}
	w.started = n
	w.mu.Unlock()
	seen()
	record := filepath.Join(w.records, fmt.Sprintf("%03d.json", n))
	var extra []*os.File
	if boxed != "" {
		// A relay of a program that runs where the hub runs: the stand-in starts it there,
		// with the arguments the relay would have given it, and hands over its pipes; the
		// relay runs here on them (-relayed-fds 4,5,6: after the stand-in's connection).
		deadline := time.Now().Add(helloWithin)
		if err := c.Run(append([]string{boxed}, hello.Args...), files[2], deadline); err != nil {
			c.Verdict(127, 0)
			return
		}
		passed, err := c.Pipes(deadline)
		if err != nil {
			c.Verdict(127, 0)
			return
		}
		defer func() {
			for _, f := range passed {
				f.Close()
			}
		}()
		extra = passed[:]
		flags = append(withoutFlag(flags, "relay"), "-relayed-fds", "4,5,6")
	}
	link := linkText(c.PeerPid(), files[0], extra)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		c.Verdict(127, 0)
		return
	}
	// The mock tells its stand-in how it ends itself, on a copy of the connection (its fd
	// 3): the stand-in, which is the hub's player, ends with the mock, however long this
	// process then takes to see the mock end (a busy grader on a loaded machine took over
	// the 2 seconds a hub may give its players to exit).
	tell, started, err := c.ForMock()
	if err != nil {
		w.failures = append(w.failures, "the mock player "+hello.Name+": "+err.Error())
		w.mu.Unlock()
		c.Verdict(127, 0)
		return
	}
	// Started without the lock (the launcher's box takes a while to make on a loaded
	// machine: the door's other connections are admitted meanwhile).
	w.mu.Unlock()
	args := append(append(append([]string(nil), flags...), "-record", record, "-tell", "3", "--"), hello.Args...)
	// Its streams, its tell at 3, the pipes it relays at 4, 5, 6, and the door at its
	// number, for a stand-in a relay starts (of a reference player handed to the hub
	// witnessed): its mock is this run's too.
	at, given := []int{0, 1, 2, 3}, []*os.File{files[0], files[1], files[2], tell}
	for i, f := range extra {
		at, given = append(at, 4+i), append(given, f)
	}
	at, given = append(at, mockplayer.WitnessFD), append(given, d.wd.BoxEnd())
	l, err := w.launcherFor()
	var asked *launch
	if err == nil {
		asked, err = l.start(args, dir, w.env, at, given)
	}
	if err == nil {
		select {
		case st := <-asked.started:
			err = st.err
		case <-l.gone:
			err = errors.New("the mock players' launcher ended")
		case <-time.After(launchWithin):
			// (A backstop: the launcher answers every request it reads.) A mock it
			// starts after all is killed at once.
			err = errors.New("the mock players' launcher did not answer")
			l.kill(asked.id)
		}
	}
	started()
	w.mu.Lock()
	var s *session
	if err == nil {
		// The launcher's process is the mock's: the parent of a program it relays itself.
		pid := l.pid()
		os.WriteFile(strings.TrimSuffix(record, ".json")+linkSuffix, []byte(link+fmt.Sprintf("mock %d\n", pid)), 0o600)
		s = &session{pid: pid, kill: func() { l.kill(asked.id) }, door: d, conn: c, gone: c.Gone(), done: make(chan struct{})}
		w.sessions[s] = true
		if w.closed || d.closed || d.draining {
			// The witness or the door closed while it started, and killed the mock players
			// it had then: this one goes too.
			s.kill()
		}
	} else {
		w.failures = append(w.failures, "the mock player "+hello.Name+" did not start: "+err.Error())
	}
	w.mu.Unlock()
	if err != nil {
		c.Verdict(127, 0)
		return
	}
	defer func() {
		w.mu.Lock()
		delete(w.sessions, s)
		w.mu.Unlock()
		close(s.done)
	}()
	// The mock holds the pipes now: the harness lets go of its copies at once, so that the
	// hub sees them close when the mock ends (and the program it relays, its stdin's).
	for i, f := range files {
		f.Close()
		files[i] = nil
	}
	for _, f := range extra {
		f.Close()
	}
	ended := make(chan struct{})
	go func() {
		select {
		case <-s.gone:
			s.kill()
		case <-ended:
		}
	}()
	if h := heldSessions.Load(); h != nil {
		<-*h
	}
	var end [2]int
	select {
	case end = <-asked.ended:
	case <-l.gone:
		// The launcher ended (the witness closed): its box took the mock with it.
		select {
		case end = <-asked.ended:
		default:
			end = [2]int{0, int(syscall.SIGKILL)}
		}
	}
	close(ended)
	c.Verdict(end[0], syscall.Signal(end[1]))
}

// launchWithin is how long the launcher may take to answer a request (a backstop).
const launchWithin = 30 * time.Second

// mockDeadline is the backstop of the mock players' launcher: it ends with the script's
// witness, long before.
const mockDeadline = time.Hour

// launcherFor returns the script's launcher of mock players, started with the first of
// them.
func (w *witness) launcherFor() (*launcher, error) {
	w.launchMu.Lock()
	defer w.launchMu.Unlock()
	if w.launcher != nil || w.launchErr != nil {
		return w.launcher, w.launchErr
	}
	w.mu.Lock()
	cfg, closed := w.mockConfig(), w.closed
	w.mu.Unlock()
	if closed {
		return nil, errors.New("the witness has closed")
	}
	w.launcher, w.launchErr = startLauncher(cfg, w.mock)
	return w.launcher, w.launchErr
}

// withoutVar returns env without the variable name.
func withoutVar(env []string, name string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

// mockConfig is the run of the mock players' launcher: in a box of its own where the case
// has one, as a judge's (the case's folder, the script's folder and its records
// writable), in the mocks' own cgroup (mockGroup), under the case's limits (scaled to the
// mock players it holds); killed at once
// when it must end. Called with w.mu held (mockGroup).
func (w *witness) mockConfig() sandbox.Config {
	// The launcher's process holds all the script's mock players (its goroutines): the
	// limits of a program's process, for as many as may run at once.
	lim := w.limits.WithDefaults()
	lim.CPU *= time.Duration(maxAtOnce)
	lim.OpenFiles *= maxAtOnce
	cfg := sandbox.Config{
		Limits:   lim,
		Identity: sandbox.Identity{Same: true},
		WorkDir:  w.work,
		// Without the case's marker: the launcher lives as long as the script, and is no
		// leftover of its runs (noprocs); its mock players have it (their requests' Env).
		Env:         withoutVar(w.env, MarkerVar),
		Deadline:    mockDeadline,
		FirstSignal: syscall.SIGKILL,
	}
	b := w.box
	if b == nil || b.noBox {
		return cfg
	}
	cfg.Box = &sandbox.Box{Keep: b.judgeKeep, Writable: []string{w.records, w.work}, Net: b.network()}
	if g := w.mockGroup(); g != nil {
		cfg.Cgroup = g.ProcFiles()
	}
	return cfg
}

// mockLimits are the totals of a script's mock players together (their own cgroup): as
// many as may run at once (maxAtOnce), each with room to spare (a mock player holds about
// 10 MB, and a dozen threads).
var mockLimits = cgroup.Limits{Memory: int64(maxAtOnce) * 32 << 20, Processes: maxAtOnce * 32}

// mockGroups numbers the mocks' cgroups of this process (their names).
var mockGroups atomic.Int64

// mockGroup returns the mocks' cgroup, made at its first use, where the case has totals
// (w.box.group): nil where it has none. Where it cannot be made, the mocks join the case's
// group, as they did before they had one of their own. Called with w.mu held.
func (w *witness) mockGroup() *cgroup.Group {
	switch {
	case w.group != nil:
		return w.group
	case w.box == nil || w.box.group == nil:
		return nil
	case w.noGroup:
		return w.box.group
	}
	g, err := cgroup.New(fmt.Sprintf("mocks-%d", mockGroups.Add(1)), mockLimits)
	if err != nil {
		w.noGroup = true
		return w.box.group
	}
	w.group = g
	return g
}

// ownFailures returns the witness's own failures so far (see witness.failures).
func (w *witness) ownFailures() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.failures)
}

// witnessFailures returns the failures of the script's witness, if it has one.
func witnessFailures(ts *testscript.TestScript) []string {
	if h, _ := ts.Value(witnessKey{}).(*witnessHolder); h != nil && h.w != nil {
		return h.w.ownFailures()
	}
	return nil
}

// endOrphans kills, and waits (up to a bound) to be reaped, the mock players whose
// stand-ins have ended, found by asking their connections now rather than by the goroutines
// that watch them (which a loaded machine may not have run yet), and says how many it
// ended. A run whose output is still held open once it ended calls it: a mock player
// holds a hub's stream its stand-in handed over (its stderr, that the hub gave its player)
// until the harness kills it, which is the harness's to do before it blames anyone.
func (w *witness) endOrphans() int {
	w.mu.Lock()
	var orphans []*session
	for s := range w.sessions {
		if s.conn.HungUp() {
			s.kill()
			orphans = append(orphans, s)
		}
	}
	w.mu.Unlock()
	deadline := time.After(2 * time.Second)
	for _, s := range orphans {
		select {
		case <-s.done:
		case <-deadline:
			return len(orphans)
		}
	}
	return len(orphans)
}

// heldSessions, when set (tests only), holds every witness session between the start of
// its mock player and its reaping until the channel closes: a grader too busy to see its
// mock players end.
var heldSessions atomic.Pointer[chan struct{}]

// quiet says how long the mock players running have all been quiet (no CPU used, none
// runnable, by the rule of the sandbox's groups), and whether any runs: the work of a hub's
// game is theirs as much as the hub's, and a case whose hub waits on them is not idle.
func (w *witness) quiet() (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var cpu uint64
	busy, running := false, false
	seen := map[int]bool{} // the mock players of a launcher share its process
	for s := range w.sessions {
		if seen[s.pid] {
			continue
		}
		seen[s.pid] = true
		p, err := hygiene.ReadProc(s.pid)
		if err != nil || p.Zombie() {
			continue
		}
		running = true
		cpu += p.CPUTicks
		busy = busy || p.State == 'R' || p.State == 'D'
	}
	now := time.Now()
	switch {
	case busy || cpu != w.cpu:
		w.cpu, w.since = cpu, time.Time{}
	case w.since.IsZero():
		w.since = now
	}
	if w.since.IsZero() {
		return 0, running
	}
	return now.Sub(w.since), running
}

// settle waits, up to a bound, for the mock players whose stand-ins have ended to be
// reaped too (noprocs must not find a mock that is being killed). A mock whose stand-in
// still runs is left to noprocs, which finds it by the case's marker.
func (w *witness) settle() {
	w.mu.Lock()
	var dying []*session
	for s := range w.sessions {
		select {
		case <-s.gone:
			dying = append(dying, s)
		default:
		}
	}
	w.mu.Unlock()
	deadline := time.After(2 * time.Second)
	for _, s := range dying {
		select {
		case <-s.done:
		case <-deadline:
			return
		}
	}
}

// close stops the witness at the end of the script, kills the mock players still running
// (those whose stand-ins nothing killed) and then whatever they left: the witnessed mocks
// run as the grader's user outside any box, so nothing else kills what they leave (a spawn
// fault's grandchild, in a session of its own, when the case failed before its noprocs).
// Whatever carries the case's marker goes, however the witness was made: by the script's
// first mkplayer, or by the grader before the script ran (WitnessedProgram), whose
// witness the script's mkplayer then shares.
func (w *witness) close() {
	w.ln.Close()
	w.mu.Lock()
	w.closed = true
	var reaped []chan struct{}
	for s := range w.sessions {
		s.kill()
		reaped = append(reaped, s.done)
	}
	w.mu.Unlock()
	// A mock being killed cannot start anything once it has been reaped: the scan below
	// then sees all it left.
	deadline := time.After(2 * time.Second)
wait:
	for _, done := range reaped {
		select {
		case <-done:
		case <-deadline:
			break wait
		}
	}
	// The mock players' box, and whatever is left in it.
	w.launchMu.Lock()
	if w.launcher != nil {
		w.launcher.stop()
	}
	w.launchMu.Unlock()
	if w.group != nil {
		// (Killed first: what a mock left in it, a spawn fault's grandchild.)
		w.group.Remove()
	}
	if len(w.marker) > 0 {
		var pids []int
		for _, p := range findMarked(w.marker, w.mark) {
			pids = append(pids, p.pid)
		}
		// Gone, not only told: the case's own audit, or the next case, must not find them.
		child.KillAndAwait(pids, 2*time.Second)
	}
}

// WitnessRecords returns the files of the witnessed mock players' records of the case whose
// folder (the folder above its $WORK) is top: the hub's side of each conversation once. A
// relay whose program is itself a witnessed mock player (a recording relay of a reference
// player that is handed to the hub as a witnessed relay too) records every line a second
// time, as the inner mock sees it: the inner record, whose stand-in the outer mock started
// or whose stdin is the pipe the outer relay writes to (linkText), is left out.
func WitnessRecords(top string) []string {
	files, _ := filepath.Glob(filepath.Join(top, WitnessFolder, "*", "*.json"))
	inner := map[string]bool{} // what marks a record as a relayed mock's: "pipe ID", "pid N"
	links := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(strings.TrimSuffix(f, ".json") + linkSuffix)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			key, val, _ := strings.Cut(line, " ")
			switch key {
			case "in":
				links[f] = append(links[f], "pipe "+val)
			case "parent":
				links[f] = append(links[f], "pid "+val)
			case "relays":
				inner["pipe "+val] = true
			case "mock":
				inner["pid "+val] = true
			}
		}
	}
	var outer []string
	for _, f := range files {
		if !slices.ContainsFunc(links[f], func(k string) bool { return inner[k] }) {
			outer = append(outer, f)
		}
	}
	return outer
}

// linkSuffix names, beside a witnessed mock's record NNN.json, the file that tells how the
// mock stands to the others: "in ID" (the pipe that is its stdin), "parent PID" (the
// parent of its stand-in: the process that started it), "relays ID" (for a relay of a
// program started where the hub runs, the pipe to that program's stdin) and "mock PID"
// (the mock's own process, the parent of a program it relays itself).
const linkSuffix = ".link"

// linkText is a link file's text but for its "mock" line: standIn is the stand-in's pid
// (0: unknown), in the mock's stdin and relayed, when given, the pipes to the program it
// relays (its stdin first).
func linkText(standIn int, in *os.File, relayed []*os.File) string {
	text := ""
	if id := pipeID(in); id != "" {
		text += "in " + id + "\n"
	}
	if standIn > 0 {
		if p, err := hygiene.ReadProc(standIn); err == nil {
			text += fmt.Sprintf("parent %d\n", p.PPid)
		}
	}
	if len(relayed) > 0 {
		if id := pipeID(relayed[0]); id != "" {
			text += "relays " + id + "\n"
		}
	}
	return text
}

// pipeID names the pipe (or other file) f is an end of: its device and inode, the same for
// both ends of a pipe; "" when f cannot be looked at.
func pipeID(f *os.File) string {
	if f == nil {
		return ""
	}
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}

// writeStandIn writes, at path, the stand-in of a witnessed mock player named as path's
// file, for this witness: the stand-in program (mockplayer.StandInFor), which carries
// nothing of the harness but the witness's token, execute-only (0111: a hub may run it, but
// not read the token, nor trace the process a file it may not read becomes). Where no C
// compiler could build it, it is a wrapper that runs the mock player program (quoted for
// the shell) as the stand-in (Stub), said once on the harness's stderr: a script, which
// must be readable to run, and which therefore holds no secret (the witness has no token
// then).
func (w *witness) writeStandIn(path, quotedMock string) error {
	if w.token != "" {
		prog, err := mockplayer.StandInFor(filepath.Base(path), w.token, w.ln.Path())
		if err != nil {
			return err
		}
		return execfile.Write(path, prog, 0o111)
	}
	if _, err := mockplayer.StandIn(); err != nil {
		noStandIn.Do(func() {
			fmt.Fprintf(os.Stderr, "gauntlet: %v; the witnessed mock players' stand-ins are gauntlet's own program instead (execute-only, but not empty of the suite; their wrapper holds no secret, and the witness cannot tell their hellos from a hub's own)\n", err)
		})
	}
	return execfile.Write(path, []byte(stubWrapper(quotedMock, filepath.Base(path), w.ln.Path())), 0o755)
}

// noStandIn says once that the stand-in program could not be built.
var noStandIn sync.Once

// stubWrapper is the text of the wrapper of a witnessed mock player NAME, whose witness
// listens at socket too (for a stand-in that finds no door).
func stubWrapper(mockplayer, name, socket string) string {
	return "#!/bin/sh\nexec " + mockplayer + " -witness-socket " + shellQuote(socket) + " -witness -name " + shellQuote(name) + " -- \"$@\"\n"
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// newToken is a witness's token: 128 random bits, in hexadecimal.
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
