package corpus

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// text is the word and snippet source shared by a session and its
// subagents: the random stream, the vocabulary and the project.
type text struct {
	r *rand.Rand
	v *vocab
	p *project
}

func (t *text) word() string  { return t.v.prose.sample(t.r) }
func (t *text) ident() string { return t.v.idents.sample(t.r) }

// snakeIdent is a snake_case identifier.
func (t *text) snakeIdent() string { return t.v.snakes[t.v.idents.index(t.r)] }
func (t *text) typ() string        { return t.v.types.sample(t.r) }
func (t *text) n(k int) int        { return t.r.IntN(k) }
func (t *text) chance(p float64) bool {
	return t.r.Float64() < p
}

// between returns a uniform integer in [lo, hi].
func (t *text) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + t.r.IntN(hi-lo+1)
}

// logUniform returns an integer whose logarithm is uniform in [lo, hi].
func (t *text) logUniform(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return int(math.Exp(math.Log(float64(lo)) + t.r.Float64()*(math.Log(float64(hi))-math.Log(float64(lo)))))
}

func (t *text) pick(list []string) string { return list[t.r.IntN(len(list))] }

// pick2 returns a or b.
func (t *text) pick2(a, b int) int {
	if t.n(2) == 0 {
		return a
	}
	return b
}

func (t *text) file() string { return t.p.files[t.r.IntN(len(t.p.files))] }
func (t *text) dir() string  { return t.p.dirs[t.r.IntN(len(t.p.dirs))] }
func (t *text) testFile() string {
	return t.p.tests[t.r.IntN(len(t.p.tests))]
}

// base62 without q and Q, so that no random string can spell the plant
// prefix.
const idAlphabet = "ABCDEFGHIJKLMNOPRSTUVWXYZabcdefghijklmnoprstuvwxyz0123456789"

func (t *text) randID(b []byte, n int) []byte {
	for range n {
		b = append(b, idAlphabet[t.r.IntN(len(idAlphabet))])
	}
	return b
}

func (t *text) randHex(b []byte, n int) []byte {
	for range n {
		b = append(b, hexDigits[t.r.IntN(16)])
	}
	return b
}

const hexDigits = "0123456789abcdef"

// signature returns an opaque provider signature of base64-looking text.
func (t *text) signature() string {
	b := make([]byte, 0, 400)
	b = append(b, "Eu"...)
	b = t.randID(b, t.between(120, 380))
	for range t.n(3) {
		b = append(b, "+/"[t.n(2)])
		b = t.randID(b, t.between(4, 20))
	}
	return string(append(b, "=="[:t.n(3)]...))
}

func capitalize(b []byte, at int) {
	if at < len(b) && b[at] >= 'a' && b[at] <= 'z' {
		b[at] -= 'a' - 'A'
	}
}

// sentence appends one sentence of Zipf-distributed words, sometimes with a
// backquoted identifier, a file path or a number in it.
func (t *text) sentence(b []byte) []byte {
	start := len(b)
	n := t.between(4, 18)
	for i := range n {
		if i > 0 {
			if t.n(11) == 0 {
				b = append(b, ',')
			}
			b = append(b, ' ')
		}
		switch k := t.n(40); {
		case k == 0:
			b = append(b, '`')
			b = append(b, t.ident()...)
			b = append(b, '`')
		case k == 1:
			b = append(b, t.file()...)
		case k == 2:
			b = strconv.AppendInt(b, int64(t.logUniform(1, 5000)), 10)
		case k == 3:
			b = append(b, t.ident()...)
			b = append(b, "()"...)
		default:
			b = append(b, t.word()...)
		}
	}
	capitalize(b, start)
	switch t.n(12) {
	case 0:
		return append(b, '?')
	case 1:
		return append(b, ':')
	default:
		return append(b, '.')
	}
}

