package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ReachableByOthers reports why a sandbox user (a uid that owns nothing, see Identity)
// could not run the program at path by that path, or nil when it could: every folder on the
// way, through symbolic links, must be searchable by others, the program executable by
// others and, when it is a script (#!), readable by others too. A harness that lets a
// subject start other programs by path (a hub starting its players) checks them all
// before choosing a sandbox user, since a failure would otherwise look like the subject's.
//
// Group permissions are not considered: a sandbox user is in no group but its own.
func ReachableByOthers(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	// The folders of the path as written, and of where it leads (links on the way may
	// point elsewhere), must all be searchable.
	for _, p := range []string{abs, real} {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			st, err := os.Stat(d)
			if err != nil {
				return err
			}
			if st.Mode().Perm()&0o001 == 0 {
				return fmt.Errorf("%s: folder %s is not searchable by others (mode %04o)", path, d, st.Mode().Perm())
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	st, err := os.Stat(real)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o001 == 0 {
		return fmt.Errorf("%s is not executable by others (mode %04o)", path, st.Mode().Perm())
	}
	if st.Mode().Perm()&0o004 == 0 && isScript(real) {
		return fmt.Errorf("%s is a script not readable by others (mode %04o)", path, st.Mode().Perm())
	}
	return nil
}

// isScript reports whether the file starts with #!, which the kernel then reopens by path
// as the user that runs it.
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte("#!"))
}
