package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// completionShells are the shells memidx completion writes a script for.
var completionShells = []string{"bash", "zsh", "fish"}

// cmdCompletion writes the completion script of a shell, made from the
// command table (table.go): what it offers is what the parser takes.
func cmdCompletion(args []string, stdout io.Writer) error {
	if len(args) != 1 || !slices.Contains(completionShells, args[0]) {
		return usageError("completion takes one shell: %s", strings.Join(completionShells, ", "))
	}
	switch args[0] {
	case "bash":
		_, err := io.WriteString(stdout, bashCompletion(false))
		return err
	case "zsh":
		_, err := io.WriteString(stdout, bashCompletion(true))
		return err
	}
	_, err := io.WriteString(stdout, fishCompletion())
	return err
}

// topCommands are the table's commands (no inspect subjects).
func topCommands() []command {
	var out []command
	for _, c := range commands {
		if !strings.Contains(c.name, " ") {
			out = append(out, c)
		}
	}
	return out
}

// flagWords are the spellings of flags, as typed.
func flagWords(specs []flagSpec) string {
	var words []string
	for _, f := range specs {
		for _, n := range f.names {
			words = append(words, dash(n))
		}
	}
	return strings.Join(words, " ")
}

// valueWords is what completion offers after a flag that takes a value:
// its allowed values or hints, else "" (files and directories are the
// shell's own completion).
func valueWords(f flagSpec) string {
	if f.values != nil {
		return strings.Join(f.values(), " ")
	}
	return strings.Join(f.hints, " ")
}

// bashCompletion is the bash script; zsh runs it through bashcompinit.
func bashCompletion(zsh bool) string {
	var b strings.Builder
	if zsh {
		b.WriteString("# zsh completion for memidx: source <(memidx completion zsh) in ~/.zshrc, after compinit\nautoload -U +X bashcompinit && bashcompinit\n")
	} else {
		b.WriteString("# bash completion for memidx: source <(memidx completion bash) in ~/.bashrc\n")
	}
	var cmdNames []string
	for _, c := range topCommands() {
		cmdNames = append(cmdNames, c.name)
	}
	fmt.Fprintf(&b, `_memidx() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd="" sub="" skip=0 i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if ((skip)); then skip=0; continue; fi
        case $w in
            %s) skip=1 ;;
            -*) ;;
            *) if [[ -z $cmd ]]; then cmd=$w; elif [[ $cmd == inspect && -z $sub ]]; then cmd="inspect $w"; sub=$w; fi ;;
        esac
    done
    case "$cmd:$prev" in
`, strings.Join(valueFlagPatterns(globalFlags), "|"))
	writeBashValues(&b, "*", globalFlags)
	for _, c := range commands {
		writeBashValues(&b, bashQuote(c.name), c.flags)
	}
	fmt.Fprintf(&b, `    esac
    local words
    case $cmd in
        "") words="%s" ;;
`, strings.Join(cmdNames, " "))
	for _, c := range commands {
		words := flagWords(c.flags)
		if len(c.args) > 0 {
			words = strings.TrimSpace(strings.Join(c.args, " ") + " " + words)
		}
		fmt.Fprintf(&b, "        %s) words=%q ;;\n", bashQuote(c.name), words)
	}
	fmt.Fprintf(&b, `    esac
    if [[ $cur == -* ]]; then words="$words %s"; fi
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    if [[ $cur != -* && $cmd != "" && $cmd != completion ]]; then COMPREPLY+=($(compgen -f -- "$cur")); fi
}
complete -F _memidx memidx
`, flagWords(globalFlags))
	return b.String()
}

// valueFlagPatterns are the spellings of the flags that take a value.
func valueFlagPatterns(specs []flagSpec) []string {
	var out []string
	for _, f := range specs {
		if f.arg == "" {
			continue
		}
		for _, n := range f.names {
			out = append(out, dash(n))
		}
	}
	return out
}

// writeBashValues writes the case arms that complete the values of the
// flags of command pattern cmd.
func writeBashValues(b *strings.Builder, cmd string, specs []flagSpec) {
	for _, f := range specs {
		if f.arg == "" {
			continue
		}
		pats := make([]string, len(f.names))
		for i, n := range f.names {
			pats[i] = cmd + ":" + dash(n)
		}
		var action string
		switch {
		case valueWords(f) != "":
			action = fmt.Sprintf(`COMPREPLY=($(compgen -W %q -- "$cur"))`, valueWords(f))
		case f.arg == "DIR":
			action = `COMPREPLY=($(compgen -d -- "$cur"))`
		case f.arg == "FILE":
			action = `COMPREPLY=($(compgen -f -- "$cur"))`
		default:
			action = "COMPREPLY=()"
		}
		fmt.Fprintf(b, "        %s) %s; return ;;\n", strings.Join(pats, "|"), action)
	}
}

// bashQuote quotes a case pattern with a space ("inspect lineage").
func bashQuote(s string) string {
	if strings.Contains(s, " ") {
		return `"` + s + `"`
	}
	return s
}

// fishCompletion is the fish script.
func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# fish completion for memidx: memidx completion fish > ~/.config/fish/completions/memidx.fish\ncomplete -c memidx -f\n")
	var names []string
	for _, c := range topCommands() {
		names = append(names, c.name)
		fmt.Fprintf(&b, "complete -c memidx -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, f := range globalFlags {
		writeFishFlag(&b, "", f)
	}
	for _, c := range commands {
		cond := "__fish_seen_subcommand_from " + c.name
		if sub, ok := strings.CutPrefix(c.name, "inspect "); ok {
			cond = "__fish_seen_subcommand_from inspect; and __fish_seen_subcommand_from " + sub
		}
		if len(c.args) > 0 {
			fmt.Fprintf(&b, "complete -c memidx -n '%s; and not __fish_seen_subcommand_from %s' -a %s\n",
				cond, strings.Join(c.args, " "), fishQuote(strings.Join(c.args, " ")))
		}
		for _, f := range c.flags {
			writeFishFlag(&b, cond, f)
		}
	}
	return b.String()
}

// writeFishFlag writes one flag's complete line, under condition cond.
func writeFishFlag(b *strings.Builder, cond string, f flagSpec) {
	b.WriteString("complete -c memidx")
	if cond != "" {
		fmt.Fprintf(b, " -n '%s'", cond)
	}
	for _, n := range f.names {
		if len(n) == 1 {
			fmt.Fprintf(b, " -s %s", n)
		} else {
			fmt.Fprintf(b, " -l %s", n)
		}
	}
	switch {
	case f.arg == "":
	case valueWords(f) != "":
		fmt.Fprintf(b, " -x -a %s", fishQuote(valueWords(f)))
	case f.arg == "DIR":
		b.WriteString(" -x -a '(__fish_complete_directories)'")
	case f.arg == "FILE":
		b.WriteString(" -r -F")
	default:
		b.WriteString(" -x")
	}
	fmt.Fprintf(b, " -d %s\n", fishQuote(f.help))
}

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