// prose appends about size bytes of sentences, in paragraphs and with an
// occasional bullet list or fenced code block.
func (t *text) prose(b []byte, size int) []byte {
	end := len(b) + size
	first := true
	for first || len(b) < end {
		if !first {
			switch k := t.n(14); {
			case k < 2:
				b = append(b, "\n\n"...)
			case k == 2:
				b = append(b, "\n\n"...)
				for range t.between(2, 5) {
					b = append(b, "- "...)
					b = t.sentence(b)
					b = append(b, '\n')
				}
				b = append(b, '\n')
			case k == 3 && size > 400:
				b = append(b, "\n\n```"...)
				b = append(b, t.p.lang...)
				b = append(b, '\n')
				for range t.between(2, 8) {
					b = t.codeLine(b)
					b = append(b, '\n')
				}
				b = append(b, "```\n\n"...)
			default:
				b = append(b, ' ')
			}
		}
		first = false
		b = t.sentence(b)
	}
	return b
}

// shortText is a one-sentence text, for titles, descriptions, labels.
func (t *text) shortText(words int) string {
	b := make([]byte, 0, 64)
	for i := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, t.word()...)
	}
	capitalize(b, 0)
	return string(b)
}

func (t *text) indent(b []byte, n int) []byte {
	for range n {
		switch t.p.lang {
		case "go":
			b = append(b, '\t')
		case "py":
			b = append(b, "    "...)
		default:
			b = append(b, "  "...)
		}
	}
	return b
}

// codeLine appends one line of plausible source code in the project's
// language (without the newline).
func (t *text) codeLine(b []byte) []byte {
	b = t.indent(b, t.n(4))
	var a, c, d string
	if t.p.lang == "py" || t.p.lang == "rs" {
		a, c, d = t.snakeIdent(), t.snakeIdent(), t.snakeIdent()
	} else {
		a, c, d = t.ident(), t.ident(), t.ident()
	}
	switch t.p.lang {
	case "go":
		switch t.n(14) {
		case 0:
			return append(b, "func (s *"+t.typ()+") "+strings.ToUpper(c[:1])+c[1:]+"(ctx context.Context, "+a+" "+t.typ()+") (*"+t.typ()+", error) {"...)
		case 1:
			return append(b, "if err := "+a+"."+d+"("+c+"); err != nil {"...)
		case 2:
			return append(b, "return nil, fmt.Errorf(\""+t.word()+" "+t.word()+": %w\", err)"...)
		case 3:
			return append(b, '}')
		case 4:
			return append(b, a+" := "+c+"["+strconv.Itoa(t.n(9))+":]"...)
		case 5:
			return append(b, "for _, "+a+" := range "+c+"."+d+" {"...)
		case 6:
			b = append(b, "// "...)
			return t.sentence(b)
		case 7:
			return append(b, a+", ok := "+c+"[\""+t.word()+"\"]"...)
		case 8:
			return append(b, "t.Errorf(\""+d+"(%q) = %v, want %v\", "+a+", got, want)"...)
		case 9:
			return append(b, "case \""+t.word()+"\", \""+t.word()+"\":"...)
		case 10:
			return append(b, a+" = append("+a+", "+c+"{"+t.typ()+": "+d+"})"...)
		case 11:
			return append(b, "require.NoError(t, "+a+"."+d+"())"...)
		default:
			return append(b, a+"."+d+" = "+c+"."+t.ident()+"("+strconv.Itoa(t.n(100))+")"...)
		}
	case "ts":
		switch t.n(12) {
		case 0:
			return append(b, "export async function "+a+"("+c+": "+t.typ()+"): Promise<"+t.typ()+"> {"...)
		case 1:
			return append(b, "const "+a+" = await "+c+"."+d+"(\""+t.word()+"\");"...)
		case 2:
			return append(b, "if (!"+a+") throw new Error(`"+t.word()+" "+t.word()+": ${"+c+"}`);"...)
		case 3:
			return append(b, '}')
		case 4:
			b = append(b, "// "...)
			return t.sentence(b)
		case 5:
			return append(b, "return "+a+".map(("+c+") => "+c+"."+d+");"...)
		case 6:
			return append(b, "expect("+a+"("+c+")).toEqual({ "+d+": "+strconv.Itoa(t.n(50))+" });"...)
		case 7:
			return append(b, "import { "+a+", "+c+" } from \"./"+snake(d)+"\";"...)
		default:
			return append(b, a+"."+d+" = "+c+" ?? "+strconv.Itoa(t.n(10))+";"...)
		}
	case "py":
		switch t.n(11) {
		case 0:
			return append(b, "def "+a+"(self, "+c+": "+t.typ()+") -> "+t.typ()+":"...)
		case 1:
			return append(b, "return "+a+"."+d+"("+c+")"...)
		case 2:
			return append(b, "raise ValueError(f\""+t.word()+" {"+c+"!r}\")"...)
		case 3:
			b = append(b, "# "...)
			return t.sentence(b)
		case 4:
			return append(b, "for "+a+" in self."+c+":"...)
		case 5:
			return append(b, "assert "+a+" == "+strconv.Itoa(t.n(99))...)
		case 6:
			return append(b, "if not "+a+":"...)
		default:
			return append(b, a+" = "+c+".get(\""+t.word()+"\", "+strconv.Itoa(t.n(10))+")"...)
		}
	default:
		switch t.n(11) {
		case 0:
			return append(b, "pub fn "+a+"(&self, "+c+": &"+t.typ()+") -> Result<"+t.typ()+", Error> {"...)
		case 1:
			return append(b, "let "+a+" = "+c+"."+d+"()?;"...)
		case 2:
			return append(b, "return Err(Error::"+t.typ()+"(format!(\""+t.word()+" {}\", "+c+")));"...)
		case 3:
			return append(b, '}')
		case 4:
			b = append(b, "// "...)
			return t.sentence(b)
		case 5:
			return append(b, "match "+a+" {"...)
		case 6:
			return append(b, "assert_eq!("+a+", "+strconv.Itoa(t.n(99))+");"...)
		default:
			return append(b, "self."+a+".insert("+c+", "+strconv.Itoa(t.n(10))+");"...)
		}
	}
}

