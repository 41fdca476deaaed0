package build

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
	"gauntlet/internal/buildtest/delegate"
)

// boxedOrSkip skips where the machine cannot box a build (not root, or no namespaces):
// the grader refuses to grade there (cmd/gauntlet's tests), so the skip hides nothing.
func boxedOrSkip(t *testing.T) {
	t.Helper()
	buildtest.NeedBox(t, sandbox.BoxProblem())
}

// scratchFor makes a scratch folder the build's user can reach, as the grader's is.
func scratchFor(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	os.Chmod(filepath.Dir(d), 0o755)
	os.Chmod(d, 0o711)
	// A boxed build's copy is a tmpfs mounted in here (before t.TempDir's own cleanup).
	t.Cleanup(func() { sandbox.RemoveTree(d) })
	return d
}

// TestBoxedBuildIsNotRoot is the hostile Makefile: it reports who it runs as, tries the
// network, reads another submission and the grader's environment, leaves a daemon, and
// builds its program into a private folder linked from the top. The build must run as a
// sandbox user with none of that reachable, the daemon must be gone, and the program
// must still be found (never by falling back to root).
func TestBoxedBuildIsNotRoot(t *testing.T) {
	t.Parallel() // a build of its own: beside the memory-total builds, which wait
	boxedOrSkip(t)
	other := t.TempDir()
	os.Chmod(filepath.Dir(other), 0o755)
	os.Chmod(other, 0o755)
	write(t, other, "secret.c", "int answer = 42;\n")
	staff := t.TempDir()
	buildtest.SearchableByOthers(t, staff)
	if err := os.WriteFile(filepath.Join(staff, "solution"), []byte("#!/bin/sh\necho solved\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(graderSecret) == "" {
		t.Fatalf("%s is not set (TestMain): the build's environment would be clean for nothing", graderSecret)
	}
	src := t.TempDir()
	marker := "gauntlet-build-daemon-" + filepath.Base(src)
	// A service of the grading machine, on its loopback.
	port := strconv.Itoa(buildtest.LoopbackService(t, "reached\n"))
	mk := "all:\n" +
		"\t@echo uid=$$(id -u)\n" +
		"\t@bash -c '(exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo net=open) 2>/dev/null || echo net=closed'\n" +
		"\t@cat " + other + "/secret.c 2>/dev/null || echo other=hidden\n" +
		"\t@env | grep -q GAUNTLET_GRADER_SECRET && echo env=leaked || echo env=clean\n" +
		"\tsetsid bash -c 'exec -a " + marker + " sleep 30' </dev/null >/dev/null 2>&1 &\n" +
		"\t@sleep 0.2; ps -eo args | grep -q '^" + marker + "' && echo daemon=started || echo daemon=absent\n" +
		"\tmkdir -p private && printf '#!/bin/sh\\necho hi\\n' > private/prog && chmod 755 private/prog && chmod 700 private && ln -sf private/prog prog\n" +
		"\tln -sf /etc/shadow shadow\n" +
		// A course's reference solution, readable by all on the grading machine but in no
		// box: not a program of the submission (before 2026-11-28 it was, and ran).
		"\tln -sf " + staff + "/solution solved\n" +
		"\tln -sf /bin/true truth\n" +
		// A built file others may write: taken back read-only to them.
		"\ttouch open && chmod 777 open\n"
	write(t, src, "Makefile", mk)
	res, err := Build(src, scratchFor(t), []string{"prog", "shadow", "solved", "truth"}, Options{Boxed: true, Hide: []string{other}, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("build failed: %s\n%s", res.Problem, res.Log)
	}
	for _, want := range []string{"net=closed", "other=hidden", "env=clean", "daemon=started"} {
		if !strings.Contains(res.Log, want) {
			t.Errorf("the build's log lacks %q:\n%s", want, res.Log)
		}
	}
	if strings.Contains(res.Log, "uid=0\n") || !strings.Contains(res.Log, "uid=") {
		t.Errorf("make ran as root (or did not say):\n%s", res.Log)
	}
	procs, _ := hygiene.Scan()
	for _, p := range procs {
		if cmd := hygiene.Cmdline(p.Pid); strings.Contains(cmd, marker) {
			t.Errorf("the Makefile's daemon outlived the build: pid %d %s", p.Pid, cmd)
		}
	}
	if res.Programs["prog"] == "" {
		t.Errorf("a program linked into a private folder was not found: %+v", res)
	}
	if res.Programs["solved"] != "" {
		t.Errorf("a link to a file of the host that no box holds was taken as a program: %s", res.Programs["solved"])
	}
	if res.Programs["truth"] == "" {
		t.Errorf("a link to a system program (/bin/true) was not taken as a program")
	}
	if st, err := os.Stat(filepath.Join(res.Dir, "src", "open")); err != nil || st.Mode().Perm()&0o022 != 0 {
		t.Errorf("a built file others could write stays writable to the cases' users: %v %v", st.Mode(), err)
	}
	if res.Programs["shadow"] != "" {
		t.Errorf("a link to a file outside the submission that others may not read was taken as a program: %s", res.Programs["shadow"])
	}
	// The copy belongs to the grader after the build: a later case's user may get the
	// build's uid, and must not change it.
	var owners []string
	filepath.WalkDir(filepath.Join(res.Dir, "src"), func(p string, d os.DirEntry, err error) error {
		if info, err := os.Lstat(p); err == nil && info.Sys().(*syscall.Stat_t).Uid != 0 {
			owners = append(owners, p)
		}
		return nil
	})
	if len(owners) > 0 {
		t.Errorf("after the build, files not the grader's: %v", owners)
	}
}

// A build has totals of its own: all its files together in its copy (a tmpfs, never the
// host's disk), and where the machine gives cgroups, all its processes' memory together.
// Before 2026-11-28 one make held 4.5 GB and wrote 3 GB to the host's disk.
func TestBoxedBuildTotals(t *testing.T) {
	t.Parallel() // the memory total's build waits 3 s: beside the other tests
	boxedOrSkip(t)
	limits := BuildLimits()
	limits.CaseDisk = 8 << 20
	limits.CaseMemory = 96 << 20
	t.Run("disk", func(t *testing.T) {
		src := t.TempDir()
		write(t, src, "Makefile", "all:\n\thead -c 20000000 /dev/zero > big\n")
		res, err := Build(src, scratchFor(t), nil, Options{Boxed: true, Limits: limits, Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.OK || !strings.Contains(res.Log, "No space left on device") {
			t.Errorf("a build that writes 20 MB into an 8 MiB copy: ok=%v, problem %q, log:\n%s", res.OK, res.Problem, res.Log)
		}
	})
	t.Run("memory", func(t *testing.T) {
		buildtest.NeedBox(t, cgroup.Problem())
		testBuildMemoryTotal(t, limits)
	})
}

// A build by a grader that is not root, whose cgroups are delegated to it, has a memory
// total too.
func TestBoxedBuildTotalsDelegated(t *testing.T) {
	t.Parallel()      // as TestBoxedBuildTotals
	buildtest.Long(t) // as testBuildMemoryTotal, before the rerun that would only skip
	if delegate.AsDelegatedUser(t, "^TestBoxedBuildTotalsDelegated$") {
		return
	}
	buildtest.NeedBox(t, sandbox.RootlessProblem())
	buildtest.NeedBox(t, cgroup.Problem())
	limits := BuildLimits()
	limits.CaseMemory = 96 << 20
	testBuildMemoryTotal(t, limits)
}

// testBuildMemoryTotal builds four processes of 40 MB each, each within the per-process
// limit, together over the build's total of limits.CaseMemory (96 MiB). Each holds its
// 40 MB (dd's buffer, filled, its write blocked on a pipe nobody reads) for 3 s, so the
// four hold them at once however the machine schedules them (`head | tail` let go of each
// 40 MB as soon as it was written, and four quick ones once ran one after another).
func testBuildMemoryTotal(t *testing.T, limits sandbox.Limits) {
	buildtest.Long(t) // 3 s of holding: the full suite (CI's, the v2 VM's) runs it
	src := t.TempDir()
	write(t, src, "Makefile", "all:\n\tfor i in 1 2 3 4; do (dd if=/dev/zero bs=40M count=1 2>/dev/null | sleep 3) & done; wait; exit 1\n")
	res, err := Build(src, scratchFor(t), nil, Options{Boxed: true, Limits: limits, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Problem, "memory total") {
		t.Errorf("a build over its memory total: ok=%v, problem %q, log:\n%s", res.OK, res.Problem, res.Log)
	}
}

// The boxed build removes the prebuilt files too, before make.
func TestBoxedBuildRemovesPrebuiltPrograms(t *testing.T) {
	t.Parallel() // a build of its own: beside the memory-total tests, which wait
	boxedOrSkip(t)
	src := prebuiltSubmission(t)
	buildtest.SearchableByOthers(t, src)
	res, err := Build(src, scratchFor(t), []string{"2310A", "2310B"}, Options{Boxed: true})
	if err != nil {
		t.Fatal(err)
	}
	checkBuiltFromSources(t, res)
}

// All the files a boxed build writes together are bounded by Limits.CaseDisk, many small
// ones as one big one, and the grader's folder gets at most that much: as root the copy
// is a tmpfs of its own on the host; rootless (TestBoxedBuildFilesRootless), a tmpfs in
// make's box, copied back once make has ended (before 2026-11-28 a rootless build's copy
// was a plain folder, bounded per file only). Both end BUILD-FAIL with the same reason.
func TestBoxedBuildFiles(t *testing.T) {
	boxedOrSkip(t)
	testBuildFilesBounded(t)
	testBuildFilesKept(t)
}

// TestBoxedBuildFiles as a grader that is not root.
func TestBoxedBuildFilesRootless(t *testing.T) {
	if buildtest.AsUnprivileged(t, "^TestBoxedBuildFilesRootless$") {
		return
	}
	buildtest.NeedBox(t, sandbox.RootlessProblem())
	testBuildFilesBounded(t)
	testBuildFilesKept(t)
}

// testBuildFilesBounded builds a Makefile that writes 40 files of 1 MiB under a bound of
// 8 MiB, and measures what the build's folder holds after.
func testBuildFilesBounded(t *testing.T) {
	const bound = 8 << 20
	limits := BuildLimits()
	limits.CaseDisk = bound
	src := t.TempDir()
	write(t, src, "Makefile", "all:\n\tfor i in $$(seq 40); do head -c 1048576 /dev/zero > f$$i || exit 1; done\n")
	res, err := Build(src, scratchFor(t), nil, Options{Boxed: true, Limits: limits, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := "the build's files exceed 8388608 bytes, all of them together (make exited with status 2)"
	if res.OK || res.Problem != want {
		t.Errorf("a build that writes 40 MiB in 1 MiB files into an 8 MiB copy: ok=%v, problem %q, want %q; log:\n%s", res.OK, res.Problem, want, res.Log)
	}
	var total int64
	files := 0
	filepath.WalkDir(res.Dir, func(p string, d os.DirEntry, err error) error {
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() {
			total += info.Size()
			files++
		}
		return nil
	})
	if total > bound || files < 2 {
		t.Errorf("the build's folder holds %d bytes in %d files after the build: want at most %d, in more than one file", total, files, bound)
	}
}

// testBuildFilesKept builds a program, a folder, a link and a FIFO, and removes a file of
// the submission: what the build leaves is what the cases see, modes kept.
func testBuildFilesKept(t *testing.T) {
	src := t.TempDir()
	buildtest.SearchableByOthers(t, src)
	write(t, src, "prog.sh", "#!/bin/sh\necho built\n")
	write(t, src, "junk", "prebuilt junk\n")
	write(t, src, "Makefile", "all: prog\nprog: prog.sh\n\tcp prog.sh prog && chmod 750 prog\n"+
		"\tmkdir -p sub/deeper && echo kept > sub/deeper/file && chmod 705 sub\n"+
		"\tln -sf prog link && ln -sf /etc/passwd outside && rm junk && mkfifo fifo\n")
	res, err := Build(src, scratchFor(t), []string{"prog", "link"}, Options{Boxed: true, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Programs["prog"] == "" || res.Programs["link"] == "" {
		t.Fatalf("build: ok=%v problem %q programs %v\n%s", res.OK, res.Problem, res.Programs, res.Log)
	}
	dir := filepath.Join(res.Dir, "src")
	if st, err := os.Lstat(filepath.Join(dir, "prog")); err != nil || st.Mode() != 0o750 {
		t.Errorf("the built program: %v %v, want mode -rwxr-x---", st.Mode(), err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "sub")); err != nil || st.Mode() != os.ModeDir|0o705 {
		t.Errorf("the built folder: %v %v, want drwx---r-x", st.Mode(), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "deeper", "file")); string(b) != "kept\n" {
		t.Errorf("a file in a built folder: %q %v", b, err)
	}
	for link, to := range map[string]string{"link": "prog", "outside": "/etc/passwd"} {
		if got, err := os.Readlink(filepath.Join(dir, link)); got != to {
			t.Errorf("the link %s points to %q (%v), want %q", link, got, err, to)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "junk")); !os.IsNotExist(err) {
		t.Errorf("the file the build removed is still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "prog.sh")); string(b) != "#!/bin/sh\necho built\n" {
		t.Errorf("the submission's source: %q %v", b, err)
	}
	if sandbox.Rootless() {
		// A FIFO is not copied back to the host.
		if _, err := os.Lstat(filepath.Join(dir, "fifo")); !os.IsNotExist(err) {
			t.Errorf("a FIFO the build made was copied back: %v", err)
		}
	}
}
