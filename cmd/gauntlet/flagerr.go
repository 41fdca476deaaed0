package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses args with fs, as fs.Parse does, but a bad flag gets its error in one
// line, a did-you-mean for a flag that is not one, and a line saying where the flags are
// listed, never the whole flag list after it (75 lines for gauntlet grade). -h
// and -help still print the command's usage (fs.Usage).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v%s\n", fs.Name(), err, flagSuggestion(fs, err))
		fmt.Fprintf(stderr, "run '%s -help' for the flags\n", fs.Name())
	}
	return err
}

// flagSuggestion is " (did you mean -NAME?)" for the error of a flag that is not one of
// fs's when one of fs's flags is close to it, else "".
func flagSuggestion(fs *flag.FlagSet, err error) string {
	typed, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	typed = strings.TrimLeft(typed, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := didYouMean(typed, names); s != "" {
		return strings.Replace(s, "did you mean ", "did you mean -", 1)
	}
	return ""
}
