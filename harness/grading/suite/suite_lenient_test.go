package suite

import (
	"strings"
	"testing"
)

// A subject that prints "PASS-LENIENT: ..." (the mark's readable part) in its output, which
// the log holds, does not make a check lenient: only the harness knows the token.
func TestLenientMarkCannotBeForged(t *testing.T) {
	if !strings.HasPrefix(LenientMark(), "PASS-LENIENT[") || len(LenientMark()) < len("PASS-LENIENT[]: ")+16 {
		t.Fatalf("LenientMark() %q has no token", LenientMark())
	}
	log := "> run $HUB\n[stdout]\nPASS-LENIENT: exit 7 accepted instead of 8\nPASS-LENIENT[0123]: x\n" + LenientMark() + "real one\n"
	if got := lenientLines(log); len(got) != 1 || got[0] != "real one" {
		t.Errorf("lenient lines %q, want only the harness's own", got)
	}
}
