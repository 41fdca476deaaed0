package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// A box's private /tmp, /var/tmp and /dev/shm are tmpfs mounts of Box.TmpSize bytes each,
// in a root box and in a rootless one (TestSandboxWorkDiskRootless): a program that writes
// more gets ENOSPC there, and nothing of it reaches the host's disk.
func TestBoxTmpIsBounded(t *testing.T) {
	boxOrSkip(t)
	script := `for d in /tmp /var/tmp /dev/shm; do head -c 2097152 /dev/zero > $d/big 2>/dev/null && echo "$d: unbounded" || echo "$d: bounded"; done`
	res, err := sandbox.Run(sandbox.Config{Box: &sandbox.Box{TmpSize: 1 << 20}}, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Procs[0].Stdout)
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if !strings.Contains(out, d+": bounded\n") {
			t.Errorf("2 MiB written in the box's %s of 1 MiB:\n%s%s", d, out, res.Procs[0].Stderr)
		}
	}
}

// The tests of a rootless box's bounds, run as an unprivileged user from a root test run.
func TestSandboxWorkDiskRootless(t *testing.T) {
	t.Parallel() // a process of its own, as another user
	if os.Geteuid() != 0 {
		buildtest.ByRerun(t, "not root: the tests it reruns run here directly")
	}
	asUnprivileged(t, "^(TestBoxTmpIsBounded|TestRootlessWorkDisk)$")
}

// In a rootless box with Box.WorkDisk, the run's working folder is a tmpfs of that size in
// the box, copied in before the program and back out to the host's folder once it has
// ended (execrole's workdisk.go): what the program removed is gone, what it made is there
// with its modes, links stay links (never followed, in the box or on the host), a FIFO is
// not copied, a file it left alone keeps its time, and past the bound its writes fail, the
// result saying the folder was full. A file whose size is past the bound (sparse) is not
// copied back: the disk limit, and the host's folder is left empty.
func TestRootlessWorkDisk(t *testing.T) {
	if !sandbox.Rootless() {
		buildtest.ByRerun(t, "a rootless box's: TestSandboxWorkDiskRootless reruns it as an unprivileged user")
	}
	buildtest.NeedBox(t, sandbox.RootlessProblem())
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	for name, body := range map[string]string{"input": "given\n", "old/file": "old\n", outside: "the host's\n"} {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, name)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC)
	os.Chtimes(filepath.Join(dir, "input"), then, then)
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	script := `cat input; echo written > out 2>/dev/null && echo "out: written" || echo "out: not followed"
rm -r old; mkdir -p new; echo made > new/f; chmod 751 new/f; ln -s /etc/passwd pw; mkfifo fifo
head -c 2097152 /dev/zero > big 2>/dev/null && echo "big: written" || echo "big: full"`
	cfg := sandbox.Config{WorkDir: dir, Box: &sandbox.Box{Keep: []string{dir}, WorkDisk: 1 << 20}}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Procs[0]
	if out := string(p.Stdout); out != "given\nout: not followed\nbig: full\n" || !p.FolderFull || p.Limit != "" {
		t.Errorf("in the box: %q (stderr %q), folder full %v, limit %q", out, p.Stderr, p.FolderFull, p.Limit)
	}
	if st, err := os.Stat(filepath.Join(dir, "input")); err != nil || !st.ModTime().Equal(then) || st.Mode() != 0o640 {
		t.Errorf("the file the program left alone: %v %v", st, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "old")); !os.IsNotExist(err) {
		t.Errorf("the folder the program removed: %v", err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "new", "f")); err != nil || st.Mode() != 0o751 {
		t.Errorf("the file the program made: %v %v", st, err)
	}
	for link, to := range map[string]string{"pw": "/etc/passwd", "out": outside} {
		if got, _ := os.Readlink(filepath.Join(dir, link)); got != to {
			t.Errorf("the link %s points to %q, want %q", link, got, to)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "the host's\n" {
		t.Errorf("the file a link of the folder points to became %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "fifo")); !os.IsNotExist(err) {
		t.Errorf("a FIFO was copied back: %v", err)
	}
	var total int64
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
		return nil
	})
	if total > 1<<20 {
		t.Errorf("the host's folder holds %d bytes after the run, past the bound of %d", total, 1<<20)
	}

	res, err = sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "rm -f big; truncate -s 2M sparse"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Procs[0]; p.Limit != sandbox.LimitDisk || !strings.Contains(string(p.Stderr), "exceed") {
		t.Errorf("a sparse file past the bound: limit %q, stderr %q", p.Limit, p.Stderr)
	}
	if left, err := os.ReadDir(dir); err != nil || len(left) > 0 {
		t.Errorf("after a copy back past the bound, the host's folder holds %v (%v), want nothing", left, err)
	}
}

// BenchmarkRunRootlessWorkDisk measures a rootless boxed run of true in a folder of three
// small files, without and with Box.WorkDisk: the tmpfs and the copies in and out cost the
// difference. Run it as a user other than root.
func BenchmarkRunRootlessWorkDisk(b *testing.B) {
	if !sandbox.Rootless() {
		b.Skip("a rootless box's")
	}
	if err := sandbox.RootlessProblem(); err != nil {
		b.Skipf("no rootless box here: %v", err)
	}
	for _, disk := range []int64{0, 64 << 20} {
		b.Run(fmt.Sprintf("disk=%d", disk), func(b *testing.B) {
			dir := b.TempDir()
			for _, f := range []string{"a", "b", "c"} {
				os.WriteFile(filepath.Join(dir, f), []byte("input\n"), 0o644)
			}
			cfg := sandbox.Config{WorkDir: dir, Box: &sandbox.Box{Keep: []string{dir}, WorkDisk: disk}}
			for b.Loop() {
				res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/true"})
				if err != nil || res.Verdict() != sandbox.OK {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
	}
}
