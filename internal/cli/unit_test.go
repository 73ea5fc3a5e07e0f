package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/indexfile"
)

func TestParseTime(t *testing.T) {
	at := time.Date(2026, 9, 5, 12, 0, 0, 0, time.UTC)
	ms := func(t time.Time) float64 { return float64(t.UnixMilli()) }
	for in, want := range map[string]float64{
		"1788256860000":        1788256860000,
		"2026-09-01":           ms(time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)),
		"2026-09-01T10:01:00Z": ms(time.Date(2026, 9, 1, 10, 1, 0, 0, time.UTC)),
		"7d":                   ms(at.Add(-7 * 24 * time.Hour)),
		"3h":                   ms(at.Add(-3 * time.Hour)),
		"90 min":               ms(at.Add(-90 * time.Minute)),
		"3 weeks ago":          ms(at.Add(-21 * 24 * time.Hour)),
		"1 week ago":           ms(at.Add(-7 * 24 * time.Hour)),
		"2 months":             ms(at.Add(-60 * 24 * time.Hour)),
		"1y":                   ms(at.Add(-365 * 24 * time.Hour)),
		"now":                  ms(at),
		"today":                ms(time.Date(2026, 9, 5, 0, 0, 0, 0, time.UTC)),
		"yesterday":            ms(time.Date(2026, 9, 4, 0, 0, 0, 0, time.UTC)),
		" 7D ":                 ms(at.Add(-7 * 24 * time.Hour)),
	} {
		got, err := parseTime(in, at)
		if err != nil || got != want {
			t.Errorf("parseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lastweek", "7 fortnights", "3 weeks hence", "NaN", "99999999999999999999d", "-3d"} {
		if _, err := parseTime(in, at); err == nil {
			t.Errorf("parseTime(%q) took it", in)
		}
	}
}

// /dev/null is a character device, not a terminal: JSON goes there.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatal("/dev/null taken for a terminal")
	}
}

