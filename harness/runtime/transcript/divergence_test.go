package transcript

import "testing"

func TestDivergenceText(t *testing.T) {
	d := Divergence{Before: []string{"a", "b", "c", "d"}, First: 1, Got: "x", Want: "e"}
	for _, tc := range []struct {
		context int
		want    string
	}{
		{-1, "|     1  a\n|     2  b\n|     3  c\n|     4  d\n|>    5  x\n|  want  e\n"},
		{2, "|      (2 earlier lines)\n|     3  c\n|     4  d\n|>    5  x\n|  want  e\n"},
		{3, "|      (1 earlier line)\n|     2  b\n|     3  c\n|     4  d\n|>    5  x\n|  want  e\n"},
		{0, "|      (4 earlier lines)\n|>    5  x\n|  want  e\n"},
	} {
		if got := d.Text("|", tc.context); got != tc.want {
			t.Errorf("context %d:\n%s\nwant\n%s", tc.context, got, tc.want)
		}
	}
	// A divergence at the very first line, with the program's output ended early.
	d = Divergence{First: 7, Got: Ended, Want: "Player B wins"}
	if got, want := d.Text("", 5), ">    7  (nothing more)\n  want  Player B wins\n"; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
