package confine_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/session"
	"github.com/memidx/memidx/internal/session/confine"
	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/locate"
	"github.com/memidx/memidx/internal/session/sessiontest"
)

// The session tree builders of every session package's tests.
var (
	tempRoot     = sessiontest.TempRoot
	writeSession = sessiontest.WriteSession
)

func paths(refs []listing.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Path
	}
	return out
}

// confineTree is a sessions root with one bucket (-w) holding a session
// and its artifacts directory, a second bucket (-v) inside the root, and
// an outside tree laid out the same way whose files carry a secret.
type confineTree struct {
	root, sessions, outside string
	top, nested             string // listed paths inside the root
}

const outsideSecret = "OUTSIDE-SECRET-4217"

func newConfineTree(t *testing.T) confineTree {
	t.Helper()
	root := tempRoot(t)
	c := confineTree{root: root, sessions: filepath.Join(root, "sessions"), outside: filepath.Join(root, "outside")}
	c.top = filepath.Join(c.sessions, "-w", "T1_a.jsonl")
	c.nested = filepath.Join(c.sessions, "-w", "T1_a", "sub.jsonl")
	writeSession(t, c.top, "inside-top", "/w", time.Unix(1, 0))
	writeSession(t, c.nested, "inside-nested", "/w", time.Unix(1, 0))
	writeSession(t, filepath.Join(c.sessions, "-v", "T1_a.jsonl"), "inside-other-bucket", "/v", time.Unix(1, 0))
	writeSession(t, filepath.Join(c.sessions, "-v", "T1_a", "sub.jsonl"), "inside-other-nested", "/v", time.Unix(1, 0))
	for _, p := range []string{"-w/T1_a.jsonl", "-w/T1_a/sub.jsonl"} {
		writeSession(t, filepath.Join(c.outside, p), outsideSecret, "/secret", time.Unix(1, 0))
	}
	return c
}

// swap replaces the entry at p with a symlink to target.
func swap(t *testing.T, p, target string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(p))
	require.NoError(t, os.Symlink(target, p))
}

// TestReadAfterSwapNeverLeavesRoots: a file is listed (the root check),
// then a directory on its path, or the file itself, is swapped for a
// symlink; reading the listed path must never return what lies outside
// the roots, and a swap whose target stays inside the roots reads there.
func TestReadAfterSwapNeverLeavesRoots(t *testing.T) { testReadAfterSwap(t) }

// heldID reads the session at path through h, as a rebuild's workers
// do, and returns its id.
func heldID(h *confine.Held, path string) (string, error) {
	f, err := h.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return "", err
	}
	sf := session.Parse(path, data)
	if sf.Header == nil {
		return "", errors.New("no header")
	}
	return sf.Header.ID, nil
}

func testReadAfterSwap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		swap   func(c confineTree) (link, target string)
		nested bool
		wantID string // "" means the read is refused
	}{
		{name: "bucket to an outside dir", swap: func(c confineTree) (string, string) {
			return filepath.Join(c.sessions, "-w"), filepath.Join(c.outside, "-w")
		}},
		{name: "bucket to an outside dir, relative link", swap: func(c confineTree) (string, string) {
			return filepath.Join(c.sessions, "-w"), filepath.Join("..", "outside", "-w")
		}},
		{name: "file to an outside file", swap: func(c confineTree) (string, string) {
			return c.top, filepath.Join(c.outside, "-w", "T1_a.jsonl")
		}},
		{name: "artifacts dir to an outside dir", nested: true, swap: func(c confineTree) (string, string) {
			return filepath.Join(c.sessions, "-w", "T1_a"), filepath.Join(c.outside, "-w", "T1_a")
		}},
		{name: "bucket to another bucket", wantID: "inside-other-bucket", swap: func(c confineTree) (string, string) {
			return filepath.Join(c.sessions, "-w"), filepath.Join(c.sessions, "-v")
		}},
		{name: "bucket to another bucket, relative link", wantID: "inside-other-bucket", swap: func(c confineTree) (string, string) {
			return filepath.Join(c.sessions, "-w"), "-v"
		}},
		{name: "artifacts dir to another one inside", nested: true, wantID: "inside-other-nested", swap: func(c confineTree) (string, string) {
			return filepath.Join(c.sessions, "-w", "T1_a"), filepath.Join(c.sessions, "-v", "T1_a")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConfineTree(t)
			refs, err := listing.ListSessions(locate.Dirs{SessionsRoot: c.sessions}, listing.ListOptions{})
			require.NoError(t, err)
			want := c.top
			if tc.nested {
				want = c.nested
			}
			require.Contains(t, paths(refs), want)
			// A Held that opened a file under the root before the swap
			// (it holds the root), as a run's reads do.
			held := &confine.Held{}
			defer held.Close()
			_, err = heldID(held, filepath.Join(c.sessions, "-v", "T1_a.jsonl"))
			require.NoError(t, err)
			link, target := tc.swap(c)
			swap(t, link, target)

			f, ferr := session.ReadFile(want)
			h, herr := session.ReadHeader(want)
			id, iderr := heldID(held, want)
			if tc.wantID == "" {
				for _, err := range []error{ferr, herr, iderr} {
					require.Error(t, err)
					assert.True(t, errors.Is(err, confine.ErrOutsideRoots), "%v", err)
				}
				return
			}
			require.NoError(t, ferr)
			require.NoError(t, herr)
			require.NoError(t, iderr)
			assert.Equal(t, tc.wantID, f.Header.ID)
			assert.Equal(t, tc.wantID, h.ID)
			assert.Equal(t, tc.wantID, id)
		})
	}
}

