package sandbox

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
)

// The judge's files out of every box. The reference and mock programs
// are one binary that runs as the program its file, or else its argv[0], names; the grader
// carries every suite. Staff install it where programs go: /usr/local/bin, a cluster's
// shared bin folder, a folder GAUNTLET_BOX_BIND shows the boxes. A box holds those folders,
// so before this a submission with no game logic found `gauntlet*` there and exec'd it with
// argv[0] its own program's name, and scored 42/42 as root and rootless; the same held for
// the reference programs installed by name, a hard link or a copy under any name.
//
// So every box masks the judge's files (execrole's Box.Mask), found once per process in
// what every box holds of the host read-only (execrole.System and BindVar's folders), by
// what the file is, never by its name or folder:
//
//   - the same file (device and inode) as this process's binary: a hard link, whatever
//     its name, even one the grader may only run (execute-only);
//   - a Go program of this module (its build information names gauntlet's main module):
//     a copy, any version, any reference program built on its own (cmd/2310dealer);
//   - a file of 1 MiB or more that this process may not read, of the size of its own
//     binary or that it may run: one it cannot tell apart from the judge (a rootless
//     grader and an execute-only copy). A root grader reads every file.
//
// The folders a run keeps (its own, the programs it is handed: the published reference
// programs, the case's bin/; and scriptcmds' GAUNTLET_BOX_KEEP, the staff's shared data,
// which may hold the grader's scratch folder) are not searched: what the harness hands a
// run there is the run's.

// MaskedVar, in the environment of a program started in a box that may make boxes of its
// own (Box.Nested: a judge that is not root), says that its root masks the judge's files
// already: a box it makes holds what its own root holds, masks included, so it searches
// for none (the walk would cost every case its time again).
const MaskedVar = "GAUNTLET_BOX_MASKED"

// minJudgeSize is the size below which a file is not searched: every Go program of the
// module is larger (a reference player alone is some MiB).
const minJudgeSize = 1 << 20

// JudgeFiles lists the judge's files that the boxes of this process would hold. Each folder
// is searched once per process, the first time a box holds it (about 0.4 s of CPU for the
// 130,000 files of a usual /usr).
func JudgeFiles() []string {
	if os.Getenv(MaskedVar) != "" {
		return nil
	}
	var found []string
	for _, root := range judgeRoots() {
		found = append(found, judgeFilesIn(root)...)
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// judgeRoots are the folders of the host that every box holds read-only (execrole.System,
// BindVar's folders).
func judgeRoots() []string {
	roots := slices.Clone(systemRoots())
	for _, p := range filepath.SplitList(os.Getenv(BindVar)) {
		if abs, err := filepath.Abs(p); err == nil && p != "" {
			roots = append(roots, abs)
		}
	}
	return roots
}

// systemRoots are the folders of execrole.System, looked at once per process: a system
// folder that is a link (/bin to usr/bin) is the same link in a box, and not searched.
var systemRoots = sync.OnceValue(func() []string {
	var roots []string
	for _, p := range execrole.System {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			roots = append(roots, p)
		}
	}
	return roots
})

var (
	judgeOnce  = sync.OnceValues(func() (judgeIdentity, string) { return ownIdentity(), ownModule() })
	judgeFound sync.Map // root -> func() []string, the judge's files found there
)

// judgeFilesIn is the judge's files under root, searched for once per process.
func judgeFilesIn(root string) []string {
	f, _ := judgeFound.LoadOrStore(root, sync.OnceValue(func() []string {
		id, module := judgeOnce()
		return findJudgeFiles([]string{root}, id, module)
	}))
	return f.(func() []string)()
}

// judgeIdentity is what makes a file the judge's.
type judgeIdentity struct {
	files map[[2]uint64]bool // device and inode of the judge's binaries
	sizes map[int64]bool     // their sizes
}

// ownIdentity is this process's binary's identity.
func ownIdentity() judgeIdentity {
	id := judgeIdentity{files: map[[2]uint64]bool{}, sizes: map[int64]bool{}}
	var st syscall.Stat_t
	if syscall.Stat("/proc/self/exe", &st) == nil {
		id.files[[2]uint64{st.Dev, st.Ino}] = true
		id.sizes[st.Size] = true
	}
	return id
}

// ownModule is the path of this binary's main module ("gauntlet"), or "" when the binary
// carries no build information.
func ownModule() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Path
	}
	return ""
}

