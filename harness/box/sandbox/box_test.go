package sandbox_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// boxOrSkip skips a test where the machine cannot give a box, saying why; the grader
// refuses to grade there (see grade's tests), so nothing is hidden by the skip.
func boxOrSkip(t *testing.T) {
	t.Helper()
	buildtest.NeedBox(t, boxProblem())
}

// boxProblem is why this process cannot box: as root, sandbox.BoxProblem; not root, the
// same box rootless (TestSandboxRootless runs the box's tests so).
func boxProblem() error {
	if sandbox.Rootless() {
		return sandbox.RootlessProblem()
	}
	return sandbox.BoxProblem()
}

// TestBoxIsolates runs a shell as a sandbox user in a box and checks each wall from
// inside: private /tmp, /dev/shm, /var/tmp and /run/lock (nothing written there is left on
// the machine), /proc showing its own processes only, no route to the harness's listening
// socket, only loopback, and the kept folder still there.
func TestBoxIsolates(t *testing.T) {
	boxOrSkip(t)
	// A file in the real /tmp that the box must not show.
	marker, err := os.CreateTemp("", "gauntlet-box-marker-")
	if err != nil {
		t.Fatal(err)
	}
	marker.Close()
	defer os.Remove(marker.Name())
	keep := t.TempDir()
	os.Chmod(keep, 0o755)
	if err := os.WriteFile(filepath.Join(keep, "input"), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := buildtest.LoopbackService(t, "reached\n")
	tag := strconv.Itoa(os.Getpid())
	script := `
test -e ` + marker.Name() + ` && echo "tmp: shared" || echo "tmp: private"
echo x > /tmp/left && echo x > /dev/shm/left && echo "tmp: writable"
for d in /var/tmp /run/lock /var/lock; do [ -d $d ] && echo x > $d/left-` + tag + `; done
echo "procs: $(ls -d /proc/[0-9]* | wc -l)"
echo "netdevs: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
(exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + ` && echo "net: reached harness") 2>/dev/null || echo "net: cut off"
cat ` + keep + `/input
`
	cfg := sandbox.Config{Box: &sandbox.Box{Keep: []string{keep}}}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/bash", Args: []string{"-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Procs[0].Stdout)
	for _, want := range []string{"tmp: private\n", "tmp: writable\n", "netdevs: lo \n", "net: cut off\n", "kept\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside the box, want %q; the box said:\n%s%s", want, out, res.Procs[0].Stderr)
		}
	}
	// bash, its subshell and ls (and wc, cut...) of the command substitution: a handful.
	var procs int
	for _, line := range strings.Split(out, "\n") {
		if n, ok := strings.CutPrefix(line, "procs: "); ok {
			procs, _ = strconv.Atoi(n)
		}
	}
	if procs == 0 || procs > 8 {
		t.Errorf("the box sees %d processes in /proc, want only its own few", procs)
	}
	// What the box wrote in the machine's world-writable folders is gone with it.
	for _, f := range []string{"/tmp/left", "/dev/shm/left", "/var/tmp/left-" + tag, "/run/lock/left-" + tag, "/var/lock/left-" + tag} {
		if _, err := os.Stat(f); err == nil {
			os.Remove(f)
			t.Errorf("%s written in the box is on the machine", f)
		}
	}
}

// TestBoxHides covers a folder of Hide with an empty read-only one.
func TestBoxHides(t *testing.T) {
	boxOrSkip(t)
	secret := t.TempDir()
	os.Chmod(secret, 0o755)
	os.Chmod(filepath.Dir(secret), 0o755)
	os.WriteFile(filepath.Join(secret, "other.c"), []byte("int main;\n"), 0o644)
	// The folder above it is kept, so the hidden one is there, empty.
	cfg := sandbox.Config{Box: &sandbox.Box{Hide: []string{secret}, Keep: []string{filepath.Dir(secret)}}}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "ls -A " + secret + " && echo end"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Procs[0].Stdout); got != "end\n" {
		t.Errorf("a hidden folder shows %q, want it empty", got)
	}
}

// Lease squatting: a process that binds the abstract socket name of every uid of the pool
// (the lease's lock before it was a root-only file) no longer keeps the harness from
// leasing a sandbox user.
func TestLeaseCannotBeSquatted(t *testing.T) {
	buildtest.NeedRoot(t, "leases are root's")
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for uid := 1_800_000_000; uid < 1_800_000_000+4096; uid++ {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err == unix.EMFILE {
			buildtest.NeedBox(t, fmt.Errorf("this process may not open the %d sockets the test needs (raise ulimit -n)", 4096))
		}
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, fd)
		unix.Bind(fd, &unix.SockaddrUnix{Name: "@gauntlet-sandbox-uid-" + strconv.Itoa(uid)})
	}
	l, err := sandbox.NewLease()
	if err != nil {
		t.Fatalf("with every abstract name squatted: %v", err)
	}
	l.Release()
}

// A box holds a copy of each of the host's system files (execrole.SystemFiles) that every
// user may read, byte for byte, and each link among them as the same link; none of them
// can be written.
func TestBoxHoldsTheHostsSystemFiles(t *testing.T) {
	boxOrSkip(t)
	var script, want strings.Builder
	for _, f := range execrole.SystemFiles {
		st, err := os.Lstat(f)
		switch {
		case err != nil:
			continue
		case st.Mode()&os.ModeSymlink != 0:
			to, err := os.Readlink(f)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&script, "echo '== %s'; readlink %s\n", f, f)
			fmt.Fprintf(&want, "== %s\n%s\n", f, to)
		case st.Mode().IsRegular() && st.Mode().Perm()&0o004 != 0:
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&script, "echo '== %s'; cat %s; (echo x >> %s) 2>/dev/null && echo written\n", f, f, f)
			fmt.Fprintf(&want, "== %s\n%s", f, data)
		}
	}
	if want.Len() == 0 {
		t.Skip("this host has none of the system files")
	}
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Procs[0].Stdout); got != want.String() {
		t.Errorf("the box's system files are not the host's (stderr %q):\n%s", res.Procs[0].Stderr, diffLines(want.String(), got))
	}
}

// diffLines shows the first line where got differs from want.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, wl, gl)
		}
	}
	return "(same lines)"
}

// A box is an allow-list (since 2026-11-28): a new root holding the system's folders
// read-only, the run's own folders, private /tmp, /var/tmp and /dev/shm, a minimal /dev and
// its own /proc, and nothing else of the host. Before, it was the host with a few folders
// replaced, and a subject read the checkout of the suites, a folder beside its own, and in
// /proc/self/mountinfo the folder of every case box on the machine.
func TestBoxHoldsOnlyWhatItNeeds(t *testing.T) {
	boxOrSkip(t)
	checkout, err := os.Getwd() // the package's folder, in the checkout
	if err != nil {
		t.Fatal(err)
	}
	top := t.TempDir()
	buildtest.SearchableByOthers(t, top)
	keep := filepath.Join(top, "kept")
	beside := filepath.Join(top, "beside")
	for _, d := range []string{keep, beside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "file"), []byte(filepath.Base(d)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `
cat ` + keep + `/file
test -e ` + beside + `/file && echo "beside: seen" || echo "beside: hidden"
test -e ` + checkout + `/box_test.go && echo "checkout: seen" || echo "checkout: hidden"
test -e /etc/shadow && echo "shadow: seen" || echo "shadow: hidden"
grep -q ` + beside + ` /proc/self/mountinfo && echo "mountinfo: names beside" || echo "mountinfo: clean"
echo "root: $(ls -A / | tr '\n' ' ')"
touch /newfile 2>/dev/null && echo "root: writable" || echo "root: read-only"
touch /usr/newfile 2>/dev/null && echo "usr: writable" || echo "usr: read-only"
echo x > /dev/null && head -c 4 /dev/urandom | wc -c
cc --version >/dev/null 2>&1 && echo "cc: runs" || echo "cc: missing"
`
	// As root in the box (a judge's case), where only the box stops it.
	for _, id := range []sandbox.Identity{{Same: true}, {}} {
		cfg := sandbox.Config{Identity: id, Box: &sandbox.Box{Keep: []string{keep}}}
		res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		out := string(res.Procs[0].Stdout)
		for _, want := range []string{"kept\n", "beside: hidden\n", "checkout: hidden\n", "shadow: hidden\n",
			"mountinfo: clean\n", "root: read-only\n", "usr: read-only\n", "4\n", "cc: runs\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("as %+v, want %q; the box said:\n%s%s", id, want, out, res.Procs[0].Stderr)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			names, ok := strings.CutPrefix(line, "root: ")
			if !ok || names == "read-only" || names == "writable" {
				continue
			}
			for _, n := range strings.Fields(names) {
				switch n {
				case "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "tmp", "var", "dev", "proc",
					"sys": // empty: where a box made inside this one makes its root
				case strings.Split(strings.TrimPrefix(keep, "/"), "/")[0]: // where the kept folder lies
				default:
					t.Errorf("the box's root holds %q", n)
				}
			}
		}
	}
}

// A boxed program's init does not keep the run's extra files open: a pipe handed to the
// program ends when the program closes it, while the program still runs (a witnessed
// relay's pipe to the program it relays, whose end of file the program waits for). The
// program here closes its descriptor 3 and then waits on its stdin; the harness must read
// the pipe's end of file meanwhile.
func TestBoxedProgramsExtraFilesEndWithIt(t *testing.T) {
	boxOrSkip(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	g, err := sandbox.Start(sandbox.Config{Box: &sandbox.Box{}, Deadline: time.Minute},
		sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "exec 3>&-; read line; exit 0"}, Stdin: sandbox.Pipe, ExtraFiles: []*os.File{w}})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	// (A backstop: the end of file comes at once, or only with the program's end.)
	r.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := r.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the pipe the program closed: read %d bytes, %v; want its end of file while the program runs", n, err)
	}
	g.Procs()[0].Stdin().Close()
	if res := g.Wait(); res.Procs[0].Exit.Code != 0 || res.Procs[0].Exit.Signal != 0 {
		t.Errorf("the program: %v, want exit status 0", res.Procs[0].Exit)
	}
}
