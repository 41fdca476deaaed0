package vmtest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/internal/vmtest/vmspec"
)

// helperVar makes this test binary, run in a VM, a helper instead of a test run.
const helperVar = "VMTEST_HELPER"

func TestMain(m *testing.M) {
	if h := os.Getenv(helperVar); h != "" {
		os.Exit(helper(h))
	}
	os.Exit(m.Run())
}

// The VM has cgroup v2 alone: no cgroup (v1) mount, cgroup2 on /sys/fs/cgroup, and the
// memory and pids controllers both in the root group and enabled below it. The command
// runs as root, in the root group or in the group Command.Cgroup names, which has them
// too.
func TestPureCgroupV2(t *testing.T) {
	script := `grep -E '^[^ ]+ [^ ]+ cgroup2? ' /proc/mounts | cut -d' ' -f2,3
echo controllers: $(cat /sys/fs/cgroup/cgroup.controllers)
echo subtree: $(cat /sys/fs/cgroup/cgroup.subtree_control)
echo own group: $(cat /sys/fs/cgroup/$(cut -d: -f3 /proc/self/cgroup)/cgroup.controllers)
echo self: $(cat /proc/self/cgroup)
echo uid: $(id -u)
`
	for _, tc := range []struct{ name, group, self string }{
		{"root group", "", "self: 0::/"},
		{"service group", "system.slice/gauntlet.service", "self: 0::/system.slice/gauntlet.service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(t, Command{Path: "/bin/sh", Args: []string{"-c", script}, Cgroup: tc.group})
			if r.Status != 0 {
				t.Fatalf("the script ended with %d:\n%s", r.Status, r.Output)
			}
			lines := strings.Split(strings.TrimSuffix(string(r.Output), "\n"), "\n")
			if len(lines) != 6 || lines[0] != "/sys/fs/cgroup cgroup2" {
				t.Fatalf("the cgroup mounts, then the rest:\n%s\nwant one, cgroup2 on /sys/fs/cgroup, and no cgroup (v1) mount", r.Output)
			}
			for _, l := range lines[1:4] {
				name, list, _ := strings.Cut(l, ": ")
				for _, c := range []string{"memory", "pids"} {
					if !slices.Contains(strings.Fields(list), c) {
						t.Errorf("%s: %q, want %s in it", name, list, c)
					}
				}
			}
			if lines[4] != tc.self || lines[5] != "uid: 0" {
				t.Errorf("the command's group and user: %q, want %q and root", lines[4:], tc.self)
			}
		})
	}
}

// A command's exit status (or the signal that killed it) and its output (standard output
// and error, as written, bytes that are no text and a last line without a newline
// included) come back exactly; a line of the command's own that looks like the VM's
// marker changes nothing.
func TestStatusAndOutput(t *testing.T) {
	for _, tc := range []struct {
		name           string
		script         string
		status, signal int
		want           string
	}{
		{"zero", `printf 'out\n'; printf 'err\n' >&2; printf 'a\000b\377\r\nno newline'`, 0, 0, "out\nerr\na\x00b\xff\r\nno newline"},
		{"non-zero", `printf 'VMTEST-EXIT 0\n'; exit 7`, 7, 0, "VMTEST-EXIT 0\n"},
		{"signal", `printf 'killed\n'; kill -9 $$`, -1, 9, "killed\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(t, Command{Path: "/bin/sh", Args: []string{"-c", tc.script}})
			if r.Status != tc.status || r.Signal != tc.signal {
				t.Errorf("status %d, signal %d; want status %d, signal %d", r.Status, r.Signal, tc.status, tc.signal)
			}
			if string(r.Output) != tc.want {
				t.Errorf("output %q, want %q", r.Output, tc.want)
			}
		})
	}
}

