package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"gauntlet/harness/grading/mutants"
	"gauntlet/programs"
)

// completionScripts are the shell hooks of `gauntlet completion SHELL`. Each asks the binary
// itself for the candidates (`gauntlet __complete WORD...`, the words after "gauntlet", the
// last being the one being typed), so that commands, games, programs and flags are always
// this binary's; a lone "." line asks the shell for file names instead.
var completionScripts = map[string]string{
	"bash": `# bash completion for gauntlet: source <(gauntlet completion bash)
_gauntlet() {
	local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n'
	local out
	out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	if [ "$out" = "." ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	else
		COMPREPLY=($out)
	fi
}
complete -o filenames -F _gauntlet gauntlet
`,
	"zsh": `#compdef gauntlet
# zsh completion for gauntlet: source <(gauntlet completion zsh)
_gauntlet() {
	local -a cands
	cands=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if [[ "${cands[1]}" == "." ]]; then
		_files
	else
		compadd -a cands
	fi
}
compdef _gauntlet gauntlet
`,
	"fish": `# fish completion for gauntlet: gauntlet completion fish | source
function __gauntlet_complete
	set -l words (commandline -opc) (commandline -ct)
	set -l out ($words[1] __complete $words[2..-1] 2>/dev/null)
	if test "$out" = "."
		__fish_complete_path (commandline -ct)
	else
		printf '%s\n' $out
	end
end
complete -c gauntlet -f -a '(__gauntlet_complete)'
`,
}

const completionUsage = `usage: gauntlet completion bash|zsh|fish

Prints a script that makes the shell complete gauntlet's commands, games, programs and
flags (and file names where a file or folder is wanted). To use it for this shell only:

  bash:  source <(gauntlet completion bash)
  zsh:   source <(gauntlet completion zsh)
  fish:  gauntlet completion fish | source

or put the script where the shell loads completions at start (e.g. bash's
/etc/bash_completion.d/gauntlet, a folder of zsh's $fpath as _gauntlet, fish's
~/.config/fish/completions/gauntlet.fish).
`

func completionCmd(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, completionUsage)
		return 0
	}
	if len(args) != 1 || completionScripts[args[0]] == "" {
		fmt.Fprint(stderr, completionUsage)
		return 2
	}
	fmt.Fprint(stdout, completionScripts[args[0]])
	return 0
}

// complete prints the candidates for the last of words (the words after "gauntlet"), one a
// line, or "." when the shell should complete a file name.
func complete(words []string, stdout io.Writer) int {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, prev := words[len(words)-1], words[:len(words)-1]
	var cands []string
	switch {
	case len(prev) == 0:
		cands = commands
	case strings.HasPrefix(cur, "-"):
		cands = commandFlags(prev[0])
		if strings.HasPrefix(cur, "--") {
			// The help writes one dash, as the Go tool; two are accepted, and completed.
			for i, c := range cands {
				cands[i] = "-" + c
			}
		}
	case len(prev) == 1:
		switch prev[0] {
		case "grade":
			cands = programs.GradeGames()
		case "play":
			cands = gamesOfAnyKind()
		case "fuzz":
			cands = fuzzGames()
		case "adequacy":
			cands = mutants.Games()
		case "tournament":
			cands = programs.TournamentGames()
		case "exec":
			for _, p := range programs.All() {
				cands = append(cands, p.Name)
			}
		case "help":
			cands = []string{"grade", "merge", "run", "play", "fuzz", "tournament", "adequacy", "completion"}
		case "completion":
			cands = []string{"bash", "fish", "zsh"}
		case "programs", "version":
		default:
			fmt.Fprintln(stdout, ".")
			return 0
		}
	default:
		fmt.Fprintln(stdout, ".")
		return 0
	}
	for _, c := range cands {
		if strings.HasPrefix(c, cur) {
			fmt.Fprintln(stdout, c)
		}
	}
	return 0
}

// gamesOfAnyKind lists every game name the CLI knows (graded or not), sorted.
func gamesOfAnyKind() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range programs.All() {
		if p.Game != "" && !seen[p.Game] {
			seen[p.Game] = true
			out = append(out, p.Game)
		}
	}
	slices.Sort(out)
	return out
}

var helpFlag = regexp.MustCompile(`(?m)^\s+(--?[a-z][a-z0-9-]*)`)

// commandFlags reads a command's flags from its own --help, so that they are always the
// ones it accepts.
func commandFlags(cmd string) []string {
	switch cmd {
	case "grade", "run":
		cmd = "grade"
	case "play", "fuzz", "tournament", "adequacy", "merge":
	default:
		return nil
	}
	var out, errs bytes.Buffer
	run([]string{cmd, "--help"}, &out, &errs)
	var flags []string
	for _, m := range helpFlag.FindAllStringSubmatch(out.String(), -1) {
		if !slices.Contains(flags, m[1]) {
			flags = append(flags, m[1])
		}
	}
	return flags
}
