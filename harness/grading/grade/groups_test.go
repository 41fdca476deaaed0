package grade

import (
	"bytes"
	"strings"
	"testing"
)

// One bug met in many cases is one group: the command line, the step number, the line's
// text where only its trailing spaces differ, and the case's name do not count.
func TestGroupCases(t *testing.T) {
	c := func(id string, v Verdict, detail string) CaseReport {
		return CaseReport{ID: id, Pairing: string(Theirs), Counted: true, Verdict: v, Detail: detail}
	}
	cases := []CaseReport{
		c("a1", WrongExit, "run $PLAYER_A 2 7: want exit 3, got 2"),
		c("a2", WrongExit, "run $PLAYER_A 2 : want exit 3, got 2"),
		c("b1", WrongStderr, `stderr and want.stderr differ: at line 2, want "1                    ", got "1"`),
		c("b2", WrongStderr, `cmpprefix: stderr does not begin with want.stderr: at line 2, want "0     ", got "0"`),
		c("c1", Crash, "FAIL at step 7 (line 8 of the conversation: exit 6): want exit status 6, got killed by SIGSEGV"),
		c("c2", Crash, "FAIL at step 19 (line 20 of the conversation: exit 6): want exit status 6, got killed by SIGSEGV"),
		c("d1", WrongExit, "run $PLAYER_A 2 7: want exit 3, got 4"),
		c("e1", WrongStderr, `stderr and want.stderr differ: at line 1, want "Invalid ID", got "Invalid id"`),
		c("e2", WrongStderr, `stderr and want.stderr differ: at line 3, want "Player 1 Money=7", got "Player 1 Money=8"`),
		c("f1", Hygiene, "run $DEALER d1.deck p1.path $PLAYER_A $MOCKBIN/bad exited but left processes running or files behind: zombie not reaped: pid 9 (2310A), child of pid 8"),
		c("f2", Hygiene, "run $DEALER d1.deck p1.path $MOCKBIN/x $PLAYER_A exited but left processes running or files behind: zombie not reaped: pid 4121 (2310A), child of pid 4120"),
		c("g1", Timeout, "run $DEALER a b did not finish within 10s: deadlock: pid 77 (2310dealer) waiting to read after 10.02s"),
		c("g2", Timeout, "run $DEALER c d did not finish within 10s: deadlock: pid 912 (2310dealer) waiting to read after 10.31s"),
		c("p", Pass, ""),
	}
	var got []string
	for _, g := range groupCases(cases, failed) {
		var ids []string
		for _, x := range g {
			ids = append(ids, x.ID)
		}
		got = append(got, strings.Join(ids, "+"))
	}
	want := "a1+a2 b1+b2 c1+c2 d1 e1 e2 f1+f2 g1+g2"
	if strings.Join(got, " ") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, " "), want)
	}

	var b bytes.Buffer
	(&Report{Game: "g", Subject: "s", Cases: cases}).WriteSummary(&b, false)
	for _, w := range []string{"WRONG-EXIT a1 and 1 more case runs the same way\n", "  the same in: a2\n", "CRASH c1 and 1 more", "WRONG-EXIT d1\n"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("the summary lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "WRONG-EXIT a2") {
		t.Errorf("a2 has an entry of its own:\n%s", b.String())
	}
}

// Runs with the same account are one group only when their recorded conversations end the
// same way: a negative points field in the HAP that ends each game is one bug whatever
// the game (h1, h2: other numbers, other players), a reply without its newline is another
// (h3), though the dealer's exit status is the same in all three (issue 57).
func TestGroupsJoinOnlyConversationsOfOneShape(t *testing.T) {
	const header = "the players' side, as the harness recorded it (what the hub sent each one and what it answered):\n"
	c := func(id, conv string) CaseReport {
		return CaseReport{ID: id, Pairing: string(Theirs), Counted: true, Verdict: WrongExit,
			Detail: "run $DEALER d p a b: want exit 0, got 5", Conversation: header + conv}
	}
	cases := []CaseReport{
		c("h1", "  hub -> player 0 | YT\n  player 0 -> hub | DO3\n  hub -> player 1 | HAP0,3,-2,0,0\n  hub -> player 0 | HAP0,3,-2,0,0\n  player 1: player ended with status 6\n  hub -> player 0 | EARLY\n  player 0: player ended with status 5\n"),
		c("h2", "  hub -> player 2 | YT\n  player 2 -> hub | DO17\n  hub -> player 0 | HAP2,17,-1,0,0\n  player 0: player ended with status 6\n  hub -> player 1 | EARLY\n  player 1: player ended with status 5\n  hub -> player 2 | EARLY\n  player 2: player ended with status 5\n"),
		c("h3", "  hub -> player 0 | YT\n  player 0 -> hub | DO6 [no newline]\n  player 0: player ended with status 0\n  hub -> player 1 | EARLY\n  player 1: player ended with status 5\n"),
	}
	var got []string
	for _, g := range groupCases(cases, failed) {
		var ids []string
		for _, x := range g {
			ids = append(ids, x.ID)
		}
		got = append(got, strings.Join(ids, "+"))
	}
	if strings.Join(got, " ") != "h1+h2 h3" {
		t.Errorf("groups %q, want %q", strings.Join(got, " "), "h1+h2 h3")
	}
}
