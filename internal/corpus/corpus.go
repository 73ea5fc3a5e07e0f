package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure [Generate].
type Options struct {
	// Sessions is the number of top-level sessions to write (subagent
	// sessions come on top). It must be at least 1.
	Sessions int
	// Seed selects the corpus; the same Options give byte-identical files.
	Seed int64
	// Out is the directory the corpus is written to. Generate creates
	// Out/sessions and Out/manifest.json; Out/sessions must not exist yet.
	Out string
	// Projects is the number of working directories the sessions are spread
	// over. Zero means 8.
	Projects int
	// Scale multiplies every session's size. Zero means 1, where the mean
	// top-level session is about 0.5 MB, so 2000 sessions make about 1 GB.
	Scale float64
}

// Manifest describes a generated corpus. It is returned by [Generate] and
// written to Out/manifest.json.
type Manifest struct {
	Seed int64 `json:"seed"`
	// Sessions lists the top-level sessions in generation order, each
	// followed by its subagent sessions.
	Sessions []SessionInfo `json:"sessions"`
	// Facts are the planted facts, in the order of Sessions.
	Facts []Fact `json:"facts"`
	// TotalBytes is the sum of Sessions[i].Bytes.
	TotalBytes int64 `json:"totalBytes"`
}

// SessionInfo describes one written session file.
type SessionInfo struct {
	// Path is the file's path relative to Options.Out, with '/' separators:
	// sessions/<bucket>/<ts>_<id>.jsonl for a top-level session,
	// sessions/<bucket>/<ts>_<id>/<agentId>.jsonl for a subagent and
	// .../<agentId>/<agentId>.<childId>.jsonl for a subagent's child.
	Path string `json:"path"`
	// ID is the session id of the header.
	ID string `json:"id"`
	// Cwd is the header's working directory.
	Cwd string `json:"cwd"`
	// Bucket is the directory under sessions/ holding the file (or its
	// top-level ancestor).
	Bucket string `json:"bucket"`
	// Bytes is the file size.
	Bytes int64 `json:"bytes"`
	// Mtime is the file's modification time, set with os.Chtimes. No two
	// files of a corpus share one.
	Mtime time.Time `json:"mtime"`
	// Entries is the number of records after the header (the title slot
	// and the header are not counted).
	Entries int `json:"entries"`
	// Branched reports whether the file holds entries off the active
	// branch (an abandoned sibling branch).
	Branched bool `json:"branched"`
	// Leaf is the id of the last entry, which OMP takes as the leaf.
	Leaf string `json:"leaf"`
	// Parent is the Path of the session that spawned this subagent
	// session; empty for top-level sessions.
	Parent string `json:"parent,omitempty"`
}

// Fact is one planted, checkable statement about the corpus bytes. Unless
// Kind says otherwise, Term occurs in exactly one line of the whole corpus:
// the line of entry EntryID in Path.
//
// Kinds:
//   - "term": Term is in the text of a user, assistant, toolResult, custom
//     (custom_message) or compaction entry on the active branch; Role says
//     which, Tool names the tool of a toolResult.
//   - "thinking-term": Term is only in a thinking block of an assistant
//     message (found only when thinking is indexed).
//   - "deep-term": Term is in a large tool output, Offset Unicode scalars
//     (always more than 2000) into its text.
//   - "abandoned-term": Term is on an abandoned branch: not on the path from
//     the leaf (Branch "abandoned").
//   - "tool-outcome": a toolResult with isError true; Outcome is "error",
//     Note holds the bash exit code ("exitCode=1") or the failure.
//   - "bash-execution": a user bashExecution message; Outcome is "exit:N"
//     or "cancelled".
//   - "operation": a Fabric operation in the FabricExecutionTraceV1 of a
//     fabric_exec toolResult; Ref, Tool (action, else ref) and Outcome are
//     the operation's, Note gives "address=<entryId>/<sequence>" and the
//     field holding Term (error or result).
//   - "branch-fact": a fact of a FabricBranchSummaryDetailsV2 envelope on a
//     branch_summary entry; Role is the child role memidx derives
//     (branchUser, fabricOperation, fabricRun), Note gives the fact address.
//   - "subagent-term": Term is in the final assistant text of a subagent
//     session (Path is the nested file).
type Fact struct {
	Kind      string `json:"kind"`
	Term      string `json:"term"`
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	EntryID   string `json:"entryId"`
	Role      string `json:"role,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Ref       string `json:"ref,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	Branch    string `json:"branch"`
	// Offset is, for "deep-term", the position of Term in the tool output
	// text in Unicode scalars.
	Offset int    `json:"offset,omitempty"`
	Note   string `json:"note,omitempty"`
}

// baseTime is the fixed "now" of every corpus: sessions are created in the
// 90 days before it.
var baseTime = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

const spanDays = 90

// maxSessions bounds Options.Sessions so that planted terms stay unique
// (each top-level session numbers its terms in its own 2^8 block of a 2^30
// space).
const maxSessions = 1 << 22

// corpus is the read-only state shared by all session workers.
type corpus struct {
	opt      Options
	vocab    *vocab
	projects []*project
	weights  []float64 // cumulative project weights
}

