package corpus

import (
	"math/rand/v2"
	"strings"
	"sync"
)

// home is the made-up home directory of every generated session's user.
const home = "/home/dev"

// agentSessionsDir is the made-up absolute sessions root that subagent
// headers name in parentSession. It never depends on Options.Out, so the
// bytes of a corpus do not depend on where it is written.
const agentSessionsDir = home + "/.omp/agent/sessions"

// project is one working directory that sessions run in.
type project struct {
	name   string
	cwd    string
	bucket string // OMP's current bucket name for cwd
	// legacy is the pre-≈12.9 bucket name ("--home-dev-src-x--") under which
	// some older sessions of a home project are filed; empty for others.
	legacy string
	lang   string // go, ts, py or rs
	module string // Go module / npm package / Python package name
	files  []string
	dirs   []string
	tests  []string // test file paths
	weight float64
}

var projectNames = sync.OnceValue(func() []string {
	return strings.Fields(`ledger-api webshop kvstore ml-pipeline
docs-site chat-relay raytracer infra-tools auth-gateway data-sync
mobile-app search-svc billing-worker geo-tiles log-shipper feature-flags`)
})

// encodeRel turns a path relative to home or tmp into bucket form: every
// '/', '\' and ':' becomes '-'.
func encodeRel(p string) string {
	return strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(p)
}

// newProjects makes n projects. Most live under ~/src (bucket "-src-<name>",
// with a legacy "--home-dev-src-<name>--" twin); others under ~/work, /srv
// (bucket "--srv-<name>--"), /tmp ("-tmp-<name>") and the home directory
// itself ("-").
func newProjects(v *vocab, seed int64, n int) []*project {
	r := rand.New(rand.NewPCG(uint64(seed), 0x70726f6a)) // "proj"
	langs := []string{"go", "ts", "py", "rs"}
	out := make([]*project, 0, n)
	for i := range n {
		name := projectNames()[i%len(projectNames())]
		if i >= len(projectNames()) {
			name += "-" + string(rune('a'+i/len(projectNames())-1))
		}
		p := &project{name: name, lang: langs[r.IntN(len(langs))], module: strings.ReplaceAll(name, "-", "_")}
		switch i % 8 {
		case 2:
			p.cwd = home + "/work/" + name
		case 4:
			p.cwd = "/srv/" + name
		case 6:
			p.cwd = "/tmp/" + name
		case 7:
			p.cwd = home
			p.name = "home"
		default:
			p.cwd = home + "/src/" + name
		}
		switch {
		case p.cwd == home:
			p.bucket = "-"
		case strings.HasPrefix(p.cwd, home+"/"):
			p.bucket = "-" + encodeRel(strings.TrimPrefix(p.cwd, home+"/"))
			if strings.HasPrefix(p.cwd, home+"/src/") {
				p.legacy = "--" + encodeRel(strings.TrimPrefix(p.cwd, "/")) + "--"
			}
		case strings.HasPrefix(p.cwd, "/tmp/"):
			p.bucket = "-tmp-" + encodeRel(strings.TrimPrefix(p.cwd, "/tmp/"))
		default:
			p.bucket = "--" + encodeRel(strings.TrimPrefix(p.cwd, "/")) + "--"
		}
		p.weight = 1 / float64(i+2)
		p.makeFiles(v, r)
		out = append(out, p)
	}
	return out
}

// snake turns an identifier into a lowercase file-name stem:
// "parseConfig" and "PARSE_CONFIG" both give "parse_config".
func snake(id string) string {
	b := make([]byte, 0, len(id)+4)
	prevLower := false
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'A' && c <= 'Z' {
			if prevLower {
				b = append(b, '_')
			}
			c += 'a' - 'A'
			prevLower = false
		} else {
			prevLower = c != '_'
		}
		b = append(b, c)
	}
	return string(b)
}

func (p *project) makeFiles(v *vocab, r *rand.Rand) {
	nDirs := 4 + r.IntN(8)
	seen := map[string]bool{}
	for len(p.dirs) < nDirs {
		part := snake(v.idents.sample(r))
		if strings.Count(part, "_") > 1 {
			continue
		}
		var d string
		switch p.lang {
		case "go":
			d = []string{"internal/", "pkg/", "cmd/"}[r.IntN(3)] + strings.ReplaceAll(part, "_", "")
		case "ts":
			d = []string{"src/lib/", "src/components/", "src/routes/", "src/"}[r.IntN(4)] + strings.ReplaceAll(part, "_", "-")
		case "py":
			d = p.module + "/" + part
		default:
			d = "src/" + part
		}
		if !seen[d] {
			seen[d] = true
			p.dirs = append(p.dirs, d)
		}
	}
	nFiles := 40 + r.IntN(160)
	for len(p.files) < nFiles {
		d := p.dirs[r.IntN(len(p.dirs))]
		stem := snake(v.idents.sample(r))
		var f, t string
		switch p.lang {
		case "go":
			f = d + "/" + stem + ".go"
			t = d + "/" + stem + "_test.go"
		case "ts":
			stem = strings.ReplaceAll(stem, "_", "-")
			f = d + "/" + stem + ".ts"
			if strings.Contains(d, "components") {
				f += "x"
			}
			t = "test/" + stem + ".test.ts"
		case "py":
			f = d + "/" + stem + ".py"
			t = "tests/test_" + stem + ".py"
		default:
			f = d + "/" + stem + ".rs"
			t = "tests/" + stem + ".rs"
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		p.files = append(p.files, f)
		if r.IntN(3) == 0 {
			p.tests = append(p.tests, t)
			p.files = append(p.files, t)
		}
	}
	switch p.lang {
	case "go":
		p.files = append(p.files, "go.mod", "Makefile", "README.md")
	case "ts":
		p.files = append(p.files, "package.json", "tsconfig.json", "README.md")
	case "py":
		p.files = append(p.files, "pyproject.toml", "README.md")
	default:
		p.files = append(p.files, "Cargo.toml", "README.md")
	}
	if len(p.tests) == 0 {
		p.tests = append(p.tests, p.files[0])
	}
}