// Run's failures: a command the VM cannot start, or a group that is no path below the
// root, is reported with the init's reason; a command that never ends is killed with
// its VM at the backstop; a VM that ends with no word of its command's end (powered off
// by the command) is an error that shows what the command wrote.
func TestRunFailures(t *testing.T) {
	Need(t)
	for _, tc := range []struct {
		name string
		c    Command
		want string
	}{
		{"no such program", Command{Path: "/nonexistent/program"}, "could not run the command: starting /nonexistent/program: no such file or directory"},
		{"bad group", Command{Path: "/bin/true", Cgroup: "a/../../b"}, `could not run the command: the group "a/../../b" is not a path below the root group`},
		{"backstop", Command{Path: "/bin/sleep", Args: []string{"100000"}, Timeout: 2 * time.Second}, "the VM was killed after 2s (its backstop)"},
		{"no end", Command{Path: "/bin/sh", Args: []string{"-c", "echo said before; sync; echo o >/proc/sysrq-trigger; sleep 100000"}},
			"without saying how its command ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, tc.c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run: %v\nwant an error with %q", err, tc.want)
			}
			if tc.name == "no end" && !strings.Contains(err.Error(), "the command's output so far:\nsaid before\n") {
				t.Errorf("run: %v\nwant the command's output in it", err)
			}
		})
	}
}

// In the VM an unprivileged user (uid 65534) makes a user namespace with a mount
// namespace and calls pivot_root there, as gauntlet's box does: the VM's root is a mount
// of its own (not the initramfs, where pivot_root fails).
func TestUserNamespaceAndPivotRoot(t *testing.T) {
	dir := t.TempDir()
	// A comma in a shared folder's name is one of qemu's option lists' separators.
	shared := filepath.Join(dir, "a,b")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(shared, "vmtest.test")
	if err := copyFile(self, os.Args[0]); err != nil {
		t.Fatal(err)
	}
	r := Run(t, Command{Path: self, Env: []string{helperVar + "=userns"}, Shares: []string{shared}})
	want := "uid 65534\ninside: uid 0\npivot_root: the new root holds [proof]\n"
	if r.Status != 0 || string(r.Output) != want {
		t.Errorf("status %d, output:\n%s\nwant status 0 and:\n%s", r.Status, r.Output, want)
	}
}

// GoTest runs a test of this module in the VM and passes when it passes (harness/box/cgroup's
// totals, on a cgroup v2 kernel), and fails its caller with the test's output when it
// fails (testdata/vmfail fails on purpose).
func TestGoTest(t *testing.T) {
	t.Run("passes", func(t *testing.T) {
		r := GoTest(t, "./harness/box/cgroup", "^TestGroupTotals$", "GAUNTLET_REQUIRE_BOX=1")
		if !bytes.Contains(r.Output, []byte("--- PASS: TestGroupTotals")) {
			t.Errorf("TestGroupTotals did not run and pass:\n%s", r.Output)
		}
	})
	t.Run("fails", func(t *testing.T) {
		rec := &recorder{TB: t}
		r := GoTest(rec, "./internal/vmtest/testdata/vmfail", "^TestFailsOnPurpose$")
		if r.Status != 1 {
			t.Errorf("the failing test binary ended with %d, want 1:\n%s", r.Status, r.Output)
		}
		if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "vmfail: this test fails on purpose") {
			t.Errorf("GoTest's errors: %q, want one with the test's output", rec.errors)
		}
	})
}

// recorder keeps the errors a call reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Without GAUNTLET_VM=1 the VM tests skip; with it, a missing kernel folder or qemu fails
// them with how to prepare, never a skip.
func TestNeed(t *testing.T) {
	// A stand-in for qemu, so that the kernel folder's cases read the same whether or not
	// this machine has qemu installed (a fresh one has not).
	qemu := filepath.Join(t.TempDir(), "qemu-system-x86_64")
	if err := os.WriteFile(qemu, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, enable, kernel, qemu string
		want                       string // "skip", or a part of the failure
	}{
		{"off", "", "", "", "skip"},
		{"no kernel folder", "1", "", qemu, KernelVar + " is not set"},
		{"empty kernel folder", "1", t.TempDir(), qemu, "0 kernel images"},
		{"no qemu", "1", "", "/nonexistent/qemu", "no qemu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnableVar, tc.enable)
			t.Setenv(KernelVar, tc.kernel)
			t.Setenv(QemuVar, tc.qemu)
			got := outcome(Need)
			switch {
			case tc.want == "skip":
				if got != "skip" {
					t.Errorf("Need: %q, want a skip", got)
				}
			case !strings.HasPrefix(got, "fail: ") || !strings.Contains(got, tc.want):
				t.Errorf("Need: %q, want a failure with %q", got, tc.want)
			case !strings.Contains(got, "export "+KernelVar+"=$(.ci/vm-kernel)"):
				t.Errorf("Need's failure %q does not say how to prepare", got)
			}
		})
	}
}

