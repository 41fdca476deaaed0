package vmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gauntlet/internal/vmtest/vmspec"
)

// The environment variables of the VM tests.
const (
	// EnableVar=1 runs the VM tests; without it they skip.
	EnableVar = "GAUNTLET_VM"
	// KernelVar names the kernel folder (.ci/vm-kernel prepares one).
	KernelVar = "GAUNTLET_VM_KERNEL_DIR"
	// QemuVar names the qemu binary, if not qemu-system-x86_64 on PATH.
	QemuVar = "GAUNTLET_VM_QEMU"
	// DebugVar=1 shows the kernel's boot messages on the console (Result.Console).
	DebugVar = "GAUNTLET_VM_DEBUG"
	// AccelVar names qemu's accelerator ("kvm" or "tcg"), if not the one accel chooses.
	AccelVar = "GAUNTLET_VM_ACCEL"
)

// cmdline is the kernel's command line: the serial console, no cgroup v1 at all, the
// end of the VM at a panic (qemu runs with -no-reboot), and the boot's messages only
// with DebugVar=1.
func cmdline() string {
	c := "console=ttyS0 panic=-1 cgroup_no_v1=all rdinit=/init"
	if os.Getenv(DebugVar) != "1" {
		c += " quiet loglevel=3"
	}
	return c
}

// accel is qemu's accelerator: KVM where the processor has virtualisation (the vmx or
// svm flag) and /dev/kvm opens, else TCG. /dev/kvm alone is not enough: on a machine
// that is itself a VM it can be there without the processor's support, and qemu's
// "-accel kvm -accel tcg" then starts with KVM and hangs at once instead of falling back.
func accel() string {
	if a := os.Getenv(AccelVar); a != "" {
		return a
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "tcg"
	}
	for _, l := range strings.Split(string(info), "\n") {
		if flags, ok := strings.CutPrefix(l, "flags"); ok {
			fs := strings.Fields(flags)
			if !slices.Contains(fs, "vmx") && !slices.Contains(fs, "svm") {
				return "tcg"
			}
			break
		}
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return "tcg"
	}
	f.Close()
	return "kvm"
}

// prepare is how to get what the VM tests need, for the messages of a test that lacks it.
const prepare = "prepare them with `export " + KernelVar + "=$(.ci/vm-kernel)` as root on Debian (it installs qemu-system-x86 and unpacks Debian's kernel package in a cache folder; docs/contributing.md)"

// Need skips tb unless EnableVar=1; with it, it fails tb when qemu or the kernel folder is
// missing, saying how to prepare them (never a skip then).
func Need(tb testing.TB) {
	tb.Helper()
	if os.Getenv(EnableVar) != "1" {
		tb.Skipf("the VM tests are slow: run them with %s=1 (docs/contributing.md)", EnableVar)
	}
	if _, _, err := setup(); err != nil {
		tb.Fatalf("%s=1, but the VM cannot start: %v; %s", EnableVar, err, prepare)
	}
}

// setup finds qemu and the kernel.
func setup() (qemu string, k kernel, err error) {
	qemu = os.Getenv(QemuVar)
	if qemu == "" {
		qemu = "qemu-system-x86_64"
	}
	if qemu, err = exec.LookPath(qemu); err != nil {
		return "", kernel{}, fmt.Errorf("no qemu: %v", err)
	}
	dir := os.Getenv(KernelVar)
	if dir == "" {
		return "", kernel{}, fmt.Errorf("%s is not set", KernelVar)
	}
	k, err = findKernel(dir)
	return qemu, k, err
}

// Command is what Run runs in the VM, as root. Its files must be where the VM sees them:
// the host's whole root folder is there read-only, but /tmp, /run, /var/tmp, /root and
// /dev/shm are empty tmpfs folders of the VM's own, and the host folders named in Shares
// are there writable at their own paths.
type Command struct {
	Path string   // absolute path of the program
	Args []string // its arguments, without argv[0]
	// Env is added to the VM's base environment: the host's PATH, HOME=/root.
	Env []string
	Dir string // working folder; "/" if empty
	// Shares are host folders shared writable with the VM, each at its own path (under
	// /tmp, /run, /var/tmp or /root when the VM's root lacks it: t.TempDir() folders are
	// fine).
	Shares []string
	// Cgroup is the group the command starts in, a path below the root group such as
	// "system.slice/gauntlet.service" (made, with the controllers of Controllers enabled
	// in each group above it, as systemd places a service); "" is the root group.
	Cgroup string
	// Timeout is the wall-time backstop of the whole VM, boot included: the VM is killed
	// at it and the test fails. Zero means 20 minutes, or less if the test's deadline
	// comes first.
	Timeout time.Duration
}

// Result is how the command ended in the VM.
type Result struct {
	Output  []byte        // its standard output and error, as written
	Status  int           // its exit status, or -1 if a signal killed it
	Signal  int           // the signal that killed it, or 0
	Console string        // the VM's serial console: the kernel's and the init's lines
	Boot    time.Duration // from qemu's start to the command's
	Wall    time.Duration // qemu's whole run
}