// code appends n lines of code, numbered as the read tool shows them when
// from > 0.
func (t *text) code(b []byte, n, from int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, '\n')
		}
		if from > 0 {
			b = strconv.AppendInt(b, int64(from+i), 10)
			b = append(b, '\t')
		}
		b = t.codeLine(b)
	}
	return b
}

// codeSized appends about size bytes of numbered code.
func (t *text) codeSized(b []byte, size, from int) []byte {
	end := len(b) + size
	for i := 0; len(b) < end; i++ {
		if i > 0 {
			b = append(b, '\n')
		}
		b = strconv.AppendInt(b, int64(from+i), 10)
		b = append(b, '\t')
		b = t.codeLine(b)
	}
	return b
}

// grepLines appends n "path:line:code" matches.
func (t *text) grepLines(b []byte, n int) []byte {
	f := t.file()
	for i := range n {
		if i > 0 {
			b = append(b, '\n')
		}
		if t.n(3) == 0 {
			f = t.file()
		}
		b = append(b, f...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(t.logUniform(1, 3000)), 10)
		b = append(b, ':')
		b = t.codeLine(b)
	}
	return b
}

func (t *text) pathList(b []byte, n int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, t.file()...)
	}
	return b
}

func (t *text) lsLines(b []byte, n int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, '\n')
		}
		if t.n(4) == 0 {
			b = append(b, "drwxr-xr-x  "...)
		} else {
			b = append(b, "-rw-r--r--  "...)
		}
		b = strconv.AppendInt(b, int64(t.logUniform(64, 90000)), 10)
		b = append(b, " May "...)
		b = strconv.AppendInt(b, int64(1+t.n(28)), 10)
		b = append(b, ' ')
		b = append(b, t.snakeIdent()...)
		b = append(b, "."+t.p.lang...)
	}
	return b
}

