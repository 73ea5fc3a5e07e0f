package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/memidx/memidx/engine"
)

// The command table: every command, its flags and their allowed values,
// declared once. The parser checks each command's flag set against it
// (checkFlags) and refuses a value outside a flag's set; the help texts,
// the "did you mean" suggestions and the shell completion scripts are all
// generated from it, so none of them can drift from what is parsed.

// flagSpec is one flag of a command.
type flagSpec struct {
	// names: the first is the flag's name, the others its aliases.
	names []string
	// arg is the value's metavariable; "" for a switch.
	arg  string
	help string
	// values, when set, is the closed set of the flag's values: any other
	// is a usage error (exit 2) that lists them.
	values func() []string
	// hints are values offered by completion, not enforced (a scope may
	// also be session:<id>).
	hints []string
	// global flags set themselves on the globals.
	global func(g *globals, v string)
}

// command is one command (or inspect subject) of the table.
type command struct {
	name string
	// synopsis follows "usage: memidx NAME".
	synopsis string
	// list is the command's column in the command list; "" keeps it out.
	list, summary string
	// about is the help's prose, before the flags.
	about string
	flags []flagSpec
	// args are the words completion offers for the first argument.
	args []string
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func modes() []string    { return strs(engine.QueryModes()) }
func matches() []string  { return strs(engine.QueryMatches()) }
func branches() []string { return strs(engine.BranchModes()) }

// formats and colors are the values of the global --format and --color.
func formats() []string { return []string{formatText, formatJSON} }
func colors() []string  { return []string{colorAuto, colorAlways, colorNever} }

var scopeHints = []string{"session", "project", "global", "session:"}

var (
	branchesFlag  = flagSpec{names: []string{"branches"}, arg: "M", help: "branches to read (default active)", values: branches}
	scopeFlag     = flagSpec{names: []string{"scope"}, arg: "S", help: "session, project, global or session:<id-or-path>", hints: scopeHints}
	jsonFlag      = flagSpec{names: []string{"json"}, help: "JSON even on a terminal (as the global --json)"}
	liveFlagSpecs = []flagSpec{
		{names: []string{"live-session"}, arg: "FILE", help: "the host's live session file"},
		{names: []string{"live-leaf"}, arg: "ID", help: "the live leaf id"},
		{names: []string{"live-branch"}, arg: "IDS", help: "the live branch ids, root to leaf, comma-separated"},
	}
	selectorFlags = []flagSpec{
		{names: []string{"n"}, arg: "INDEX", help: "entry index; repeat or comma-separate"},
		{names: []string{"entry-id"}, arg: "ID", help: "stable entry id; repeat"},
		{names: []string{"address"}, arg: "A", help: "operation address; repeat"},
		{names: []string{"range"}, arg: "A..B", help: "inclusive entry range"},
		{names: []string{"B"}, arg: "N", help: "entries of context before (0..100)"},
		{names: []string{"A"}, arg: "N", help: "entries of context after (0..100)"},
		{names: []string{"C"}, arg: "N", help: "entries of context before and after (0..100)"},
		branchesFlag,
		{names: []string{"max-chars"}, arg: "N", help: "characters per response (256..24000)"},
		{names: []string{"max-entries"}, arg: "N", help: "entries per response (1..20)"},
	}
)

// join is the flag groups of a command as one list.
func join(groups ...[]flagSpec) []flagSpec { return slices.Concat(groups...) }

// lookupCommand is the table's command (or "inspect SUBJECT"), nil for
// none.
func lookupCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// lookupFlag is the flag of specs named name (or one of its aliases).
func lookupFlag(specs []flagSpec, name string) *flagSpec {
	for i := range specs {
		if slices.Contains(specs[i].names, name) {
			return &specs[i]
		}
	}
	return nil
}

// dash spells a flag as GNU tools do: -n for a letter, --since for a word.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// checkFlags panics when the flag set a command parses with is not the
// table's: a flag declared in one place and not the other is a bug, caught
// by any run of the command (every command has tests).
func checkFlags(fs *flag.FlagSet) {
	c := lookupCommand(fs.Name())
	if c == nil {
		panic(fmt.Sprintf("command %q parses flags but is not in the command table (table.go)", fs.Name()))
	}
	var declared []string
	fs.VisitAll(func(f *flag.Flag) {
		declared = append(declared, f.Name)
		spec := lookupFlag(c.flags, f.Name)
		isBool := false
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok {
			isBool = b.IsBoolFlag()
		}
		if spec == nil || isBool != (spec.arg == "") {
			panic(fmt.Sprintf("flag %s of %q differs from the command table (table.go)", dash(f.Name), c.name))
		}
	})
	for _, spec := range c.flags {
		for _, n := range spec.names {
			if !slices.Contains(declared, n) {
				panic(fmt.Sprintf("flag %s of %q is in the command table but not parsed", dash(n), c.name))
			}
		}
	}
}

// checkValue refuses a value outside a flag's closed set, naming the set.
func checkValue(spec *flagSpec, name, v string) error {
	if spec == nil || spec.values == nil {
		return nil
	}
	allowed := spec.values()
	if slices.Contains(allowed, v) {
		return nil
	}
	return usageError("invalid value %q for %s; allowed: %s", v, dash(name), strings.Join(allowed, ", "))
}
