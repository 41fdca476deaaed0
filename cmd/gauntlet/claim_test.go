package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A claim goes to the first shard that asks; another shard is refused it, saying who has
// it, while it is fresh; a stale claim (a grade that died) is taken over by the
// submission's own part only, never by a shard that would steal it.
func TestClaims(t *testing.T) {
	out := t.TempDir()
	one, two := newClaimer(out, "1/2"), newClaimer(out, "2/2")
	release, _, ok := one.claim("alice", true)
	if !ok {
		t.Fatal("a new claim was refused")
	}
	release()
	if _, why, ok := two.claim("alice", false); ok || why != "claimed by shard 1/2" {
		t.Errorf("a claim held by 1/2 was given to 2/2 stealing it (%q)", why)
	}
	if _, _, ok := two.claim("alice", true); ok {
		t.Error("a fresh claim was taken over")
	}
	path := filepath.Join(out, claimsDir, "alice")
	old := time.Now().Add(-2 * claimStale)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := two.claim("alice", false); ok {
		t.Error("a stale claim was stolen: its own part takes it over on a rerun")
	}
	release, _, ok = two.claim("alice", true)
	if !ok {
		t.Fatal("the own part did not take over a stale claim")
	}
	defer release()
	if b, _ := os.ReadFile(path); string(b) != "2/2" {
		t.Errorf("the claim taken over says %q, want 2/2", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the claims folder holds %d files, want 1", len(entries))
	}
}

// A claim is kept fresh while its submission is graded.
func TestClaimHeartbeat(t *testing.T) {
	c := newClaimer(t.TempDir(), "1/1")
	c.beat = time.Millisecond
	release, _, ok := c.claim("bob", true)
	if !ok {
		t.Fatal("refused")
	}
	path := filepath.Join(c.dir, "bob")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.ModTime().After(old.Add(time.Minute)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim was never refreshed")
		}
	}
	release()
}
