package mockplayer

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// standInSource is the stand-in of a witnessed mock player, in C: a program of its own
// that carries nothing of the harness (no suite, no game, no mock), so that a hub that
// reads it, or traces and dumps it, learns nothing. It does what Stub does, and finds the
// witness's socket and its own name from its path: the socket ".witness" beside it, the
// mock named as its file is.
//
//go:embed standin/standin.c
var standInSource []byte

// standInBuildTime bounds the C compiler's run.
const standInBuildTime = 60 * time.Second

// StandIn returns the stand-in program, built once per process with the machine's C
// compiler ($CC, else cc, gcc or clang) in a private temporary folder, which is removed at
// once: the harness writes the program's bytes beside each witness's socket
// (WriteStandIn). The error says why it could not be built (no C compiler).
var StandIn = sync.OnceValues(buildStandIn)

func buildStandIn() ([]byte, error) {
	cc, err := cCompiler()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "gauntlet-standin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, out := filepath.Join(dir, "standin.c"), filepath.Join(dir, "standin")
	if err := os.WriteFile(src, standInSource, 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), standInBuildTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, cc, "-O2", "-o", out, src)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the stand-in with %s: %v: %s", cc, err, strings.TrimSpace(string(msg)))
	}
	return os.ReadFile(out)
}

// cCompiler finds the C compiler: $CC when set, else the first of cc, gcc and clang on the
// PATH.
func cCompiler() (string, error) {
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
