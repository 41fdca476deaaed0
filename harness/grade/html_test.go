package grade

import (
	"strings"
	"testing"
)

// The HTML page groups failures by verdict and account, marks the divergent step and the
// expected one, and escapes what the subject wrote (it could be markup).
func TestWriteHTML(t *testing.T) {
	div := "the conversation, step by step, up to the first divergence from the engine's:\n" +
		"       1  hub -> player | <b>\n  >    2  player -> hub | <script>alert(1)</script>\n    want  player -> hub | DO1\n"
	r := &Report{Game: "toy", Subject: "s", Marks: 1, MaxMarks: 4,
		Categories: []CategoryReport{{Name: "a", Cases: 2, Passed: 1, Marks: 1, MaxMarks: 2}, {Name: "b", MaxMarks: 2}},
		Cases: []CaseReport{
			{ID: "one", Pairing: string(Theirs), Verdict: Protocol, Detail: "FAIL at step 2", Divergence: div},
			{ID: "two", Pairing: string(Theirs), Verdict: Protocol, Detail: "FAIL at step 2", Divergence: div},
			{ID: "three", Pairing: string(Theirs), Verdict: WrongExit, Detail: "want exit 3, got 2", Log: "> run <x>\n"},
			{ID: "four", Pairing: string(Theirs), Verdict: Pass},
		}}
	var b strings.Builder
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`Total: 1.00 / 4, 1 of 4 case runs passed`,
		`<td>a</td><td>1/2</td><td class="lost">1.00/2</td>`,
		`<td>b</td><td>-</td><td>-/2 (no case run)</td>`,
		`Failures (2 kinds)`,
		`2 cases: one, two`,
		`<tr class="diverged"><td class="n">&#9654; 2</td><td>player -&gt; hub | &lt;script&gt;alert(1)&lt;/script&gt;</td></tr>`,
		`<tr class="want"><td class="n">want</td><td>player -&gt; hub | DO1</td></tr>`,
		`<pre>&gt; run &lt;x&gt;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("the subject's text reached the page as markup")
	}
	if t.Failed() {
		t.Log(page)
	}
}
