package scriptcmds

import (
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// command is a script command with its usage: the arguments it takes and what it does
// in one line. The usage is what the command says when it is given wrong arguments, what
// `help` and `gauntlet run -help` print, and what docs/mocks.md's table must show (its
// test checks).
type command struct {
	name, args, summary string
	run                 func(ts *testscript.TestScript, neg bool, args []string)
}

// commands lists the commands this package adds, in the order the documents give them.
func commands() []command {
	return []command{
		{"run", "[-status N|signal:NAME|any[,ALT...]] [-timeout D] [-stdin FILE] [-nofiles] [-reaped] [-allow NAME] [-env NAME] [-signal SIG (-after D | -after-stdout TEXT | -after-stderr TEXT)] PROG [ARGS...] [& | &NAME&]",
			"runs PROG in the sandbox with a deadline and checks its exit status (in the background with & or &NAME&)", Run},
		{"await", "[NAME]",
			"waits for the background run NAME (or every one) and checks it as run would", Await},
		{"freeport", "NAME",
			"sets the variable NAME to a free TCP port of the loopback the case's programs share", FreePort},
		{"waitport", "[-timeout D] PORT",
			"waits until a program listens on 127.0.0.1:PORT, without connecting", WaitPort},
		{"mkplayer", "NAME [MOCKPLAYER-FLAGS...]",
			"puts in $MOCKBIN the program NAME a hub starts as mockplayer with the flags (witnessed)", MkPlayer},
		{"noprocs", "[-allow NAME]...",
			"fails if a process the script started is still running, and kills it", NoProcs},
		{"cmpalt", "stdout|stderr|FILE WANT [[-prefix] ALT...]",
			"compares with WANT, or with an allowed alternative (PASS-LENIENT); -prefix: the output need only begin with the next ALT", CmpAlt},
		{"cmpaltenv", "stdout|stderr|FILE WANT [ALT...]",
			"cmpalt with $VAR in the wanted files replaced by the script's variables", CmpAltEnv},
		{"cmpexcept", "REGEXP stdout|stderr|FILE WANT [ALT...]",
			"cmpalt without the lines REGEXP matches", CmpExcept},
		{"cmpprefix", "stdout|stderr|FILE WANT",
			"passes when the output begins with WANT", CmpPrefix},
		{"transcript", "[-who NAME] FILE...",
			"prints recorded conversations one message a line, for cmp", Transcript},
		{"help", "[COMMAND]",
			"prints the usage of these commands (or of one) on stdout", Help},
	}
}

// Commands returns the commands to put in testscript.Params.Cmds.
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	m := map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	for _, c := range commands() {
		m[c.name] = recorded(c.name, c.run)
	}
	return m
}

// usage is a command's usage line, for its error on wrong arguments.
func usage(name string) string {
	for _, c := range commands() {
		if c.name == name {
			return "usage: " + c.name + " " + c.args
		}
	}
	return "usage: " + name
}

// UsageText describes every command this package adds: its usage line and, indented
// below it, what it does. `gauntlet run -help` ends with it.
func UsageText() string {
	var b strings.Builder
	for _, c := range commands() {
		describe(&b, c)
	}
	return b.String()
}

func describe(b *strings.Builder, c command) {
	fmt.Fprintf(b, "  %s %s\n      %s\n", c.name, c.args, c.summary)
}

// Help prints on stdout the usage of the commands this package adds, or of the one named.
//
//	help run
func Help(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		harnessFail(ts, "%s", usage("help"))
	}
	var b strings.Builder
	for _, c := range commands() {
		if len(args) == 0 || c.name == args[0] {
			describe(&b, c)
		}
	}
	if b.Len() == 0 {
		harnessFail(ts, "help: no command %s among these: %s", args[0], strings.Join(names(), " "))
	}
	ts.Stdout().Write([]byte(b.String()))
}

func names() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return out
}