// findJudgeFiles walks roots (never following a link below them) and lists, under the
// root's path as given, every file that is the judge's by id or by carrying module.
func findJudgeFiles(roots []string, id judgeIdentity, module string) []string {
	var found []string
	for _, root := range roots {
		fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		walkJudgeFiles(fd, root, id, module, &found)
		unix.Close(fd)
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// walkJudgeFiles adds to found the judge's files of the folder open at dirfd, whose path is
// dir, and of the folders in it.
func walkJudgeFiles(dirfd int, dir string, id judgeIdentity, module string, found *[]string) {
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(dirfd, buf)
		if err != nil || n <= 0 {
			return
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return
			}
			typ := b[18]
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			s := string(name)
			if s == "." || s == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if unix.Fstatat(dirfd, s, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue
				}
				switch st.Mode & unix.S_IFMT {
				case unix.S_IFDIR:
					typ = unix.DT_DIR
				case unix.S_IFREG:
					typ = unix.DT_REG
				}
			}
			switch typ {
			case unix.DT_DIR:
				sub, err := unix.Openat(dirfd, s, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				if err == nil {
					walkJudgeFiles(sub, dir+"/"+s, id, module, found)
					unix.Close(sub)
				}
			case unix.DT_REG:
				if isJudgeFile(dirfd, s, id, module) {
					*found = append(*found, dir+"/"+s)
				}
			}
		}
	}
}

// isJudgeFile says whether the file name of the folder open at dirfd is the judge's.
func isJudgeFile(dirfd int, name string, id judgeIdentity, module string) bool {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	if id.files[[2]uint64{st.Dev, st.Ino}] {
		return true
	}
	if st.Size < minJudgeSize {
		return false
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		// Not to be told apart: the judge's if it is as large as the judge, or if this
		// process may run it (a box's program, with its user, could too: a copy of another
		// version of the judge, execute-only).
		return id.sizes[st.Size] || unix.Faccessat(dirfd, name, unix.X_OK, unix.AT_EACCESS) == nil
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return module != "" && carriesModule(f, module)
}

// carriesModule says whether f is a Go program whose build information names module as its
// main module ("mod\tMODULE\t" in its .go.buildinfo section, Go 1.18's format and later).
func carriesModule(f io.ReaderAt, module string) bool {
	ef, err := elf.NewFile(f)
	if err != nil {
		return false
	}
	sec := ef.Section(".go.buildinfo")
	if sec == nil || sec.Size > 1<<20 || sec.Type == elf.SHT_NOBITS {
		return false
	}
	data := make([]byte, sec.Size)
	if _, err := sec.ReadAt(data, 0); err != nil && err != io.EOF {
		return false
	}
	const magic = "\xff Go buildinf:"
	if len(data) < 32 || string(data[:len(magic)]) != magic || data[15]&2 == 0 {
		return false // (before Go 1.18 the strings were elsewhere: no such gauntlet)
	}
	rest := data[32:]
	var info string
	for range 2 { // the Go version, then the module information
		n, k := binary.Uvarint(rest)
		if k <= 0 || uint64(len(rest)-k) < n {
			return false
		}
		info, rest = string(rest[k:k+int(n)]), rest[k+int(n):]
	}
	return strings.Contains(info, "\nmod\t"+module+"\t")
}

// Masked says whether every box masks the file at path (a clean absolute path without
// links): a program a submission's build links to, for one, is none in the boxes.
func Masked(path string) bool {
	_, found := slices.BinarySearch(JudgeFiles(), path)
	return found
}
