package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fsizeChildEnv carries the command line a re-executed test binary runs
// under a file size limit, fsizeLimitEnv the limit (see TestFullFileChild).
const (
	fsizeChildEnv = "MEMIDX_TEST_FSIZE_ARGS"
	fsizeLimitEnv = "MEMIDX_TEST_FSIZE_LIMIT"
)

// smallFileLimit leaves room for a new bbolt file's first pages (16 KiB),
// not for the first grow of the file (bbolt grows it by at least
// AllocSize, 1 MiB), as on a disk that is full; halfFileLimit for that
// first grow and not the next, as on a disk that fills up.
const (
	smallFileLimit = 256 << 10
	halfFileLimit  = 1536 << 10
)

// TestFullFileChild runs in a re-executed test binary only: the command
// line of fsizeChildEnv under RLIMIT_FSIZE, SIGXFSZ ignored, so that
// every write past the limit fails with EFBIG as on a full disk. It
// prints the exit status and the output as JSON.
func TestFullFileChild(t *testing.T) {
	raw := os.Getenv(fsizeChildEnv)
	if raw == "" {
		t.Skip("run by TestRebuildFullFile")
	}
	var args []string
	require.NoError(t, json.Unmarshal([]byte(raw), &args))
	limit, err := strconv.ParseUint(os.Getenv(fsizeLimitEnv), 10, 64)
	require.NoError(t, err)
	signal.Ignore(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: limit, Max: limit}
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim))
	r := runCLI(t, args, "", false)
	out, err := json.Marshal(childResult{r.code, r.stdout, r.stderr})
	require.NoError(t, err)
	fmt.Printf("\nCHILD %s\n", out)
}

// childResult is a child's result, as JSON.
type childResult struct {
	Code           int
	Stdout, Stderr string
}

// underFileLimit runs the CLI in a child process whose files cannot grow
// past limit bytes.
func underFileLimit(t *testing.T, limit int, args ...string) result {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullFileChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fsizeChildEnv+"="+string(raw), fsizeLimitEnv+"="+strconv.Itoa(limit))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s%s", out, stderr.String())
	_, line, ok := strings.Cut(string(out), "\nCHILD ")
	require.True(t, ok, "%s", out)
	line, _, _ = strings.Cut(line, "\n")
	var r childResult
	require.NoError(t, json.Unmarshal([]byte(line), &r), line)
	return result{r.Code, r.Stdout, r.Stderr}
}

// A rebuild whose index file cannot grow (a full disk, ulimit -f) fails:
// exit status 1, every session failed with the write's error, nothing
// counted indexed; a recall still answers from the sessions and says the
// index could not be written.
func TestRebuildFullFile(t *testing.T) {
	w := newWorld(t)
	base := []string{"--agent-dir", w.agent, "--index-dir", w.index}
	r := underFileLimit(t, smallFileLimit, append(base, "rebuild", "--json")...)
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	var sum struct {
		Seen, Indexed, Rebuilt, Failed int
		WriteError                     string
		FailedBy                       map[string]int
		Failures                       []struct{ Path, Reason, Detail string }
		Coverage                       struct {
			Complete bool
			Reasons  []string
		}
		Error struct{ Code, Message string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sum), r.stdout)
	assert.Equal(t, 1, sum.Seen)
	assert.Zero(t, sum.Indexed, "nothing was written")
	assert.Zero(t, sum.Rebuilt, "nothing was written")
	assert.Equal(t, 1, sum.Failed)
	assert.Equal(t, map[string]int{"index_unwritable": 1}, sum.FailedBy)
	require.Len(t, sum.Failures, 1)
	assert.Equal(t, w.session, sum.Failures[0].Path)
	assert.Equal(t, "index_unwritable", sum.Failures[0].Reason)
	assert.Contains(t, sum.Failures[0].Detail, "file too large")
	assert.Contains(t, sum.WriteError, "file too large")
	assert.False(t, sum.Coverage.Complete)
	assert.Contains(t, sum.Coverage.Reasons, "index_unwritable")
	assert.Equal(t, "sessions_failed", sum.Error.Code)
	assert.Contains(t, sum.Error.Message, "file too large")

	r = underFileLimit(t, smallFileLimit, append(base, "recall", "--json", "--scope", "global", "-q", "TestWorker")...)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var page struct {
		Hits     []json.RawMessage
		Coverage struct {
			Complete bool
			Reasons  []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	assert.NotEmpty(t, page.Hits, "answered from the session file")
	assert.False(t, page.Coverage.Complete)
	assert.Contains(t, page.Coverage.Reasons, "index_unwritable")

	// Without the limit the same rebuild succeeds: the failure was the
	// file's, not the world's.
	r = runCLI(t, append(base, "rebuild", "--json"), "", false)
	require.Equal(t, 0, r.code, r.stdout)
}

// A rebuild whose index file fills up halfway counts what it wrote as
// indexed and the rest as failed, and the next rebuild agrees: it finds
// the first unchanged and builds the others.
func TestRebuildFileFillsUp(t *testing.T) {
	w := newWorld(t)
	body, err := os.ReadFile(w.session)
	require.NoError(t, err)
	dir := filepath.Dir(w.session)
	// Enough to outgrow the limit: a rebuild writes its records in key
	// order, and 300 sessions no longer filled 1.5 MiB.
	const sessions = 600
	for i := 1; i < sessions; i++ {
		id := fmt.Sprintf("%s%012d", fixtureID[:24], i)
		text := strings.ReplaceAll(string(body), fixtureID, id)
		writeFile(t, filepath.Join(dir, "2026-09-01T10-00-00-000Z_"+id+".jsonl"), text)
	}
	base := []string{"--agent-dir", w.agent, "--index-dir", w.index, "rebuild", "--json"}
	r := underFileLimit(t, halfFileLimit, base...)
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	var first struct{ Seen, Indexed, Rebuilt, Failed int }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &first), r.stdout)
	assert.Equal(t, sessions, first.Seen)
	assert.Positive(t, first.Indexed, "the first batches fit")
	assert.Positive(t, first.Failed, "the file filled up")
	assert.Equal(t, first.Seen, first.Indexed+first.Failed)
	assert.Equal(t, first.Indexed, first.Rebuilt)

	r = runCLI(t, base, "", false)
	require.Equal(t, 0, r.code, r.stdout)
	var next struct{ Unchanged, Rebuilt, Failed int }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &next), r.stdout)
	assert.Equal(t, first.Indexed, next.Unchanged, "what the first said it indexed is in the file")
	assert.Equal(t, first.Failed, next.Rebuilt)
}
