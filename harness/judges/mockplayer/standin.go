package mockplayer

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"gauntlet/harness/box/cbuild"
)

// standInSource is the stand-in of a witnessed mock player, in C: a program of its own
// that carries nothing of the harness (no suite, no game, no mock), so that a hub that
// reads it, or traces and dumps it, learns nothing. It does what Stub does; the mock's name
// and the witness's token are written into each copy (StandInFor), so that a copy of it,
// renamed or moved (a case's renamed copy of a player), still stands for its mock.
//
//go:embed standin/standin.c
var standInSource []byte

// StandIn returns the stand-in program as built, once per process, with the machine's C
// compiler ($CC, else cc, gcc or clang) in a private temporary folder, which is removed at
// once; StandInFor makes the copy of it that stands for one mock. The error says why it
// could not be built (no C compiler).
var StandIn = sync.OnceValues(buildStandIn)

// standInMarker marks, in the built stand-in, the room for its configuration.
const standInMarker = "GAUNTLET-STANDIN-CONFIG"

// standInRoom is the size of that room (config in standin.c).
const standInRoom = 4096

// StandInFor returns the stand-in for the mock name, whose witness knows its stand-ins by
// token and listens at socket (its fallback for a stand-in that finds no door; "": none):
// the stand-in program with "name\0token\0socket\0" in its room. The copy must be written
// execute-only (the token is what a hub that could read it could forge a hello with).
func StandInFor(name, token, socket string) ([]byte, error) {
	prog, err := StandIn()
	if err != nil {
		return nil, err
	}
	at := bytes.Index(prog, []byte(standInMarker))
	if at < 0 || bytes.Count(prog, []byte(standInMarker)) != 1 || at+standInRoom > len(prog) {
		return nil, errors.New("the stand-in as built has no room for its configuration")
	}
	config := name + "\x00" + token + "\x00" + socket + "\x00"
	if name == "" || token == "" || strings.ContainsRune(name+token+socket, 0) || len(config) >= standInRoom {
		return nil, fmt.Errorf("the stand-in cannot hold the name %q", name)
	}
	out := bytes.Clone(prog)
	room := out[at : at+standInRoom]
	clear(room)
	copy(room, config)
	return out, nil
}

// buildStandIn builds the stand-in (harness/box/cbuild, shared with the sandbox's own C helper).
func buildStandIn() ([]byte, error) { return cbuild.Build("the stand-in", standInSource) }
