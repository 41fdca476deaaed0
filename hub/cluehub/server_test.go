package cluehub

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gauntlet/games/clue"
	"gauntlet/games/judge"
	"gauntlet/harness/runtime/tcp"
	"gauntlet/players/clueplayers"
)

// serve starts Serve on a free loopback port; the returned function waits for the game
// and gives its account.
func serve(t *testing.T, o Options) (port string, wait func() string) {
	t.Helper()
	ln, err := tcp.Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	done := make(chan struct{})
	go func() {
		w := bufio.NewWriter(&b)
		Serve(ln, o, w)
		w.Flush()
		close(done)
	}()
	return strconv.Itoa(ln.Port), func() string {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("the server did not end")
		}
		return b.String()
	}
}

var mix = [clue.Tokens]string{"strong", "random", "sensible", "leech", "sensible", "random"}

func options(seed uint64) Options {
	return Options{Seed: seed, Clients: clue.Tokens, Bots: []string{"sensible"}, Reply: 5 * time.Second, Join: 10 * time.Second, Rounds: clue.DefaultRounds}
}

// Six clients of mixed kinds play whole games over TCP: the server's account is the
// engine's own game between the same brains (games/clue judge.Play), and the same twice.
func TestGamesOverTCP(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		var first string
		for range 2 {
			port, wait := serve(t, options(seed))
			var wg sync.WaitGroup
			status := make([]int, clue.Tokens)
			for i, k := range mix {
				// Connect in seat order: each client is seated before the next dials.
				conn := dialed(t, port)
				wg.Add(1)
				go func() {
					defer wg.Done()
					status[i] = playOn(conn, k, seed, i)
				}()
			}
			account := wait()
			wg.Wait()
			for i, s := range status {
				if s != 0 {
					t.Errorf("seed %d: client %d exited %d", seed, i, s)
				}
			}
			if first == "" {
				first = account
				if want := inProcess(t, seed); account != want {
					t.Fatalf("seed %d: the server's account:\n%s\nthe engine's:\n%s", seed, account, want)
				}
			} else if account != first {
				t.Fatalf("seed %d: two runs differ", seed)
			}
		}
	}
}

// dialed connects; the server seats connections in the order it accepts them, which is
// the order of the dials since each dial completes before the next starts.
func dialed(t *testing.T, port string) io.ReadWriteCloser {
	p, err := tcp.ParsePort(port)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tcp.Dial("127.0.0.1", p, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func brain(kind string, seed uint64, seat int) clue.Brain {
	return clue.NewBrain(kind, rand.New(rand.NewPCG(seed, uint64(seat))))
}

func playOn(conn io.ReadWriteCloser, kind string, seed uint64, seat int) int {
	defer conn.Close()
	return clueplayers.Play(clue.NewClient(kind, brain(kind, seed, seat)), conn, io.Discard)
}

func inProcess(t *testing.T, seed uint64) string {
	rs := make([]judge.Responder, clue.Tokens)
	var b strings.Builder
	for i, k := range mix {
		rs[i] = clue.NewClient(k, brain(k, seed, i))
		fmt.Fprintf(&b, "seat %d %s: %q\n", i, clue.Suspects[i], k)
	}
	g, err := judge.Play(clue.NewServer(clue.ServerOptions{Seed: seed}), rs, 1<<20)
	if err != nil || g.Violation != nil {
		t.Fatal(err, g.Violation)
	}
	for _, l := range g.Log() {
		b.WriteString(l + "\n")
	}
	return b.String()
}
