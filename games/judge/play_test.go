package judge

import (
	"strconv"
	"strings"
	"testing"
)

// race is a toy game: seats take turns adding 1 or 2 to a count; whoever reaches target
// wins. A line that is not "1" or "2" breaks the rule (the hub exits 3).
type race struct {
	seats, target, count, turn int
	over                       bool
}

func (r *race) Seats() int          { return r.seats }
func (r *race) Welcome(s int) []Out { return []Out{{To: s, Line: "seat " + strconv.Itoa(s)}} }
func (r *race) Start() []Out        { return []Out{{To: 0, Line: "go 0"}} }
func (r *race) Allowed() string     { return "1 or 2" }
func (r *race) Over() bool          { return r.over }
func (r *race) Abort() []Out        { r.over = true; return r.all("abort") }

func (r *race) Awaiting() int {
	if r.over {
		return -1
	}
	return r.turn
}

func (r *race) all(line string) []Out {
	var outs []Out
	for s := 0; s < r.seats; s++ {
		outs = append(outs, Out{To: s, Line: line})
	}
	return outs
}

func (r *race) Take(line string) ([]Out, *Violation) {
	n, err := strconv.Atoi(line)
	if err != nil || n < 1 || n > 2 {
		return r.Abort(), &Violation{Seat: r.turn, Line: line, Rule: "add 1 or 2", Status: 3}
	}
	r.count += n
	if r.count >= r.target {
		r.over = true
		return append(r.all("won "+strconv.Itoa(r.turn)), Out{To: Log, Line: "winner " + strconv.Itoa(r.turn)}), nil
	}
	r.turn = (r.turn + 1) % r.seats
	return []Out{{To: Log, Line: "count " + strconv.Itoa(r.count)}, {To: r.turn, Line: "go " + strconv.Itoa(r.count)}}, nil
}

// adder answers every "go" with its step, and ends at "won" or "abort".
type adder struct{ step string }

func (a adder) Greeting() string { return "hi" }
func (a adder) Lost() Reaction   { return Reaction{Done: true, Status: 9} }
func (a adder) React(line string) Reaction {
	switch {
	case strings.HasPrefix(line, "go "):
		return Reaction{Replies: []string{a.step}}
	case strings.HasPrefix(line, "won"), line == "abort":
		return Reaction{Done: true, Stderr: line + "\n"}
	}
	return Reaction{}
}

func TestPlayWholeGame(t *testing.T) {
	g, err := Play(&race{seats: 2, target: 5}, []Responder{adder{"2"}, adder{"1"}}, 100)
	if err != nil || g.Violation != nil {
		t.Fatalf("err %v, violation %v", err, g.Violation)
	}
	// 2 (seat 0), 1 (seat 1), 2 (seat 0) = 5: seat 0 wins.
	if got := strings.Join(g.Log(), "|"); got != "count 2|count 3|winner 0" {
		t.Errorf("log %q", got)
	}
	if got := strings.Join(g.Sent(0), ","); got != "2,2" {
		t.Errorf("seat 0 sent %q", got)
	}
	if got := strings.Join(g.Received(1), ","); got != "seat 1,go 2,won 0" {
		t.Errorf("seat 1 received %q", got)
	}
	if !g.Exits[0].Done || !g.Exits[1].Done || g.Stderr[1] != "won 0\n" {
		t.Errorf("exits %+v, stderr %q", g.Exits, g.Stderr)
	}
}

func TestPlayViolationAndLimits(t *testing.T) {
	g, err := Play(&race{seats: 2, target: 5}, []Responder{adder{"2"}, adder{"7"}}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Violation; v == nil || v.Seat != 1 || v.Line != "7" || v.Rule != "add 1 or 2" || v.Status != 3 {
		t.Errorf("violation %+v, want seat 1's 7 against the rule", v)
	}
	if _, err := Play(&race{seats: 2, target: 1000}, []Responder{adder{"1"}, adder{"1"}}, 10); err == nil {
		t.Error("a game past maxLines did not fail")
	}
	if _, err := Play(&race{seats: 2, target: 5}, []Responder{adder{"1"}}, 10); err == nil {
		t.Error("one responder for two seats was accepted")
	}
	silent := adder{"2"}
	if _, err := Play(&race{seats: 1, target: 5}, []Responder{quiet{silent}}, 10); err == nil {
		t.Error("a seat with no reply where one was awaited did not fail")
	}
}

// quiet never replies.
type quiet struct{ adder }

func (quiet) React(string) Reaction { return Reaction{} }
