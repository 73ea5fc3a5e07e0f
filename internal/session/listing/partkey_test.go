package listing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
