package sandbox_test

import (
	"gauntlet/internal/buildtest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
)

// TestHangDiagnosis runs three purpose-built hangs at once and checks that the diagnosis
// taken at the deadline tells them apart, with the evidence that supports it.
func TestHangDiagnosis(t *testing.T) {
	buildtest.Long(t)
	type hangCase struct {
		name  string
		start func(t *testing.T, cfg sandbox.Config) *sandbox.Group
		want  hygiene.HangKind
		check func(t *testing.T, d *hygiene.Diagnosis)
	}
	one := func(name string) func(t *testing.T, cfg sandbox.Config) *sandbox.Group {
		return func(t *testing.T, cfg sandbox.Config) *sandbox.Group {
			g, err := sandbox.Start(cfg, sandbox.Spec{Name: name, Path: prog(name)})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
	}
	cases := []hangCase{
		{
			name: "busy loop", start: one("busy"), want: hygiene.BusyLoop,
			check: func(t *testing.T, d *hygiene.Diagnosis) {
				if len(d.Procs) != 1 || d.Procs[0].Activity != hygiene.ActBusy || d.Procs[0].Comm != "busy" {
					t.Errorf("evidence %v, want one busy process named busy", d.Procs)
				}
			},
		},
		{
			name: "blocked writer", start: one("blockedwriter"), want: hygiene.BlockedWrite,
			check: func(t *testing.T, d *hygiene.Diagnosis) {
				if len(d.Procs) != 1 {
					t.Fatalf("evidence %v, want one process", d.Procs)
				}
				p := d.Procs[0]
				if p.Activity != hygiene.ActWriting || p.Syscall != "write" || !strings.HasPrefix(p.FDTarget, "pipe:[") {
					t.Errorf("evidence %v, want a write on a pipe", p)
				}
			},
		},
		{
			name: "deadlock pair",
			start: func(t *testing.T, cfg sandbox.Config) *sandbox.Group {
				// a's stdout is b's stdin and b's stdout is a's stdin: each reads first.
				ab, abW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				ba, baW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					for _, f := range []*os.File{ab, abW, ba, baW} {
						f.Close()
					}
				}()
				g, err := sandbox.Start(cfg,
					sandbox.Spec{Name: "a", Path: prog("relay"), Stdin: sandbox.File(ba), Stdout: sandbox.File(abW)},
					sandbox.Spec{Name: "b", Path: prog("relay"), Stdin: sandbox.File(ab), Stdout: sandbox.File(baW)})
				if err != nil {
					t.Fatal(err)
				}
				return g
			},
			want: hygiene.Deadlock,
			check: func(t *testing.T, d *hygiene.Diagnosis) {
				if len(d.Procs) != 2 {
					t.Fatalf("evidence %v, want two processes", d.Procs)
				}
				for _, p := range d.Procs {
					if p.Activity != hygiene.ActReading || p.Syscall != "read" || p.FD != 0 || !strings.HasPrefix(p.FDTarget, "pipe:[") {
						t.Errorf("evidence %v, want a read of stdin, a pipe", p)
					}
				}
			},
		},
	}
	results := make([]*sandbox.Result, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		cfg := testConfig()
		cfg.Deadline = slowdown * time.Second
		g := tc.start(t, cfg)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = g.Wait()
		}()
	}
	wg.Wait()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := results[i]
			if res.Verdict() != sandbox.Timeout || res.Hang == nil {
				t.Fatalf("verdict %s, hang %v; want TIMEOUT with a diagnosis", res.Verdict(), res.Hang)
			}
			if res.Hang.Kind != tc.want {
				t.Errorf("diagnosis %s, want %s", res.Hang, tc.want)
			}
			tc.check(t, res.Hang)
			assertNothingLeft(t, res)
		})
	}
}
