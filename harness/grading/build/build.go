// Package build prepares a submission for grading: it copies the submission's folder to a
// scratch place, runs make there with a deadline, counts the compiler's warnings, and finds
// the programs the spec names.
//
// The submission's own folder is never written to, and make runs in its own process group,
// killed whole at the deadline, so a Makefile cannot hang the grader or leave jobs running.
package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
)

// Limits on what a submission may be, so a huge or hostile folder cannot exhaust the grader.
const (
	MaxFiles     = 2000
	MaxTotalSize = 64 << 20 // bytes copied
	MaxLog       = 256 << 10
)

// Options tune a build.
type Options struct {
	Timeout time.Duration // for make (default 2 minutes)
	NoBuild bool          // use the programs as they are, without running make
	Make    string        // the make command (default "make")
	// Boxed runs make as a sandbox user of its own in a box (sandbox.Box: no network, a
	// private /tmp, only this copy writable), with a clean environment and the limits
	// below, and publishes the programs it built through a copy the grader checks. The
	// grader must be root. Without it make runs as the grader's own user: only for trusted
	// folders (tests, a student checking their own work).
	Boxed bool
	// NoBox, with Boxed, builds as a sandbox user without the box (its namespaces and
	// mounts), where the machine refuses them (see grade.Options.NoBox).
	NoBox bool
	// Hide lists folders the build must not see (the other submissions of a cohort).
	Hide []string
	// Keep lists folders of the host the build's box holds beside the copy it builds (the
	// folders the staff keep visible to submissions, scriptcmds.BoxKeepVar); a program that
	// is a link out of the submission is one only when it names a file there or in the
	// system's folders.
	Keep []string
	// Limits of every process of the build (zero: BuildLimits). Limits.CaseMemory and
	// Limits.Processes are also the totals of the whole build, where the machine gives
	// cgroups; Limits.CaseDisk bounds all the files of its copy together (a boxed build).
	Limits sandbox.Limits
	// Paths says where the build leaves a program, relative to the submission's folder,
	// when not at the top under its own name (the grader's -prog NAME=PATH).
	Paths map[string]string
}

// BuildLimits are the default limits of a boxed build: more CPU and memory than a case
// (a compiler needs them), the same kind of bounds on everything else.
func BuildLimits() sandbox.Limits {
	return sandbox.Limits{CPU: 2 * time.Minute, AddressSpace: 2 << 30, Processes: 256,
		FileSize: 64 << 20, OpenFiles: 256, CaseMemory: 2 << 30, CaseDisk: 512 << 20}
}

// limits are the build's limits: Limits, or BuildLimits where it is zero.
func (o Options) limits() sandbox.Limits {
	if o.Limits == (sandbox.Limits{}) {
		return BuildLimits()
	}
	return o.Limits
}

// disk is the size of a boxed build's copy.
func (o Options) disk() int64 {
	if d := o.limits().CaseDisk; d > 0 {
		return d
	}
	return BuildLimits().CaseDisk
}

// Result is what the build produced.
type Result struct {
	Dir      string            // the scratch copy, where make ran and the programs live
	OK       bool              // make succeeded (or NoBuild)
	Log      string            // make's output (stdout and stderr, interleaved), bounded
	Warnings int               // compiler warnings in the log
	Programs map[string]string // spec name -> path of the program found
	Missing  []string          // spec names not found (or not executable)
	Duration time.Duration
	Problem  string // why the build failed, for people ("make exited with status 2", ...)
	// Removed lists the files taken out of the copy before make (removePrebuilt), relative
	// to the submission's folder, sorted: programs are built from the sources, never taken
	// prebuilt.
	Removed []string
	// ByProgram: make failed, and each program was then made on its own (make NAME), as
	// the spec marks the programs a build produces even when another fails to build. The
	// programs found are graded; Missing are those that did not build. Problem says so.
	ByProgram bool
}

