package listing

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/session/locate"
)

// A kept part is found by its key spelled in bytes, as a listing spells it
// on every call, without copying the key.
func TestKeptPartLookupCopiesNoKey(t *testing.T) {
	c := NewListCache()
	defer c.Close()
	d := bucketDir{dir: "/agent/sessions/--work--", bucket: "--work--"}
	for _, opts := range []ListOptions{{}, {TopLevelOnly: true}} {
		p := newPart(&part{key: flatKey(d, opts)})
		c.mu.Lock()
		c.parts[p.key] = p
		c.mu.Unlock()
		key := appendFlatKey(make([]byte, 0, 128), d, opts)
		assert.Equal(t, flatKey(d, opts), string(key))
		assert.Same(t, p, c.get(key))
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = c.get(key) }))
	}
	other := appendFlatKey(nil, bucketDir{dir: "/agent/sessions/--work--/", bucket: "--work--"}, ListOptions{})
	assert.NotNil(t, c.get(other), "the directory is cleaned, as flatKey cleans it")
	assert.Nil(t, c.get(appendFlatKey(nil, bucketDir{dir: "/agent/sessions/--else--", bucket: "--else--"}, ListOptions{})))
}

// A barrier's timer is reused, and a reused one fires after its own
// duration, never with what an earlier use left behind, a firing nobody
// received included (which the old timer channels, GODEBUG
// asynctimerchan=1, kept).
func TestSyncTimerReuse(t *testing.T) {
	first := syncTimer(time.Millisecond)
	<-first.C // fired: nothing left to deliver once stopped
	putSyncTimer(first)
	unread := syncTimer(time.Millisecond)
	time.Sleep(10 * time.Millisecond) // fired, never received (a barrier met first)
	putSyncTimer(unread)
	long := syncTimer(time.Hour)
	select {
	case <-long.C:
		t.Fatal("a reused timer delivered an earlier firing")
	case <-time.After(20 * time.Millisecond):
	}
	putSyncTimer(long)
	short := syncTimer(time.Millisecond)
	select {
	case <-short.C:
	case <-time.After(5 * time.Second):
		t.Fatal("a reused timer did not fire")
	}
	putSyncTimer(short)
	if !raceEnabled {
		assert.Zero(t, testing.AllocsPerRun(100, func() { putSyncTimer(syncTimer(time.Hour)) }))
	}
}

// A directory's sessions share one allocation of stats: their Stat
// pointers lie in one block, each its own slot.
func TestADirectorysStatsAreOneBlock(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	bucket := filepath.Join(root, "sessions", "--work--")
	require.NoError(t, os.MkdirAll(bucket, 0o755))
	const n = 40
	for i := range n {
		require.NoError(t, os.WriteFile(filepath.Join(bucket, fmt.Sprintf("s%02d.jsonl", i)), []byte(strings.Repeat("x", i+1)), 0o600))
	}
	refs, err := ListSessions(locate.Dirs{SessionsRoot: filepath.Join(root, "sessions")}, ListOptions{TopLevelOnly: true})
	require.NoError(t, err)
	require.Len(t, refs, n)
	var at []uintptr
	for _, r := range refs {
		st, err := os.Stat(r.Path)
		require.NoError(t, err)
		assert.Equal(t, st.Size(), r.Stat.Size, r.Path)
		at = append(at, uintptr(unsafe.Pointer(r.Stat)))
	}
	slices.Sort(at)
	size := unsafe.Sizeof(FileStat{})
	for i := 1; i < len(at); i++ {
		assert.Equal(t, size, at[i]-at[i-1], "slot %d follows slot %d", i, i-1)
	}
}

// A ref is its path, its stat and its place: a server holds every ref
// twice, and the flags a ref carried were 8 bytes of each. What they say
// lives in the place, resolved refs included.
func TestARefIsItsPathStatAndPlace(t *testing.T) {
	assert.Equal(t, 4*unsafe.Sizeof(uintptr(0)), unsafe.Sizeof(Ref{}))
	for _, c := range []struct {
		bucket string
		nested bool
	}{{"", false}, {"", true}, {"--w--", false}, {"--w--", true}} {
		r := ResolvedRef("/s/x.jsonl", c.bucket, c.nested, nil)
		assert.Equal(t, c.nested, r.Nested(), "%+v", c)
		assert.Equal(t, c.bucket, r.Bucket(), "%+v", c)
		assert.False(t, r.Archived())
		assert.Empty(t, r.Top(), "resolved, not listed")
	}
}
