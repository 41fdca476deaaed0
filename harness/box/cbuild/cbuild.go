// Package cbuild builds the small C programs the harness carries as source (the witnessed
// mock player's stand-in, the helper by which a rootless box joins a case's network) with
// the machine's C compiler, each once per process: a program that must carry nothing of
// the harness, or must run single-threaded (which no Go program is), cannot be the
// harness's own binary. Where there is no C compiler, Build says so, and what needs the
// program reports it as a fault of the harness's machine, never of a subject.
package cbuild

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// BuildTime bounds the C compiler's run.
const BuildTime = 60 * time.Second

// Build compiles the C program src with the machine's C compiler ($CC, else cc, gcc or
// clang) in a private temporary folder, which is removed at once, and returns the program.
// name names it in the error (with the compiler and its messages) when it cannot be built.
func Build(name string, src []byte) ([]byte, error) {
	cc, err := Compiler()
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", name, err)
	}
	dir, err := os.MkdirTemp("", "gauntlet-cbuild-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srcPath, out := filepath.Join(dir, "prog.c"), filepath.Join(dir, "prog")
	if err := os.WriteFile(srcPath, src, 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), BuildTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, cc, "-O2", "-o", out, srcPath)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build %s with %s: %v: %s", name, cc, err, strings.TrimSpace(string(msg)))
	}
	return os.ReadFile(out)
}

// Once returns a function that builds src (Build) on its first call and gives every call
// the same program or error: a program built once per process.
func Once(name string, src []byte) func() ([]byte, error) {
	return sync.OnceValues(func() ([]byte, error) { return Build(name, src) })
}

// Compiler finds the C compiler: $CC when set, else the first of cc, gcc and clang on the
// PATH.
func Compiler() (string, error) {
	if cc := os.Getenv("CC"); cc != "" {
		return exec.LookPath(cc)
	}
	for _, name := range []string{"cc", "gcc", "clang"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no C compiler (cc, gcc or clang) on the PATH")
}