// TestReadRacesBucketSwap swaps a listed bucket directory for a symlink to
// an outside one and back, as fast as it can, while the listed path is
// read: no read may ever return the outside session.
func TestReadRacesBucketSwap(t *testing.T) { testReadRacesSwap(t) }

func testReadRacesSwap(t *testing.T) {
	c := newConfineTree(t)
	refs, err := listing.ListSessions(locate.Dirs{SessionsRoot: c.sessions}, listing.ListOptions{})
	require.NoError(t, err)
	require.Contains(t, paths(refs), c.top)
	bucket := filepath.Join(c.sessions, "-w")
	aside := filepath.Join(c.sessions, ".aside")
	link := filepath.Join(c.sessions, ".link")
	require.NoError(t, os.Symlink(filepath.Join(c.outside, "-w"), link))

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Put the link in the bucket's place, then the bucket back.
			os.Rename(bucket, aside)
			os.Rename(link, bucket)
			os.Rename(bucket, link)
			os.Rename(aside, bucket)
		}
	}()
	deadline := time.Now().Add(3 * time.Second)
	reads, leaks := 0, 0
	held := &confine.Held{}
	defer held.Close()
	for i := 0; i < 2000 && time.Now().Before(deadline); i++ {
		for _, p := range []string{c.top, c.nested} {
			if f, err := session.ReadFile(p); err == nil {
				reads++
				if f.Header != nil && strings.Contains(f.Header.ID, outsideSecret) {
					leaks++
				}
			}
			if id, err := heldID(held, p); err == nil {
				reads++
				if strings.Contains(id, outsideSecret) {
					leaks++
				}
			}
		}
	}
	close(stop)
	<-done
	assert.Zero(t, leaks, "outside sessions read in %d reads", reads)
	assert.NotZero(t, reads)
}

// A Held reads beneath the root its path named when it first opened a
// file there: a root moved aside and replaced by a link to another tree
// afterwards is not followed; after Close it opens as Open does.
func TestHeldKeepsItsRoot(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a Held holds its roots on Linux only")
	}
	c := newConfineTree(t)
	_, err := listing.ListSessions(locate.Dirs{SessionsRoot: c.sessions}, listing.ListOptions{})
	require.NoError(t, err)
	held := &confine.Held{}
	id, err := heldID(held, c.top)
	require.NoError(t, err)
	require.Equal(t, "inside-top", id)
	require.NoError(t, os.Rename(c.sessions, c.sessions+".moved"))
	require.NoError(t, os.Symlink(c.outside, c.sessions))
	id, err = heldID(held, c.nested)
	require.NoError(t, err)
	assert.Equal(t, "inside-nested", id, "the held root, not the tree its path names now")
	held.Close()
	id, err = heldID(held, c.nested)
	require.NoError(t, err)
	assert.Equal(t, outsideSecret, id, "closed: the root as its path names it, as Open")
}
