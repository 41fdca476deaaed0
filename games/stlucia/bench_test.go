package stlucia

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGame8 plays whole 8-player games in-process (engine and reference players, no
// processes) and reports games per second.
func BenchmarkGame8(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures, "rolls", "mixed-c.roll"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := ParseRollFile(data)
	if err != nil {
		b.Fatal(err)
	}
	rolls := f.Dice()
	s := []Strategy{EAIT, SCIENCE, HABS, HASS, MABS, EAIT, HABS, HASS}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Simulate(rolls, 30, s, 100000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkEngine8 is BenchmarkGame8 without the transcript Simulate keeps: the engine and
// the players alone, as a grader replaying many games would use them.
func BenchmarkEngine8(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures, "rolls", "mixed-c.roll"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := ParseRollFile(data)
	if err != nil {
		b.Fatal(err)
	}
	rolls := f.Dice()
	s := []Strategy{EAIT, SCIENCE, HABS, HASS, MABS, EAIT, HABS, HASS}
	b.ReportAllocs()
	for b.Loop() {
		g, _ := New(rolls, 30, len(s))
		ps := make([]Player, len(s))
		for i := range ps {
			ps[i] = Player{View: NewView(len(s), i), Strategy: s[i]}
		}
		outs := g.Start()
		for !g.Over() {
			var reply Reply
			for _, o := range outs {
				if o.To != Log {
					if r, ok, _, _ := ps[o.To].HandleMsg(o.Msg); ok {
						reply = r
					}
				}
			}
			if outs, err = g.Apply(reply); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}