// Controllers are the cgroup v2 controllers the VM's root group enables for the groups
// below it, each where the kernel has it.
var Controllers = []string{"cpu", "memory", "pids"}

// modulesNeeded are the kernel modules of 9p over virtio PCI (what they need comes too).
var modulesNeeded = []string{"virtio_pci", "9pnet_virtio", "9p"}

// The mount tags of the VM's 9p folders.
const (
	rootTag  = "vmroot"
	shareTag = "vmshare"
)

// Run boots a VM, runs c in it as root and returns how it ended. It fails tb (Fatal) when
// the VM could not run the command, when the command did not end before the backstop,
// or when no end was reported; the command's own failure is the caller's to judge.
func Run(tb testing.TB, c Command) Result {
	tb.Helper()
	Need(tb)
	r, err := run(tb, c)
	if err != nil {
		tb.Fatalf("vmtest: %v", err)
	}
	return r
}

func run(tb testing.TB, c Command) (Result, error) {
	qemu, k, err := setup()
	if err != nil {
		return Result{}, err
	}
	if !filepath.IsAbs(c.Path) {
		return Result{}, fmt.Errorf("the command's path %q is not absolute", c.Path)
	}
	work := tb.TempDir()
	out := filepath.Join(work, "output")
	spec := vmspec.Spec{
		RootTag:     rootTag,
		Controllers: Controllers,
		Path:        c.Path,
		Args:        c.Args,
		Env:         append([]string{"PATH=" + os.Getenv("PATH"), "HOME=/root"}, c.Env...),
		Dir:         c.Dir,
		Output:      out,
		Cgroup:      c.Cgroup,
	}
	qargs := []string{
		"-nodefaults", "-no-user-config", "-no-reboot",
		"-display", "none", "-serial", "stdio", "-monitor", "none",
		"-accel", accel(),
		"-m", "1024", "-smp", "2",
		"-kernel", k.image,
		"-append", cmdline(),
		"-virtfs", "local,path=/,mount_tag=" + rootTag + ",security_model=none,readonly=on,multidevs=remap",
	}
	for i, d := range append([]string{work}, c.Shares...) {
		d, err := filepath.Abs(d)
		if err != nil {
			return Result{}, err
		}
		tag := shareTag + strconv.Itoa(i)
		spec.Shares = append(spec.Shares, vmspec.Share{Tag: tag, Path: d})
		// A comma ends a value of qemu's option lists; two stand for one.
		qargs = append(qargs, "-virtfs", "local,path="+strings.ReplaceAll(d, ",", ",,")+",mount_tag="+tag+",security_model=none,multidevs=remap")
	}
	initrd := filepath.Join(work, "initramfs.cpio")
	if err := writeInitramfs(initrd, k, spec); err != nil {
		return Result{}, err
	}
	qargs = append(qargs, "-initrd", initrd)

	timeout := c.Timeout
	if timeout == 0 {
		timeout = 20 * time.Minute
	}
	if t, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := t.Deadline(); ok && time.Until(dl)-30*time.Second < timeout {
			timeout = max(time.Until(dl)-30*time.Second, time.Minute)
		}
	}
	cmd := exec.Command(qemu, qargs...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	console, err := cmd.StdoutPipe()
	if err != nil {
		return Result{}, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// The parent-death signal comes when the thread that forked qemu ends: qemu is forked
	// and waited for on a thread this goroutine holds (see buildtest's asUser).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("starting qemu: %v", err)
	}
	var r Result
	var log strings.Builder
	var end *vmspec.End
	var setupErr string
	read := make(chan struct{})
	go func() {
		defer close(read)
		br := bufio.NewReader(console)
		for {
			line, err := br.ReadString('\n')
			log.WriteString(line)
			l := strings.TrimRight(line, "\r\n")
			if l == vmspec.Started && r.Boot == 0 {
				r.Boot = time.Since(start)
			} else if e, ok := vmspec.ParseEnd(l); ok {
				end = &e
			} else if msg, ok := strings.CutPrefix(l, vmspec.ErrorPrefix); ok {
				setupErr = msg
			}
			if err != nil {
				return
			}
		}
	}()
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	<-read
	waitErr := cmd.Wait()
	timedOut := !timer.Stop()
	r.Wall = time.Since(start)
	r.Console = log.String()
	// What the command wrote before an end that tells nothing is in its file still.
	partial := func() string {
		b, err := os.ReadFile(out)
		if err != nil || len(b) == 0 {
			return ""
		}
		return "\nthe command's output so far:\n" + string(b)
	}
	switch {
	case timedOut:
		return r, fmt.Errorf("the VM was killed after %v (its backstop) with no end of its command; its console:\n%s%s", timeout, r.Console, partial())
	case setupErr != "":
		return r, fmt.Errorf("the VM could not run the command: %s; its console:\n%s", setupErr, r.Console)
	case end == nil:
		return r, fmt.Errorf("the VM ended (%v) without saying how its command ended; qemu's errors:\n%s\nits console:\n%s%s", waitErr, stderr.String(), r.Console, partial())
	}
	r.Status, r.Signal = end.Status, end.Signal
	if r.Output, err = os.ReadFile(out); err != nil {
		return r, fmt.Errorf("the command's output: %v", err)
	}
	tb.Logf("vmtest: %s ended (%v): boot %v, VM %v (%s, %s)", c.Path, *end, r.Boot.Round(time.Millisecond), r.Wall.Round(time.Millisecond), accel(), filepath.Base(k.image))
	return r, nil
}

