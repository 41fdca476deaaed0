package hygiene

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// MaxDirEntries bounds how many entries SnapshotDir records, so a subject that creates
// millions of files cannot make the harness hold them all.
const MaxDirEntries = 10000

// FileInfo is what a snapshot keeps of one entry.
type FileInfo struct {
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
}

// DirState is a snapshot of a directory tree: relative slash-separated paths to their
// information. Cut is set when the tree held more than MaxDirEntries entries.
type DirState struct {
	Entries map[string]FileInfo
	Cut     bool
}

// SnapshotDir records every entry below dir (not dir itself), without following symbolic
// links. Entries it cannot read are skipped.
func SnapshotDir(dir string) DirState {
	st := DirState{Entries: map[string]FileInfo{}}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		if len(st.Entries) >= MaxDirEntries {
			st.Cut = true
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil
		}
		st.Entries[filepath.ToSlash(rel)] = FileInfo{Mode: info.Mode(), Size: info.Size(), ModTime: info.ModTime()}
		return nil
	})
	return st
}

// DirChanges lists what differs between two snapshots, each list sorted.
type DirChanges struct {
	Created, Changed, Removed []string
	Cut                       bool // one of the snapshots was cut: the lists may be incomplete
}

// Empty reports whether nothing changed.
func (c DirChanges) Empty() bool {
	return len(c.Created) == 0 && len(c.Changed) == 0 && len(c.Removed) == 0
}

// DiffDirs compares two snapshots of the same directory. An entry is changed when its type,
// permissions, size or modification time differ.
func DiffDirs(before, after DirState) DirChanges {
	c := DirChanges{Cut: before.Cut || after.Cut}
	for p, a := range after.Entries {
		b, ok := before.Entries[p]
		switch {
		case !ok:
			c.Created = append(c.Created, p)
		case a.Mode != b.Mode || a.Size != b.Size || !a.ModTime.Equal(b.ModTime):
			c.Changed = append(c.Changed, p)
		}
	}
	for p := range before.Entries {
		if _, ok := after.Entries[p]; !ok {
			c.Removed = append(c.Removed, p)
		}
	}
	sort.Strings(c.Created)
	sort.Strings(c.Changed)
	sort.Strings(c.Removed)
	return c
}

// RemoveAll removes dir and everything below it, whatever modes a subject left on it: a
// folder it made unreadable, unsearchable or unwritable (chmod 0500 over 40 MiB of files)
// is given back its owner's full rights first, the folders above before those
// below, so that the walk can open each. It returns what still kept anything from going,
// never nil while dir is there: a grader that leaves a subject's files on its disk says so.
func RemoveAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	var errs []error
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			// Before the walk reads it (WalkDir calls this first for a folder).
			if cerr := os.Chmod(path, 0o700); cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
				errs = append(errs, cerr)
			}
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return errors.Join(append([]error{err}, errs...)...)
	}
	return nil
}