// command returns a plausible shell command for the project.
func (t *text) command() string {
	switch k := t.n(20); {
	case k < 9:
		return t.testCommand()
	case k < 11:
		return "git status --short"
	case k == 11:
		return "git diff --stat HEAD~" + strconv.Itoa(1+t.n(4))
	case k == 12:
		return "git log --oneline -" + strconv.Itoa(5+t.n(30))
	case k == 13:
		return "rg -n '" + t.ident() + "' " + t.dir()
	case k == 14:
		return "ls -la " + t.dir()
	case k == 15:
		return "wc -l " + t.file()
	case k == 16:
		return "head -n " + strconv.Itoa(20+t.n(80)) + " " + t.file()
	default:
		return t.buildCommand()
	}
}

func (t *text) testCommand() string {
	switch t.p.lang {
	case "go":
		switch t.n(4) {
		case 0:
			return "go test ./..."
		case 1:
			return "go test ./" + t.dir() + "/ -run Test" + t.typ() + " -count=1"
		case 2:
			return "go test -race ./" + t.dir() + "/..."
		default:
			return "go vet ./... && go test ./" + t.dir() + "/"
		}
	case "ts":
		switch t.n(3) {
		case 0:
			return "npm test"
		case 1:
			return "npx vitest run " + t.testFile()
		default:
			return "npx tsc --noEmit"
		}
	case "py":
		switch t.n(3) {
		case 0:
			return "pytest -x " + t.testFile()
		case 1:
			return "python -m pytest -k " + t.snakeIdent() + " -q"
		default:
			return "mypy " + t.p.module
		}
	default:
		switch t.n(3) {
		case 0:
			return "cargo test"
		case 1:
			return "cargo test " + t.snakeIdent()
		default:
			return "cargo clippy -- -D warnings"
		}
	}
}

func (t *text) buildCommand() string {
	switch t.p.lang {
	case "go":
		return "go build ./... && make lint"
	case "ts":
		return "npm run build"
	case "py":
		return "ruff check . && python -m build"
	default:
		return "cargo build --release"
	}
}

