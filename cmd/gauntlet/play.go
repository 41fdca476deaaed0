package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/transcript"
	"gauntlet/programs"
)

// play runs a reference game as separate processes, exactly as a user would run the spec's
// programs: the hub is started with its arguments and finds its players in PATH.
func play(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gauntlet play", flag.ContinueOnError)
	fs.SetOutput(stderr)
	example := fs.String("example", "", "the built-in example to run (default: the game's first)")
	usageTo := func(w io.Writer) {
		fmt.Fprint(w, "usage: gauntlet play GAME [-example NAME] [-- HUB-ARGS...]\n\nBuilt-in examples:\n")
		for _, e := range programs.Examples {
			fmt.Fprintf(w, "  %-10s %-6s %s\n", e.Game, e.Name, e.About)
		}
		fmt.Fprint(w, "\nWith HUB-ARGS, the hub runs with them instead (files relative to the current directory).\n"+
			"Exit status: the hub's (128+N when signal N killed it), or 2 on a usage error.\n")
	}
	fs.Usage = func() { usageTo(stderr) }
	if wantsHelp(args) {
		usageTo(stdout)
		return 0
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return 2
	}
	game := args[0]
	if err := parseFlags(fs, args[1:], stderr); err != nil {
		return 2
	}
	ex, ok := programs.FindExample(game, *example)
	if !ok {
		var names []string
		for _, e := range programs.Examples {
			if e.Game == game {
				names = append(names, e.Name)
			}
		}
		if len(names) == 0 {
			fmt.Fprintf(stderr, "gauntlet play: no game %q%s\n", game, didYouMean(game, programs.GradeGames()))
		} else {
			fmt.Fprintf(stderr, "gauntlet play: %s has no example %q (examples: %s)\n", game, *example, strings.Join(names, ", "))
		}
		fs.Usage()
		return 2
	}
	progs := programs.Game(game)
	if len(progs) == 0 {
		fmt.Fprintf(stderr, "gauntlet play: the programs of %q are not built in\n", game)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet play: %v\n", err)
		return 2
	}
	dir, err := os.MkdirTemp("", "gauntlet-play-")
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet play: %v\n", err)
		return 2
	}
	defer os.RemoveAll(dir)
	// Links named after the programs: run through them, gauntlet is that program.
	for _, p := range progs {
		if err := os.Symlink(self, filepath.Join(dir, p.Name)); err != nil {
			fmt.Fprintf(stderr, "gauntlet play: %v\n", err)
			return 2
		}
	}
	hubArgs, shown := fs.Args(), fs.Args()
	if len(hubArgs) > 0 && os.Geteuid() == 0 {
		// play runs what it is given as its caller, as the programs would run from a shell.
		fmt.Fprintln(stderr, "gauntlet play: note: as root, the programs HUB-ARGS names run as root, without a box: play shows a game; to judge programs, grade them or play a tournament, which box them")
	}
	if len(hubArgs) == 0 {
		shown = ex.Args
		hubArgs = append([]string{}, ex.Args...)
		for i, a := range hubArgs {
			if contents, ok := ex.Files[a]; ok {
				path := filepath.Join(dir, a)
				if err := os.WriteFile(path, []byte(contents), 0o644); err != nil {
					fmt.Fprintf(stderr, "gauntlet play: %v\n", err)
					return 2
				}
				hubArgs[i] = path
			}
		}
		fmt.Fprintf(stderr, "gauntlet play: %s\n", ex.About)
		for _, name := range slices.Sorted(maps.Keys(ex.Files)) {
			fmt.Fprintf(stderr, "gauntlet play: %s contains %q\n", name, ex.Files[name])
		}
	}
	hub := progs[0]
	cmd := child.Command(child.Spec{
		Path: filepath.Join(dir, hub.Name), Args: hubArgs,
		Env: append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH")),
	})
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, stdout, stderr
	fmt.Fprintf(stderr, "gauntlet play: running %s %s\n", hub.Name, strings.Join(shown, " "))
	err = child.Run(cmd)
	var ee *exec.ExitError
	switch {
	case err == nil:
		fmt.Fprintf(stderr, "gauntlet play: %s exited with status 0\n", hub.Name)
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			fmt.Fprintf(stderr, "gauntlet play: %s was killed by %s\n", hub.Name, transcript.SignalName(ws.Signal()))
			return 128 + int(ws.Signal())
		}
		fmt.Fprintf(stderr, "gauntlet play: %s exited with status %d\n", hub.Name, ee.ExitCode())
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "gauntlet play: %v\n", err)
	return 2
}
