package grade

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// KeepFiles is the most a kept case folder copies of the case's files: a subject that fills
// its folder does not fill the user's disk.
const KeepFiles = 64 << 20

// keepCase keeps a failed case run for a person to look at and rerun: in keep/NAME (NAME
// being the case and its pairing) it writes CASE.txtar (the case as it ran), outcome.txt
// (the verdict, what happened and the log), work/ (a copy of the case's folder as the run
// left it: the subject's files, the inputs, the expected outputs, the mock hub's record)
// and rerun.sh, which runs the case again through the grader with rerun's command line and
// -v. It runs after the case ended, as the grader: the folder is private to the grader's
// user (0700), so that no subject of a later case can read it; links are copied as links
// and never followed, and nothing but files and folders is copied.
func keepCase(keep string, o Outcome, caseDir string, rerun []string) error {
	name := strings.ReplaceAll(o.Case.ID, "/", "_")
	if o.Pairing != Theirs {
		name += "@" + string(o.Pairing)
	}
	dir := filepath.Join(keep, name)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// Named after the case, which is the case's id when the grader loads it (-suite FILE).
	caseFile := filepath.Base(o.Case.ID) + ".txtar"
	if err := os.WriteFile(filepath.Join(dir, caseFile), o.Case.Script, 0o600); err != nil {
		return err
	}
	summary := fmt.Sprintf("%s %s\nrequirement: %s [%s; %s]\nwhat happened: %s\n\nlog:\n%s", o.Verdict, name,
		o.Case.Title, o.Case.Section, o.Case.Category, o.Detail, o.Log)
	if err := os.WriteFile(filepath.Join(dir, "outcome.txt"), []byte(summary), 0o600); err != nil {
		return err
	}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n# Runs case " + o.Case.ID + " again as the grader ran it (every pairing of it), showing\n# its whole log. " + caseFile + " is the case; work/ is what the failed run left.\ncd \"$(dirname \"$0\")\" || exit 2\nexec")
	for _, a := range rerun {
		script.WriteString(" " + shellQuote(a))
	}
	script.WriteString(" -suite " + shellQuote(caseFile) + " -run " + shellQuote("^"+filepath.Base(o.Case.ID)+"$") + " -v\n")
	if err := os.WriteFile(filepath.Join(dir, "rerun.sh"), []byte(script.String()), 0o700); err != nil {
		return err
	}
	budget := int64(KeepFiles)
	return filepath.WalkDir(caseDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder the run made unreadable is left out
		}
		rel, _ := filepath.Rel(caseDir, path)
		dst := filepath.Join(dir, "work", rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err == nil {
				os.Symlink(target, dst)
			}
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > budget {
			return nil
		}
		budget -= info.Size()
		return copyRegular(path, dst)
	})
}

// copyRegular copies one regular file, opened without following a link.
func copyRegular(src, dst string) error {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=+,:-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