// Build copies src into a new folder under scratch, builds it, and looks for the named
// programs. The folder is searchable by others, and the programs found readable and
// executable by others, for the sandbox users that run them. An error means the grader
// itself could not do its job (a HARNESS-ERROR); a failed make is a Result with OK false.
func Build(src, scratch string, names []string, opt Options) (*Result, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 2 * time.Minute
	}
	if opt.Make == "" {
		opt.Make = "make"
	}
	var dir string
	var err error
	if opt.Boxed && !opt.NoBox && !sandbox.Rootless() {
		// The copy is a tmpfs of its own (the grader is root): all the files the build
		// writes together are bounded by Disk, and none reaches the host's disk (a make
		// can write gigabytes). The caller removes it with
		// sandbox.RemoveTree (its scratch space's removal unmounts it).
		dir, _, err = sandbox.MemoryFolderOf(scratch, "build-", opt.disk())
	} else {
		// A plain folder. A grader that is not root, which cannot mount here, bounds a
		// boxed build's files all the same: make's box covers the copy with a tmpfs of
		// Disk in the box's own mount namespace, copied back here once make has ended
		// (sandbox.Box.WorkDisk), so this folder gets at most Disk bytes.
		dir, err = os.MkdirTemp(scratch, "build-")
	}
	if err != nil {
		return nil, err
	}
	// Searchable (not listable) by others: a root grader runs the programs as sandbox
	// users, and a hub of theirs starts its players by their paths in here.
	if err := os.Chmod(dir, 0o711); err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, OK: true, Programs: map[string]string{}}
	if opt.Boxed {
		return buildBoxed(src, res, names, opt)
	}
	if err := copyTree(src, dir); err != nil {
		return nil, fmt.Errorf("copying %s: %w", src, err)
	}
	start := time.Now()
	failed := map[string]bool{} // programs whose own make failed
	if !opt.NoBuild {
		if res.Removed, err = removePrebuilt(dir, names, opt.Paths); err != nil {
			return nil, err
		}
		res.OK, res.Log, res.Problem = runMake(dir, opt)
		failed = res.makeEach(names, opt, func(n string) (bool, string) {
			ok, log, _ := runMake(dir, opt, n)
			return ok, log
		})
		res.Warnings = CountWarnings(res.Log)
	}
	res.Duration = time.Since(start)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if failed[n] {
			res.Missing = append(res.Missing, n)
		} else if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			// Runnable by the sandbox users too, whatever mode the Makefile gave it (a link
			// is left alone: what it points at is not the grader's to change).
			if lst, err := os.Lstat(p); err == nil && lst.Mode().IsRegular() {
				os.Chmod(p, st.Mode().Perm()|0o005)
			}
			res.Programs[n] = p
		} else {
			res.Missing = append(res.Missing, n)
		}
	}
	res.tellByProgram(names, opt)
	return res, nil
}

// makeEach makes each program on its own (make NAME, by makeOne) after a make that exited
// with a status, which may have failed on one program only, and says which failed; not
// after a deadline or a limit, which it would only repeat. It adds each make's log.
func (res *Result) makeEach(names []string, opt Options, makeOne func(name string) (ok bool, log string)) map[string]bool {
	failed := map[string]bool{}
	if res.OK || !strings.HasPrefix(res.Problem, "make exited with status") || len(names) == 0 {
		return failed
	}
	res.ByProgram = true
	for _, n := range names {
		ok, log := makeOne(n)
		res.Log += fmt.Sprintf("\n$ %s %s\n%s", opt.Make, n, log)
		failed[n] = !ok
	}
	return failed
}

// tellByProgram adds to the problem of a build whose programs were made each on its own
// which built and which did not.
func (res *Result) tellByProgram(names []string, opt Options) {
	if res.ByProgram {
		res.Problem += "; then each program made on its own (" + opt.Make + " NAME): "
		if built := len(names) - len(res.Missing); built > 0 {
			var ok []string
			for _, n := range names {
				if res.Programs[n] != "" {
					ok = append(ok, n)
				}
			}
			res.Problem += "built " + strings.Join(ok, " ")
			if len(res.Missing) > 0 {
				res.Problem += "; "
			}
		}
		if len(res.Missing) > 0 {
			res.Problem += "did not build: " + strings.Join(res.Missing, " ")
		}
	}
}