// testOutput appends about size bytes of a test run's output. A failing run
// ends with failure details and a summary line.
func (t *text) testOutput(b []byte, size int, fail bool) []byte {
	end := len(b) + size
	switch t.p.lang {
	case "go":
		for len(b) < end {
			pkg := "github.com/acme/" + t.p.name + "/" + t.dir()
			if fail && t.n(3) == 0 {
				name := "Test" + t.typ()
				b = append(b, "=== RUN   "+name+"\n"...)
				b = append(b, "    "+t.snakeIdent()+"_test.go:"+strconv.Itoa(t.between(10, 900))+": "...)
				b = t.sentence(b)
				b = append(b, "\n        \tError Trace:\t"+t.testFile()+":"+strconv.Itoa(t.between(10, 900))+"\n        \tError:      \tNot equal: \n        \t            \texpected: \""+t.word()+"\"\n        \t            \tactual  : \""+t.word()+"\"\n"...)
				b = append(b, "--- FAIL: "+name+" (0."+strconv.Itoa(10+t.n(89))+"s)\nFAIL\nFAIL\t"+pkg+"\t0."+strconv.Itoa(100+t.n(899))+"s\n"...)
			} else {
				b = append(b, "ok  \t"+pkg+"\t"+strconv.Itoa(t.n(3))+"."+strconv.Itoa(100+t.n(899))+"s\n"...)
			}
		}
		if fail {
			b = append(b, "FAIL\n"...)
		}
	case "ts":
		b = append(b, "\n RUN  v2.1.4 /home/dev/src/"+t.p.name+"\n\n"...)
		failed, passed := 0, 0
		for len(b) < end {
			if fail && t.n(4) == 0 {
				failed++
				b = append(b, " ❯ "+t.testFile()+" ("+strconv.Itoa(2+t.n(20))+" tests | 1 failed)\n   × "...)
				b = t.sentence(b)
				b = append(b, "\n     → expected '"+t.word()+"' to deeply equal '"+t.word()+"'\n"...)
			} else {
				passed++
				b = append(b, " ✓ "+t.testFile()+" ("+strconv.Itoa(2+t.n(20))+" tests) "+strconv.Itoa(t.n(900))+"ms\n"...)
			}
		}
		b = append(b, "\n Test Files  "+strconv.Itoa(failed)+" failed | "+strconv.Itoa(passed)+" passed\n"...)
	case "py":
		b = append(b, "============================= test session starts ==============================\nplatform linux -- Python 3.12.3, pytest-8.2.0\nrootdir: /home/dev/src/"+t.p.name+"\ncollected "+strconv.Itoa(10+t.n(400))+" items\n\n"...)
		for len(b) < end {
			b = append(b, t.testFile()+" "...)
			for range t.between(3, 40) {
				if fail && t.n(30) == 0 {
					b = append(b, 'F')
				} else {
					b = append(b, '.')
				}
			}
			b = append(b, "  ["+strconv.Itoa(t.n(100))+"%]\n"...)
		}
		if fail {
			b = append(b, "\n=================================== FAILURES ===================================\n"...)
			b = t.stackTrace(b)
			b = append(b, "\n=========================== short test summary info ============================\nFAILED "+t.testFile()+"::test_"+t.snakeIdent()+" - AssertionError\n"...)
		}
	default:
		b = append(b, "running "+strconv.Itoa(5+t.n(200))+" tests\n"...)
		for len(b) < end {
			b = append(b, "test "+t.snakeIdent()+"::"+t.snakeIdent()+" ... "...)
			if fail && t.n(12) == 0 {
				b = append(b, "FAILED\n"...)
			} else {
				b = append(b, "ok\n"...)
			}
		}
		if fail {
			b = append(b, "\nfailures:\n\n"...)
			b = t.stackTrace(b)
			b = append(b, "\ntest result: FAILED. "+strconv.Itoa(t.n(200))+" passed; 1 failed; 0 ignored\n"...)
		} else {
			b = append(b, "\ntest result: ok. "+strconv.Itoa(t.n(200))+" passed; 0 failed; 0 ignored\n"...)
		}
	}
	return b
}

// stackTrace appends a panic or exception trace in the project's language.
func (t *text) stackTrace(b []byte) []byte {
	switch t.p.lang {
	case "go":
		b = append(b, "panic: runtime error: index out of range ["+strconv.Itoa(t.n(9))+"] with length "+strconv.Itoa(t.n(9))+"\n\ngoroutine "+strconv.Itoa(1+t.n(300))+" [running]:\n"...)
		for range t.between(4, 14) {
			b = append(b, "github.com/acme/"+t.p.name+"/"+t.dir()+"."+t.ident()+"(0xc000"+strconv.Itoa(100000+t.n(899999))+")\n\t"+t.p.cwd+"/"+t.file()+":"+strconv.Itoa(t.between(10, 2000))+" +0x"+strconv.FormatInt(int64(t.n(4096)), 16)+"\n"...)
		}
		return append(b, "exit status 2\n"...)
	case "py":
		b = append(b, "Traceback (most recent call last):\n"...)
		for range t.between(3, 10) {
			b = append(b, "  File \""+t.p.cwd+"/"+t.file()+"\", line "+strconv.Itoa(t.between(10, 2000))+", in "+t.snakeIdent()+"\n    "...)
			b = t.codeLine(b)
			b = append(b, '\n')
		}
		return append(b, "KeyError: '"+t.word()+"'\n"...)
	case "ts":
		b = append(b, "TypeError: Cannot read properties of undefined (reading '"+t.ident()+"')\n"...)
		for range t.between(4, 12) {
			b = append(b, "    at "+t.ident()+" ("+t.p.cwd+"/"+t.file()+":"+strconv.Itoa(t.between(10, 900))+":"+strconv.Itoa(t.between(1, 80))+")\n"...)
		}
		return b
	default:
		b = append(b, "thread 'main' panicked at "+t.file()+":"+strconv.Itoa(t.between(10, 900))+":"+strconv.Itoa(t.between(1, 80))+":\ncalled `Option::unwrap()` on a `None` value\nstack backtrace:\n"...)
		for i := range t.between(4, 12) {
			b = append(b, "  "+strconv.Itoa(i)+": "+t.p.module+"::"+t.snakeIdent()+"\n             at ./"+t.file()+":"+strconv.Itoa(t.between(10, 900))+"\n"...)
		}
		return b
	}
}

