package execrole

import (
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/buildtest"
)

func TestEncodeDecode(t *testing.T) {
	for _, s := range []Settings{
		{Path: "/bin/true", ErrFD: -1, PPID: 1, UID: -1, GID: -1, CPU: Unlimited, AS: Unlimited, NProc: Unlimited, FSize: Unlimited, NoFile: Unlimited},
		{Path: "/a b/\"q\" 'x'\n\tz", ErrFD: 5, PPID: 42, UID: 61000, GID: 61000, CPU: 10, AS: 1 << 30, NProc: 64,
			NProcRel: true, FSize: 1 << 20, NoFile: 256, Nice: 5,
			Box:    &Box{Keep: []string{"/tmp/case 1", "/tmp/bin"}, Hide: []string{"/srv/other"}, TmpSize: 64 << 20},
			Cgroup: []string{"/sys/fs/cgroup/g/cgroup.procs", "/sys/fs/cgroup/pids/g/cgroup.procs"}},
		{Path: "/p", Box: &Box{TmpSize: 1}},
	} {
		got, err := Decode(s.Encode())
		if err != nil {
			t.Fatalf("%q: %v", s.Encode(), err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("round trip of %+v gave %+v", s, got)
		}
	}
	for _, bad := range []string{"path", `path "/x`, `path "/x" cpu "ten"`, `path /x`} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
}

// The role must run before the rest of the binary initialises: the reason this package
// stands apart (its doc). In the gauntlet binary its init comes before every package of the
// games, the grader and the suites; a dependency that delays it fails here.
func TestRunsBeforeTheBinarysPackages(t *testing.T) {
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	cmd := exec.Command(exe, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	at := -1
	for i, p := range order {
		if p == "gauntlet/execrole" {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no init of gauntlet/execrole in:\n%s", out)
	}
	for _, p := range order[:at] {
		if strings.HasPrefix(p, "gauntlet/") || strings.Contains(p, "testscript") || strings.HasPrefix(p, "text/template") {
			t.Errorf("%s is initialised before gauntlet/execrole", p)
		}
	}
}

// BenchmarkRoleStart starts /bin/true through the role of the gauntlet binary, as the
// sandbox starts every program (no box, no user, no limits); BenchmarkBareStart starts it
// directly. The difference is the role's own cost.
func BenchmarkRoleStart(b *testing.B) {
	exe := buildtest.Path(b, "gauntlet/cmd/gauntlet")
	s := Settings{Path: trueProgram(b), ErrFD: -1, PPID: os.Getpid(), UID: -1, GID: -1,
		CPU: Unlimited, AS: Unlimited, NProc: Unlimited, FSize: Unlimited, NoFile: Unlimited}
	env := append(os.Environ(), Env+"="+s.Encode())
	benchStart(b, func() *exec.Cmd {
		cmd := exec.Command(exe)
		cmd.Env = env
		return cmd
	})
}

func BenchmarkBareStart(b *testing.B) {
	path := trueProgram(b)
	benchStart(b, func() *exec.Cmd { return exec.Command(path) })
}

func trueProgram(b *testing.B) string {
	for _, p := range []string{"/bin/true", "/usr/bin/true"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	b.Skip("no true program")
	return ""
}

// benchStart runs the command cmd makes again and again and reports the CPU of the
// children per run.
func benchStart(b *testing.B, cmd func() *exec.Cmd) {
	before := childCPU()
	for b.Loop() {
		if err := cmd().Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