// copyTree copies regular files and folders (not links, devices or version-control
// folders) from src to dst, within the size limits.
func copyTree(src, dst string) error {
	files, total := 0, int64(0)
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if rel != "." && (d.Name() == ".git" || d.Name() == ".svn") {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files++
		total += info.Size()
		if files > MaxFiles || total > MaxTotalSize {
			return fmt.Errorf("submission too large (limits: %d files, %d MiB)", MaxFiles, MaxTotalSize>>20)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		// Copied programs (a prebuilt helper, a script) may be run at once.
		return execfile.WriteFrom(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm()|0o200, in)
	})
}

// removePrebuilt removes from dir, a copy about to be built, every file that make must
// build from the sources: each named like one of the programs (names, at any depth, and
// the file paths names NAME's program, where -prog puts it) and every object file (*.o).
// A submission may hold a program or an object newer than its sources (built on the
// student's machine, or a script in the program's place): make would see nothing to do
// and the grader would grade that file instead of what the sources build. It returns what
// it removed, relative to dir, sorted.
func removePrebuilt(dir string, names []string, paths map[string]string) ([]string, error) {
	program := map[string]bool{}
	for _, n := range names {
		program[n] = true
	}
	at := map[string]bool{}
	for _, rel := range paths {
		at[filepath.Clean(rel)] = true
	}
	var removed []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !program[d.Name()] && !at[rel] && !strings.HasSuffix(d.Name(), ".o") {
			return nil
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		removed = append(removed, rel)
		return nil
	})
	return removed, err
}

// NoSources lists the programs that the build did not make although the submission held a
// prebuilt file of that name (removed before make): the submission has no sources that
// make builds them from.
func (r *Result) NoSources() []string { return NoSources(r.Missing, r.Removed) }

// NoSources is Result.NoSources for the lists of a report: the missing programs named like
// a removed file.
func NoSources(missing, removed []string) []string {
	var out []string
	for _, m := range missing {
		for _, rel := range removed {
			if filepath.Base(rel) == m {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// boundedLog keeps the first MaxLog bytes of make's output.
type boundedLog struct {
	buf bytes.Buffer
	cut bool
}

func (b *boundedLog) Write(p []byte) (int, error) {
	if room := MaxLog - b.buf.Len(); room < len(p) {
		b.cut = true
		p = p[:max(room, 0)]
	}
	b.buf.Write(p)
	return len(p), nil
}

func runMake(dir string, opt Options, targets ...string) (ok bool, log, problem string) {
	ctx, cancel := context.WithTimeout(context.Background(), opt.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, opt.Make, targets...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out boundedLog
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // nothing make started may stay
	}
	log = out.buf.String()
	if out.cut {
		log += fmt.Sprintf("\n[build log cut at %d KiB]\n", MaxLog>>10)
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return false, log, fmt.Sprintf("make did not finish within %v", opt.Timeout)
	case errors.As(err, &ee):
		return false, log, fmt.Sprintf("make exited with status %d", ee.ExitCode())
	case err != nil:
		return false, log, fmt.Sprintf("cannot run make: %v", err)
	}
	return true, log, ""
}

// warningLine is compiled on first use (see Warnings): most processes that link this
// package never build anything.
var warningLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[^\n]*:\d+(:\d+)?: warning: `) })

// CountWarnings counts gcc/clang warnings ("file.c:12:5: warning: ...") in a build log.
func CountWarnings(log string) int {
	return len(warningLine().FindAllStringIndex(log, -1))
}

// Summary is a one-line account of the build, for reports.
func (r *Result) Summary() string {
	var b strings.Builder
	if r.OK {
		fmt.Fprintf(&b, "build ok in %v", r.Duration.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&b, "BUILD-FAIL: %s", r.Problem)
	}
	fmt.Fprintf(&b, ", %d warning(s)", r.Warnings)
	if len(r.Missing) > 0 {
		fmt.Fprintf(&b, ", missing: %s", strings.Join(r.Missing, " "))
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(&b, ", removed before make: %s", strings.Join(r.Removed, " "))
	}
	if ns := r.NoSources(); len(ns) > 0 {
		fmt.Fprintf(&b, ", prebuilt without sources: %s", strings.Join(ns, " "))
	}
	return b.String()
}