// Generate writes a corpus as described by opt and returns its manifest.
// Sessions are generated in parallel; each one draws from its own random
// stream derived from opt.Seed and its index, so the output does not depend
// on scheduling.
func Generate(opt Options) (*Manifest, error) {
	if opt.Sessions < 1 || opt.Sessions > maxSessions {
		return nil, fmt.Errorf("corpus: Sessions must be in [1, %d], got %d", maxSessions, opt.Sessions)
	}
	if opt.Out == "" {
		return nil, errors.New("corpus: Out is empty")
	}
	if opt.Projects <= 0 {
		opt.Projects = 8
	}
	if opt.Scale <= 0 {
		opt.Scale = 1
	}
	root := filepath.Join(opt.Out, "sessions")
	if _, err := os.Stat(root); err == nil {
		return nil, fmt.Errorf("corpus: %s already exists", root)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	c := &corpus{opt: opt, vocab: newVocab(opt.Seed)}
	c.projects = newProjects(c.vocab, opt.Seed, opt.Projects)
	sum := 0.0
	for _, p := range c.projects {
		sum += p.weight
		c.weights = append(c.weights, sum)
	}

	runs := make([]*run, opt.Sessions)
	errs := make([]error, opt.Sessions)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), opt.Sessions) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= opt.Sessions {
					return
				}
				runs[i], errs[i] = c.session(i)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	m := &Manifest{Seed: opt.Seed}
	for _, r := range runs {
		m.Sessions = append(m.Sessions, r.infos...)
		for _, f := range r.facts {
			m.Facts = append(m.Facts, *f)
		}
	}
	if err := setMtimes(opt.Out, m.Sessions); err != nil {
		return nil, err
	}
	for _, s := range m.Sessions {
		m.TotalBytes += s.Bytes
	}
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if err := os.WriteFile(filepath.Join(opt.Out, "manifest.json"), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	return m, nil
}

// setMtimes makes the modification times unique (a later file in manifest
// order that collides is moved forward by a millisecond at a time) and
// applies them.
func setMtimes(out string, infos []SessionInfo) error {
	used := make(map[int64]bool, len(infos))
	for i := range infos {
		ms := infos[i].Mtime.UnixMilli()
		for used[ms] {
			ms++
		}
		used[ms] = true
		infos[i].Mtime = time.UnixMilli(ms).UTC()
		if err := os.Chtimes(filepath.Join(out, filepath.FromSlash(infos[i].Path)), infos[i].Mtime, infos[i].Mtime); err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
	}
	return nil
}

// run collects what one top-level session (and its subagents) produced.
type run struct {
	c     *corpus
	idx   int
	terms int
	infos []SessionInfo
	facts []*Fact
	err   error // the first failure writing a subagent file
}

// term returns the next planted term of this session: the plant prefix and
// six base32 digits of idx<<8 | n, unique in the corpus and all of one
// length, so no term is a prefix of another.
func (r *run) term() string {
	const digits = "abcdefghijklmnopqrstuvwxyz234567"
	if r.terms >= 1<<8 {
		panic("corpus: more than 256 planted terms in one session")
	}
	v := uint32(r.idx)<<8 | uint32(r.terms)
	r.terms++
	b := []byte(plantPrefix)
	for shift := 25; shift >= 0; shift -= 5 {
		b = append(b, digits[v>>uint(shift)&31])
	}
	return string(b)
}

// session generates top-level session i and its subagents.
func (c *corpus) session(i int) (*run, error) {
	rng := rand.New(rand.NewPCG(uint64(c.opt.Seed), mix(uint64(i))))
	u := rng.Float64() * c.weights[len(c.weights)-1]
	p := c.projects[sort.SearchFloat64s(c.weights, u)]
	created := baseTime.Add(-spanDays * 24 * time.Hour).UnixMilli()
	created += rng.Int64N(int64(spanDays-3) * 24 * 3600 * 1000)
	bucket := p.bucket
	// Older sessions of ~/src projects sometimes still sit in the legacy
	// "--home-dev-src-x--" bucket.
	if p.legacy != "" && created < baseTime.Add(-50*24*time.Hour).UnixMilli() && rng.IntN(3) == 0 {
		bucket = p.legacy
	}
	r := &run{c: c, idx: i}
	t := &text{r: rng, v: c.vocab, p: p}
	// A mixture: quick exchanges of a few KB, and working sessions from
	// tens of KB to several MB.
	size := lognormalSize(rng, 275e3, 1.2, 5e3, 14e6, c.opt.Scale)
	if rng.Float64() < 0.12 {
		size = lognormalSize(rng, 7e3, 0.6, 2e3, 60e3, c.opt.Scale)
	}
	g := newGen(r, t, created, bucket, "", "", size, 0)
	g.plan(i)
	if err := g.write(); err != nil {
		return nil, err
	}
	return r, r.err
}

// lognormalSize draws a byte target from a log-normal distribution with the
// given median and shape, clamped to [lo, hi], all multiplied by scale.
func lognormalSize(r *rand.Rand, median, sigma, lo, hi, scale float64) int64 {
	v := median * math.Exp(sigma*r.NormFloat64())
	v = math.Max(lo, math.Min(hi, v))
	return int64(v * scale)
}

// mix spreads an index over 64 bits (SplitMix64's finalizer).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