// Every command's --help exits 0 with its own usage on stdout, short.
func TestEveryCommandHelp(t *testing.T) {
	for _, c := range commands {
		name := c.name
		if name == "help" || name == "version" {
			continue // answered before any command's flags
		}
		for _, flag := range []string{"--help", "-h"} {
			args := append(strings.Fields(name), flag)
			r := runCLI(t, args, "", false)
			if r.code != exitOK || !strings.HasPrefix(r.stdout, "usage: memidx "+name) || r.stderr != "" {
				t.Errorf("memidx %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), r.code, r.stdout, r.stderr)
			}
			if len(r.stdout) > 2500 {
				t.Errorf("memidx %s prints %d bytes of help", name, len(r.stdout))
			}
		}
	}
}

// A usage error is one line and a pointer to the command's help, not the
// whole help.
func TestUsageErrorsAreShort(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{
		{"recall", "--bogus"}, {"expand"}, {"sessions", "--limit", "x"}, {"inspect", "lineage"}, {"walk", "a", "b"}, {"forget"},
	} {
		r := runCLI(t, append([]string{"--agent-dir", w.agent, "--index-dir", w.index}, args...), "", false)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != exitUsage || len(lines) != 2 || !strings.HasPrefix(lines[1], "see 'memidx") {
			t.Errorf("memidx %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.Error.Code == "" {
			t.Errorf("memidx %v: stdout %q is not a JSON error", args, r.stdout)
		}
	}
}

// Relative directory flags are taken from the shell's working directory,
// not from --cwd.
func TestRelativeDirsFromShell(t *testing.T) {
	w := newWorld(t)
	t.Chdir(w.root)
	r := runCLI(t, []string{"--agent-dir", "agent", "--index-dir", "index", "--cwd", "proj", "recall", "flaky", "--page-size", "1"}, "", false)
	if r.code != exitOK || !strings.Contains(r.stdout, `"total":3`) {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(w.index + "/index.db"); err != nil {
		t.Fatalf("the index is not under the shell's ./index: %v", err)
	}
	// Against --cwd, ./agent would be proj/agent, which does not exist.
	t.Chdir(w.proj)
	r = runCLI(t, []string{"--agent-dir", "agent", "--cwd", ".", "recall", "flaky"}, "", false)
	if r.code != exitUsage || !strings.Contains(r.stderr, w.proj+"/agent: no such directory") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// A flag given with the value its Go field reads as the default is given
// on the wire: refused (--limit 0, --max-chars 0) or repeated (-C 0) as
// its JSON is.
func TestSetArgGivesZero(t *testing.T) {
	x := engine.ExpandRequest{Session: "s", Indices: []int{3}}
	for _, name := range []string{"before", "after", "maxChars"} {
		if err := setArg(&x, name, 0); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(x)
	if want := `{"session":"s","indices":[3],"before":0,"after":0,"maxChars":0}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var r engine.RecallRequest
	if err := setArg(&r, "since", 1.5); err != nil {
		t.Fatal(err)
	}
	if err := setArg(&r, "query", ""); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(r)
	if want := `{"query":"","since":1.5}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if err := setArg(&r, "pageSize", "x"); err == nil {
		t.Error("a wrong type is refused")
	}
	if got := wireNumber([]byte(`{"page_size":7.5}`), "pageSize", "page_size"); got == nil || *got != 7.5 {
		t.Errorf("wireNumber: %v", got)
	}
	if got := wireNumber([]byte(`{"pageSize":null}`), "pageSize"); got != nil {
		t.Errorf("null is absent: %v", *got)
	}
}

// With GOMEMLIMIT set (and GOGC not) a short question keeps the user's
// limit and collects at GOGC 400: 1600 is only for under batchHeap's own
// soft limit.
func TestShortQuestionsUnderTheUsersLimit(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: batchHeap leaves the collector alone")
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	w := newWorld(t)
	base := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(1 << 30)
	t.Cleanup(func() { debug.SetGCPercent(base); debug.SetMemoryLimit(limit) })

	e, err := openEngine(globals{agentDir: w.agent, indexDir: w.index, cwd: w.proj, shortHeap: true})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	assert.Equal(t, shortGCPercentUnbounded, debug.SetGCPercent(shortGCPercentUnbounded))
	assert.Equal(t, int64(1<<30), debug.SetMemoryLimit(1<<30), "the user's limit stands")
	restoreHeap()
	assert.Equal(t, 100, debug.SetGCPercent(100), "put back")
}

// A short question runs with the batch collector setting (batchHeap),
// put back when the command ends; expand and walk keep the runtime's.
// GOGC, when set, wins.
func TestShortQuestionsCollectLess(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: batchHeap leaves the collector alone")
	}
	w := newWorld(t)
	base := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(base); debug.SetMemoryLimit(limit) })

	e, err := openEngine(globals{agentDir: w.agent, indexDir: w.index, cwd: w.proj, shortHeap: true})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	assert.Equal(t, shortGCPercent, debug.SetGCPercent(shortGCPercent))
	assert.Equal(t, int64(shortReadFloor), debug.SetMemoryLimit(shortReadFloor), "nothing built yet: the read floor")
	restoreHeap()
	assert.Equal(t, 100, debug.SetGCPercent(100), "put back")
	assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(math.MaxInt64), "put back")

	for _, args := range [][]string{
		{"recall", "zqnothing"},
		{"sessions"},
		{"expand", w.session, "-n", "0"},
		{"walk", w.session},
	} {
		r := runCLI(t, append([]string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj}, args...), "", false)
		assert.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		assert.Equal(t, 100, debug.SetGCPercent(100), "%v leaves the collector as it found it", args)
		assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(math.MaxInt64), "%v", args)
	}
}

// A bug met inside an index transaction is internal_error at the shell
// and -32603 (memidx itself failed) over serve, never a domain result;
// an error of no known kind is "error".
func TestInternalErrorCodes(t *testing.T) {
	err := fmt.Errorf("recall: %w", fmt.Errorf("%w: index out of range (in pkg.F)", indexfile.ErrInternal))
	code, msg := errorParts(err)
	assert.Equal(t, "internal_error", code)
	assert.Contains(t, msg, "in pkg.F")
	resp := answerOf(nil, err)
	require.NotNil(t, resp.Error)
	assert.Equal(t, rpcInternalError, resp.Error.Code)
	assert.Nil(t, resp.Result)
	code, _ = errorParts(errors.New("disk on fire"))
	assert.Equal(t, "error", code)
}
