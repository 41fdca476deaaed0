package hygiene

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"time"

	"gauntlet/harness/box/rawfile"
)

// TickLength is the length of a clock tick of /proc/PID/stat's times (USER_HZ, 100 on
// Linux).
const TickLength = time.Second / 100

// TreeUse is what a process and every process descended from it have used so far: the
// CPU time of them all, and how long each of their threads has waited to run while it
// could run (the kernel's run delay): time the machine held it, busy with something else.
type TreeUse struct {
	CPU    time.Duration
	Delays map[int]time.Duration // by thread id
	// Runnable says that a thread of the tree was running or waiting to run when read. The
	// kernel adds a wait to a thread's run delay only once the wait is over: the wait of a
	// thread runnable now is not in Delays yet.
	Runnable bool
	// Writing says that a thread of the tree was blocked writing when read: waiting for
	// its reader (a hub the machine holds) to make room, not for anything of its own.
	Writing bool
}

// ReadTreeUse reads the use of process root's tree: TreeCPU, and the run delay of each
// thread of the tree (/proc/PID/task/TID/schedstat); with states, whether a thread is
// runnable or blocked writing now (Runnable, Writing: a read of the thread's system call,
// which waits for it to leave the CPU). It returns ErrGone once root is gone.
func ReadTreeUse(root int, states bool) (TreeUse, error) {
	tree, err := treeOf(root)
	if err != nil {
		return TreeUse{}, err
	}
	u := TreeUse{Delays: map[int]time.Duration{}}
	var ticks uint64
	var buf [1024]byte
	for _, p := range tree {
		ticks += p.CPUTicks + p.ChildTicks
		dir := procRoot + "/" + strconv.Itoa(p.Pid) + "/task"
		tids, err := rawfile.Names(dir)
		if err != nil {
			continue // gone meanwhile
		}
		for _, tid := range tids {
			if states {
				runnable, writing := threadState(dir + "/" + tid)
				u.Runnable = u.Runnable || runnable
				u.Writing = u.Writing || writing
			}
			b, err := rawfile.Read(dir+"/"+tid+"/schedstat", buf[:0])
			if err != nil {
				continue
			}
			// "time on the CPU, time waiting to run, time slices", in nanoseconds.
			f := bytes.Fields(b)
			if len(f) < 2 {
				continue
			}
			id, err1 := strconv.Atoi(tid)
			delay, err2 := strconv.ParseInt(string(f[1]), 10, 64)
			if err1 == nil && err2 == nil {
				u.Delays[id] = time.Duration(delay)
			}
		}
	}
	u.CPU = time.Duration(ticks) * TickLength
	return u, nil
}

// HeldSince is the longest time any thread of u waited to run, while it could run, since
// earlier (a thread new since then: since it started). A tree that computes on a busy
// machine is held about as long as the others run; one that waits (for a line, on the
// clock) is not held at all.
func (u TreeUse) HeldSince(earlier TreeUse) time.Duration {
	var held time.Duration
	for tid, d := range u.Delays {
		held = max(held, d-earlier.Delays[tid])
	}
	return held
}

// TreeCPU is the CPU time, user and system, used so far by process root and by every
// process descended from it, the reaped ones included (the kernel adds a reaped child's
// time to its parent's ChildTicks): what a program computed, whatever it started to do it.
// A process that left the tree (its parent died, so it was reparented) is no longer
// counted. It returns ErrGone once root is gone.
func TreeCPU(root int) (time.Duration, error) {
	tree, err := treeOf(root)
	if err != nil {
		return 0, err
	}
	var ticks uint64
	for _, p := range tree {
		ticks += p.CPUTicks + p.ChildTicks
	}
	return time.Duration(ticks) * TickLength, nil
}

// treeOf reads process root and every process descended from it, walking down the
// children files of each thread (/proc/PID/task/TID/children): the cost is the tree's, not
// the machine's. Where the kernel has no such files, it reads every process of /proc.
func treeOf(root int) ([]Proc, error) {
	p, err := readStat(root)
	if err != nil {
		return nil, err
	}
	tree := []Proc{p}
	for i := 0; i < len(tree); i++ {
		kids, err := childrenOf(tree[i].Pid)
		if err != nil {
			if i == 0 && errors.Is(err, fs.ErrNotExist) {
				if _, gone := readStat(root); gone != nil {
					return nil, gone
				}
				return scanTreeOf(root)
			}
			continue // gone meanwhile
		}
		for _, k := range kids {
			if q, err := readStat(k); err == nil && q.PPid == tree[i].Pid {
				tree = append(tree, q)
			}
		}
	}
	return tree, nil
}

// childrenOf lists the children of every thread of process pid.
func childrenOf(pid int) ([]int, error) {
	dir := procRoot + "/" + strconv.Itoa(pid) + "/task"
	tids, err := rawfile.Names(dir)
	if err != nil {
		return nil, err
	}
	var kids []int
	var buf [512]byte
	for _, tid := range tids {
		b, err := rawfile.Read(dir+"/"+tid+"/children", buf[:0])
		if err != nil {
			if _, gone := os.Stat(dir + "/" + tid); gone == nil && errors.Is(err, fs.ErrNotExist) {
				return nil, err // the thread is there, its file is not: none on this kernel
			}
			continue // the thread ended meanwhile
		}
		for _, f := range bytes.Fields(b) {
			if k, err := strconv.Atoi(string(f)); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids, nil
}

// scanTreeOf is treeOf by reading every process of /proc.
func scanTreeOf(root int) ([]Proc, error) {
	procs, err := Scan()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	byPid := make(map[int]Proc, len(procs))
	for _, p := range procs {
		children[p.PPid] = append(children[p.PPid], p.Pid)
		byPid[p.Pid] = p
	}
	if _, ok := byPid[root]; !ok {
		return nil, ErrGone
	}
	var tree []Proc
	for stack := []int{root}; len(stack) > 0; {
		p := byPid[stack[len(stack)-1]]
		stack = append(stack[:len(stack)-1], children[p.Pid]...)
		tree = append(tree, p)
	}
	return tree, nil
}

// threadState says whether the thread whose /proc folder is dir is runnable (running or
// waiting for a CPU), or else blocked writing.
func threadState(dir string) (runnable, writing bool) {
	var buf [1024]byte
	st, err := rawfile.Read(dir+"/stat", buf[:0])
	if err != nil {
		return false, false
	}
	// The state is the first field after the command name's last ')'.
	if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'R' {
		return true, false
	}
	return false, blockedWriting(dir)
}

// blockedWriting says whether the thread whose /proc folder is dir sits in a write: by its
// system call (/proc/.../syscall, which needs ptrace rights over it), else by the kernel
// function it waits in.
func blockedWriting(dir string) bool {
	var buf [256]byte
	if b, err := rawfile.Read(dir+"/syscall", buf[:0]); err == nil {
		f := bytes.Fields(b)
		if len(f) == 0 {
			return false
		}
		nr, err := strconv.ParseUint(string(f[0]), 10, 64)
		return err == nil && syscalls[uintptr(nr)].class == sysWrite
	}
	b, err := rawfile.Read(dir+"/wchan", buf[:0])
	return err == nil && wchanClass(string(bytes.TrimSpace(b))) == sysWrite
}