// initOnce holds the init, built once per test binary (in a temporary folder removed at
// once: the bytes are kept).
var initOnce struct {
	sync.Once
	data []byte
	err  error
}

// initProgram is the static init (./vminit), built by the go command.
func initProgram() ([]byte, error) {
	initOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vmtest-init-")
		if err != nil {
			initOnce.err = err
			return
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "init")
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "gauntlet/internal/vmtest/vminit")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			initOnce.err = fmt.Errorf("building the VM's init: %v\n%s", err, out)
			return
		}
		initOnce.data, initOnce.err = os.ReadFile(bin)
	})
	return initOnce.data, initOnce.err
}

// writeInitramfs writes the VM's initramfs: the init, the modules it loads (plain) and
// its spec.
func writeInitramfs(file string, k kernel, spec vmspec.Spec) error {
	initBin, err := initProgram()
	if err != nil {
		return err
	}
	mods, err := loadOrder(k.modules, modulesNeeded)
	if err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	c := &cpioWriter{w: bw}
	c.dir("dev")
	c.char("dev/console", 5, 1)
	c.dir("modules")
	for i, m := range mods {
		data, err := moduleData(filepath.Join(k.modules, m.file))
		if err != nil {
			return err
		}
		name := fmt.Sprintf("modules/%02d-%s.ko", i, moduleName(m.file))
		c.file(name, data)
		spec.Modules = append(spec.Modules, "/"+name)
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	c.file(strings.TrimPrefix(vmspec.File, "/"), js)
	c.file("init", initBin)
	if err := c.close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// GoTest builds the test binary of the module's package pkg (a path like ./harness/box/cgroup,
// from the module's root) on the host, runs it in a VM as root in the package's folder
// with -test.run run and -test.v, env added to its environment, and fails tb (Error)
// with the VM's output if it fails. The output is logged either way: a pattern that
// matches no test passes, with the test binary's warning in the log.
func GoTest(tb testing.TB, pkg, run string, env ...string) Result {
	tb.Helper()
	return RunTest(tb, Test{Pkg: pkg, Run: run, Env: env})
}

// Test is a Go test of this module to run in a VM.
type Test struct {
	Pkg    string   // the package, from the module's root: ./harness/box/cgroup
	Run    string   // the -test.run pattern
	Env    []string // added to the test binary's environment
	Cgroup string   // the group it starts in (Command.Cgroup); "" is the root group
}

// RunTest is GoTest with the group the test starts in.
func RunTest(tb testing.TB, gt Test) Result {
	tb.Helper()
	Need(tb)
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("vmtest: %v", err)
	}
	dir := tb.TempDir()
	bin := filepath.Join(dir, filepath.Base(gt.Pkg)+".test")
	build := exec.Command("go", "test", "-c", "-o", bin, gt.Pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("vmtest: go test -c %s: %v\n%s", gt.Pkg, err, out)
	}
	list := exec.Command("go", "list", "-f", "{{.Dir}}", gt.Pkg)
	list.Dir = root
	pkgDir, err := list.Output()
	if err != nil {
		tb.Fatalf("vmtest: go list %s: %v", gt.Pkg, err)
	}
	shares := []string{dir}
	if hiddenInVM(root) {
		// A checkout under /tmp (CI's, say) is under a tmpfs of the VM's: the test runs in
		// its package's folder and reads its testdata there.
		shares = append(shares, root)
	}
	r := Run(tb, Command{
		Path:   bin,
		Args:   []string{"-test.run", gt.Run, "-test.v", "-test.timeout", "15m"},
		Env:    gt.Env,
		Dir:    strings.TrimSpace(string(pkgDir)),
		Shares: shares,
		Cgroup: gt.Cgroup,
	})
	end := vmspec.End{Status: r.Status, Signal: r.Signal}
	if r.Status != 0 {
		tb.Errorf("vmtest: %s -test.run %q failed in the VM (%v):\n%s", gt.Pkg, gt.Run, end, r.Output)
	} else {
		tb.Logf("vmtest: %s -test.run %q passed in the VM:\n%s", gt.Pkg, gt.Run, r.Output)
	}
	return r
}

// moduleRoot is the folder of the go.mod of the module this test runs in.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not in a module")
	}
	return filepath.Dir(mod), nil
}

// hiddenInVM says whether the host folder dir is below one of the folders that are empty
// tmpfs folders in the VM (/tmp, /run, /var/tmp, /root), where the VM does not see it.
func hiddenInVM(dir string) bool {
	for _, t := range []string{"/tmp", "/run", "/var/tmp", "/root"} {
		if dir == t || strings.HasPrefix(dir, t+"/") {
			return true
		}
	}
	return false
}