// buildLog appends about size bytes of compiler or linter output.
func (t *text) buildLog(b []byte, size int, fail bool) []byte {
	end := len(b) + size
	for len(b) < end {
		f := t.file()
		line, col := strconv.Itoa(t.between(1, 900)), strconv.Itoa(t.between(1, 80))
		switch t.p.lang {
		case "ts":
			b = append(b, f+"("+line+","+col+"): error TS2345: Argument of type '"+t.typ()+"' is not assignable to parameter of type '"+t.typ()+"'.\n"...)
		case "py":
			b = append(b, f+":"+line+":"+col+": E501 "...)
			b = t.sentence(b)
			b = append(b, '\n')
		case "rs":
			b = append(b, "warning: unused variable: `"+t.snakeIdent()+"`\n  --> "+f+":"+line+":"+col+"\n   |\n"...)
		default:
			b = append(b, f+":"+line+":"+col+": "...)
			b = t.sentence(b)
			b = append(b, " ("+t.pick([]string{"govet", "errcheck", "staticcheck", "unused", "ineffassign"})+")\n"...)
		}
	}
	if fail {
		b = append(b, "make: *** [Makefile:"+strconv.Itoa(t.between(5, 80))+": build] Error 1\n"...)
	}
	return b
}

// gitOutput appends the output of a git command.
func (t *text) gitOutput(b []byte, cmd string) []byte {
	switch {
	case strings.HasPrefix(cmd, "git status"):
		for range t.between(1, 12) {
			b = append(b, t.pick([]string{" M ", "?? ", "A  ", " D "})...)
			b = append(b, t.file()...)
			b = append(b, '\n')
		}
	case strings.HasPrefix(cmd, "git diff"):
		total := 0
		for range t.between(1, 10) {
			k := t.n(120)
			total += k
			b = append(b, " "+t.file()+" | "+strconv.Itoa(k)+" "+strings.Repeat("+", 1+k/10)+strings.Repeat("-", k/25)+"\n"...)
		}
		b = append(b, " "+strconv.Itoa(t.between(1, 10))+" files changed, "+strconv.Itoa(total)+" insertions(+)\n"...)
	default:
		for range t.between(5, 30) {
			b = t.randHex(b, 7)
			b = append(b, ' ')
			b = t.sentence(b)
			b = append(b, '\n')
		}
	}
	return b
}

// diff appends a unified diff of a small edit.
func (t *text) diff(b []byte, path string) []byte {
	line := t.between(1, 900)
	b = append(b, "--- a/"+path+"\n+++ b/"+path+"\n@@ -"+strconv.Itoa(line)+",6 +"+strconv.Itoa(line)+",7 @@\n"...)
	for range t.between(3, 9) {
		b = append(b, " +-"[t.n(3)])
		b = t.codeLine(b)
		b = append(b, '\n')
	}
	return b
}

// title returns a session title such as "Fix parse_config in loader".
func (t *text) title() string {
	s := t.pick([]string{"Fix", "Add", "Refactor", "Investigate", "Speed up", "Debug", "Remove", "Document", "Migrate", "Review", "Port", "Clean up", "Test"}) + " " + t.ident()
	if t.chance(0.6) {
		s += " " + t.pick([]string{"in", "for", "on", "after", "without"}) + " " + t.word()
	}
	return s
}
