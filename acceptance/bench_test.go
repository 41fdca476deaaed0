package acceptance

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"gauntlet/internal/buildtest"
)

// The speed figures of the product, each beside the floor it is compared with. Run on
// demand: go test -run XXX -bench . ./acceptance

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

// BenchmarkGoProcessFloor starts and reaps the smallest Go program (internal/emptygo): the
// Go runtime's own start and exit, the floor of every reference and mock program, which
// are written in Go. Compare with BenchmarkProcessFloor (a C program) and with the
// reference game's seven processes (BenchmarkReferenceGameA).
func BenchmarkGoProcessFloor(b *testing.B) {
	prog := filepath.Join(buildtest.Programs(b, "gauntlet/acceptance/internal/emptygo"), "emptygo")
	cpu := childCPU()
	for b.Loop() {
		if err := exec.Command(prog).Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((childCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// benchGrade grades the built-in reference programs with -j 2, as the README's command
// does: the whole grade, in the box when the machine gives one.
// Its figures: the wall time and CPU of a grade, and the CPU per case run (a case under
// one pairing: the report's cases), the measure of a grade near its floor.
func benchGrade(b *testing.B, game string) {
	cpu := childCPU()
	start := time.Now()
	runs := 0
	for b.Loop() {
		status, rep, text := gradeRun(b, game, "-j", "2")
		if status != 0 || marks(b, rep) != rep.MaxMarks {
			b.Fatalf("exit %d, %.2f/%.0f\n%s", status, marks(b, rep), rep.MaxMarks, text)
		}
		runs += len(rep.Cases)
	}
	used := childCPU() - cpu
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "wall-s/op")
	b.ReportMetric(float64(used.Milliseconds())/1000/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(used.Microseconds())/1000/float64(runs), "cpu-ms/case-run")
}

func BenchmarkGradeStlucia(b *testing.B)    { benchGrade(b, "stlucia") }
func BenchmarkGradeDealer2310(b *testing.B) { benchGrade(b, "dealer2310") }

// BenchmarkGradeNeverAnswers grades testdata/never2310, a dealer2310 submission whose
// players read and never answer and whose dealer never ends, at -j 2: every case waits
// out a timeout, and waiting cases free their CPU slots, so the grade takes about the
// longest timeout times a small factor, not their sum (issue 40: at most 60 s on 2 cores;
// over half an hour before 2026-11-28). It reports the wall and CPU seconds and the marks.
// Run on demand: go test -run XXX -bench NeverAnswers -benchtime 1x ./acceptance
func BenchmarkGradeNeverAnswers(b *testing.B) { benchNever(b, "dealer2310", "testdata/never2310") }

// BenchmarkGradeNeverAnswersStlucia is the same for St Lucia: testdata/neverstlucia, whose
// players read and never answer (as programs that never flush their output) and whose hub
// never ends (issue 40: at most 90 s at -j 2 on 2 cores; a real never-flushing submission
// took 662 s before 2026-11-28).
func BenchmarkGradeNeverAnswersStlucia(b *testing.B) {
	benchNever(b, "stlucia", "testdata/neverstlucia")
}

// benchNever grades the never-answering submission in folder at -j 2 and reports the wall
// and CPU seconds of its grade and its marks.
func benchNever(b *testing.B, game, folder string) {
	dir, err := filepath.Abs(folder)
	if err != nil {
		b.Fatal(err)
	}
	cpu := childCPU()
	start := time.Now()
	var total float64
	for b.Loop() {
		status, rep, text := gradeRun(b, game, "-j", "2", dir)
		if status != 1 || marks(b, rep) >= rep.MaxMarks/2 {
			b.Fatalf("exit %d, %.2f/%.0f: want a failed grade\n%s", status, marks(b, rep), rep.MaxMarks, text)
		}
		total += marks(b, rep)
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "wall-s/op")
	b.ReportMetric(float64((childCPU()-cpu).Milliseconds())/1000/float64(b.N), "cpu-s/op")
	b.ReportMetric(total/float64(b.N), "marks/op")
}

// BenchmarkReferenceGame plays a 30-site, 6-player 2310dealer game of the reference
// programs as processes (a dealer and six players, 2310A and 2310B: seven processes; compare
// with seven times BenchmarkProcessFloor).
func BenchmarkReferenceGame(b *testing.B) {
	dir := buildtest.Programs(b, "gauntlet/cmd/2310dealer", "gauntlet/cmd/2310A", "gauntlet/cmd/2310B")
	a, bb := filepath.Join(dir, "2310A"), filepath.Join(dir, "2310B")
	benchGame(b, filepath.Join(dir, "2310dealer"), a, bb, bb, a, bb, a)
}

// BenchmarkReferenceGameA and BenchmarkCGameA play the same 30-site game with six 2310A
// players: the reference (Go) dealer and players, then a dealer and players written in C
// (fixtures/cgame, compiled with cc -O2). Both print the same 554 lines; the ratio of their
// figures is the price of the reference programs.
func BenchmarkReferenceGameA(b *testing.B) {
	dir := buildtest.Programs(b, "gauntlet/cmd/2310dealer", "gauntlet/cmd/2310A")
	a := filepath.Join(dir, "2310A")
	benchGame(b, filepath.Join(dir, "2310dealer"), a, a, a, a, a, a)
}

func BenchmarkCGameA(b *testing.B) {
	dir := b.TempDir()
	for prog, src := range map[string]string{"2310dealer": "dealer2310.c", "2310A": "player2310a.c"} {
		cc := exec.Command("cc", "-std=gnu99", "-O2", "-o", filepath.Join(dir, prog), filepath.Join("..", "fixtures", "cgame", src))
		if out, err := cc.CombinedOutput(); err != nil {
			b.Fatalf("cc %s: %v\n%s", src, err, out)
		}
	}
	a := filepath.Join(dir, "2310A")
	benchGame(b, filepath.Join(dir, "2310dealer"), a, a, a, a, a, a)
}

// benchGame plays dealer's 30-site game (four sections of Mo V1 V2 Do Ri, then Mo V1 V2 Do,
// capacity 6, barriers between) with the given players, again and again, and reports the
// CPU of every process per game.
func benchGame(b *testing.B, dealer string, players ...string) {
	work := b.TempDir()
	sites := "::-"
	for i := 0; i < 4; i++ {
		sites += "Mo6V16V26Do6Ri6::-"
	}
	sites += "Mo6V16V26Do6::-"
	os.WriteFile(filepath.Join(work, "d.deck"), []byte("4BDCA\n"), 0o644)
	os.WriteFile(filepath.Join(work, "p.path"), []byte("30;"+sites+"\n"), 0o644)
	cpu := childCPU()
	for b.Loop() {
		cmd := exec.Command(dealer, append([]string{"d.deck", "p.path"}, players...)...)
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