// outcome runs f on a testing.TB that records how it ended: "skip", "fail: message" or
// "ok".
func outcome(f func(testing.TB)) string {
	o := &ender{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(o)
		o.end = "ok"
	}()
	<-done
	return o.end
}

// ender is a testing.TB whose Skipf and Fatalf end the goroutine and say so.
type ender struct {
	testing.TB
	end string
}

func (e *ender) Helper() {}
func (e *ender) Skipf(format string, args ...any) {
	e.end = "skip"
	runtime.Goexit()
}
func (e *ender) Fatalf(format string, args ...any) {
	e.end = "fail: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// The runner's parts that need no VM: the console markers and the initramfs's modules.
func TestParseEnd(t *testing.T) {
	for _, tc := range []struct {
		line string
		end  vmspec.End
		ok   bool
	}{
		{"VMTEST-EXIT 0", vmspec.End{}, true},
		{"VMTEST-EXIT 7\r", vmspec.End{Status: 7}, true},
		{"VMTEST-EXIT signal 9", vmspec.End{Status: -1, Signal: 9}, true},
		{"VMTEST-EXIT 256", vmspec.End{}, false},
		{"VMTEST-EXIT -1", vmspec.End{}, false},
		{"VMTEST-EXIT ", vmspec.End{}, false},
		{"[ 1.0] VMTEST-EXIT 0", vmspec.End{}, false},
	} {
		end, ok := vmspec.ParseEnd(tc.line)
		if end != tc.end || ok != tc.ok {
			t.Errorf("ParseEnd(%q) = %v, %v; want %v, %v", tc.line, end, ok, tc.end, tc.ok)
		}
		if ok {
			if back, _ := vmspec.ParseEnd(end.Line()); back != end {
				t.Errorf("%v's line %q reads back as %v", end, end.Line(), back)
			}
		}
	}
}

// helper is what this test binary does in a VM when helperVar names a part.
func helper(part string) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stdout, "%s: %v\n", part, err)
		return 1
	}
	switch part {
	case "userns":
		// As root: the next part as the unprivileged user, from a copy that user may
		// run (the share is the host's 0700 temporary folder).
		self := "/run/vmtest-helper"
		if err := copyFile(self, os.Args[0]); err != nil {
			return fail(err)
		}
		cmd := exec.Command(self)
		cmd.Env = []string{helperVar + "=nobody"}
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if err := cmd.Run(); err != nil {
			return fail(err)
		}
		return 0
	case "nobody":
		fmt.Printf("uid %d\n", os.Getuid())
		cmd := exec.Command(os.Args[0])
		cmd.Env = []string{helperVar + "=inside"}
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		}
		if err := cmd.Run(); err != nil {
			return fail(err)
		}
		return 0
	case "inside":
		fmt.Printf("inside: uid %d\n", os.Getuid())
		if err := pivotIntoTmpfs(); err != nil {
			return fail(err)
		}
		names, err := os.ReadDir("/")
		if err != nil {
			return fail(err)
		}
		var list []string
		for _, n := range names {
			list = append(list, n.Name())
		}
		fmt.Printf("pivot_root: the new root holds %v\n", list)
		return 0
	}
	return fail(fmt.Errorf("no such helper"))
}

// pivotIntoTmpfs makes a tmpfs with one file the root, as a box does with its own root.
func pivotIntoTmpfs() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %v", err)
	}
	if err := unix.Mount("tmpfs", "/tmp", "tmpfs", 0, ""); err != nil {
		return fmt.Errorf("tmpfs: %v", err)
	}
	if err := os.Mkdir("/tmp/old", 0o755); err != nil {
		return err
	}
	if err := os.WriteFile("/tmp/proof", nil, 0o644); err != nil {
		return err
	}
	if err := unix.PivotRoot("/tmp", "/tmp/old"); err != nil {
		return fmt.Errorf("pivot_root: %v", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	if err := unix.Unmount("/old", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("unmounting the old root: %v", err)
	}
	return os.Remove("/old")
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
