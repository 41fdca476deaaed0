package metatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/buildtest"
)

// The speed figures of the product, each beside the floor it is compared with. Run on
// demand: go test -run XXX -bench . ./metatest

// BenchmarkProcessFloor starts and reaps /bin/true: what one process costs this machine.
func BenchmarkProcessFloor(b *testing.B) {
	cpu := childCPU()
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((childCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// benchGrade grades the built-in reference programs with -j 2, as the README's command
// does: the whole grade, in the box when the machine gives one.
func benchGrade(b *testing.B, game string) {
	cpu := childCPU()
	for b.Loop() {
		status, rep, text := gradeRun(b, game, "-j", "2")
		if status != 0 || rep.Marks != rep.MaxMarks {
			b.Fatalf("exit %d, %.2f/%.0f\n%s", status, rep.Marks, rep.MaxMarks, text)
		}
	}
	b.ReportMetric(float64((childCPU()-cpu).Milliseconds())/1000/float64(b.N), "cpu-s/op")
}

func BenchmarkGradeStlucia(b *testing.B)    { benchGrade(b, "stlucia") }
func BenchmarkGradeDealer2310(b *testing.B) { benchGrade(b, "dealer2310") }

// BenchmarkReferenceGame plays a 30-site, 6-player 2310dealer game of the reference
// programs as processes (a dealer and six players: seven processes; compare with seven
// times BenchmarkProcessFloor).
func BenchmarkReferenceGame(b *testing.B) {
	dir := buildtest.Programs(b, "gauntlet/cmd/2310dealer", "gauntlet/cmd/2310A", "gauntlet/cmd/2310B")
	work := b.TempDir()
	sites := "::-"
	for i := 0; i < 4; i++ {
		sites += "Mo6V16V26Do6Ri6::-"
	}
	sites += "Mo6V16V26Do6::-"
	os.WriteFile(filepath.Join(work, "d.deck"), []byte("4BDCA\n"), 0o644)
	os.WriteFile(filepath.Join(work, "p.path"), []byte("30;"+sites+"\n"), 0o644)
	a, bb := filepath.Join(dir, "2310A"), filepath.Join(dir, "2310B")
	cpu := childCPU()
	for b.Loop() {
		cmd := exec.Command(filepath.Join(dir, "2310dealer"), "d.deck", "p.path", a, bb, bb, a, bb, a)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
	b.ReportMetric(float64((childCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// childCPU is the CPU used so far by this process's reaped children and their children.
func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
