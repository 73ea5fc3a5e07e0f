package indexfile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// heldDB is the handle r keeps between reads (nil when none).
func heldDB(s *Store) *bolt.DB {
	s.held.mu.Lock()
	defer s.held.mu.Unlock()
	return s.held.db
}

func skipWithoutHold(t *testing.T) {
	if !canHold {
		t.Skip("this platform opens the file for every read")
	}
}

// keptReader returns a reader Store holding its handle on a file whose
// writer is w (another process, as far as the lock and the file go): w
// wrote k = v (and any more pairs of kv) before r read k once.
func keptReader(t *testing.T, kv ...string) (r, w *Store) {
	t.Helper()
	skipWithoutHold(t)
	dir := t.TempDir()
	r = New(dir, Options{LockTimeout: time.Second})
	w = New(dir, Options{LockTimeout: time.Second})
	for i := 0; i+1 < len(kv); i += 2 {
		put(t, w, kv[i], kv[i+1])
	}
	_, err := get(r, "k")
	require.NoError(t, err)
	require.NotNil(t, heldDB(r))
	return r, w
}

// The kept handle serves read after read while the file is unchanged;
// another handle's commits (another process's, as far as the lock and the
// file go) are seen by the next read, whether they grew the file or not.
func TestStore_HeldHandleSeesOtherWriters(t *testing.T) {
	r, w := keptReader(t, "k", "v0000")
	first := heldDB(r)
	for i := 0; i < 10; i++ {
		_, err := get(r, "k")
		require.NoError(t, err)
	}
	assert.Same(t, first, heldDB(r), "an unchanged file keeps its handle")

	for i := 1; i <= 50; i++ {
		want := fmt.Sprintf("v%04d", i)
		put(t, w, "k", want)
		got, err := get(r, "k")
		require.NoError(t, err)
		require.Equal(t, want, got, "round %d", i)
	}
	big := string(make([]byte, 4<<20)) // grows the file past its map
	put(t, w, "big", big)
	got, err := get(r, "big")
	require.NoError(t, err)
	assert.Len(t, got, len(big))
}

// Commits seen through a kept handle whose file looks unchanged (a commit
// within the same clock tick): the shared map shows them. The file's time
// is put back after each commit to force that case.
func TestStore_HeldHandleSeesCommitsWithinATick(t *testing.T) {
	// pad: room, so that later commits don't grow the file.
	r, w := keptReader(t, "k", "v0000", "pad", string(make([]byte, 1<<20)))
	first := heldDB(r)
	st, err := os.Stat(r.Path())
	require.NoError(t, err)
	for i := 1; i <= 50; i++ {
		want := fmt.Sprintf("v%04d", i)
		put(t, w, "k", want)
		now, err := os.Stat(r.Path())
		require.NoError(t, err)
		if now.Size() != st.Size() {
			t.Skipf("the file grew at commit %d", i)
		}
		require.NoError(t, os.Chtimes(r.Path(), st.ModTime(), st.ModTime()))
		got, err := get(r, "k")
		require.NoError(t, err)
		require.Equal(t, want, got, "round %d", i)
	}
	assert.Same(t, first, heldDB(r))
}

// Between reads the kept handle holds no lock: a writer elsewhere gets the
// file at once.
func TestStore_HeldHandleDoesNotBlockWriters(t *testing.T) {
	skipWithoutHold(t)
	dir := t.TempDir()
	r := New(dir, Options{LockTimeout: time.Second})
	w := New(dir, Options{LockTimeout: 50 * time.Millisecond})
	put(t, w, "k", "v")
	_, err := get(r, "k")
	require.NoError(t, err)
	require.NotNil(t, heldDB(r))
	start := time.Now()
	put(t, w, "k", "w")
	assert.Less(t, time.Since(start), time.Second)
}

// A file removed and written anew, or replaced by another program's file,
// is read as what the path names now, never through the old handle.
func TestStore_HeldHandleFollowsAReplacedFile(t *testing.T) {
	r, w := keptReader(t, "k", "old")

	require.NoError(t, w.Reset())
	put(t, w, "k", "new")
	got, err := get(r, "k")
	require.NoError(t, err)
	assert.Equal(t, "new", got)

	foreign := filepath.Join(t.TempDir(), "other.db")
	require.NoError(t, os.WriteFile(foreign, []byte("SQLite format 3\x00 not memidx's"), 0o600))
	require.NoError(t, os.Rename(foreign, r.Path()))
	_, err = get(r, "k")
	assert.ErrorIs(t, err, ErrForeign)
	assert.Nil(t, heldDB(r), "a failed read keeps no handle")
}

// A file cut short under the kept handle is damage, reported as such, not
// a crash (pages past the end of the file fault).
func TestStore_HeldHandleOnATruncatedFile(t *testing.T) {
	skipWithoutHold(t)
	dir := t.TempDir()
	r := New(dir, Options{LockTimeout: time.Second})
	put(t, r, "big", string(make([]byte, 1<<20)))
	_, err := get(r, "big")
	require.NoError(t, err)
	require.NotNil(t, heldDB(r))
	st, err := os.Stat(r.Path())
	require.NoError(t, err)
	require.NoError(t, os.Truncate(r.Path(), st.Size()/3))
	_, err = get(r, "big")
	assert.ErrorIs(t, err, ErrCorrupt)
}

// Reads in flight share the handle and its lock; the last one out drops
// the lock, so a writer gets in afterwards. Run with -race.
func TestStore_HeldHandleConcurrentReads(t *testing.T) {
	skipWithoutHold(t)
	dir := t.TempDir()
	r := New(dir, Options{LockTimeout: 5 * time.Second})
	w := New(dir, Options{LockTimeout: 5 * time.Second})
	put(t, w, "k", "v000")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if v, err := get(r, "k"); err != nil || len(v) != 4 {
					errs <- fmt.Errorf("read %q: %v", v, err)
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		put(t, w, "k", fmt.Sprintf("v%03d", i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r.held.mu.Lock()
	assert.False(t, r.held.busy)
	r.held.mu.Unlock()
	w2 := New(dir, Options{LockTimeout: 50 * time.Millisecond})
	put(t, w2, "k", "last")
}

// After Close the Store keeps nothing open and still reads.
func TestStore_CloseLetsGo(t *testing.T) {
	dir := t.TempDir()
	s := New(dir, Options{})
	put(t, s, "k", "v")
	_, err := get(s, "k")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.Nil(t, heldDB(s))
	v, err := get(s, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
	assert.Nil(t, heldDB(s), "a closed Store holds nothing")
}

// Both meta pages damaged in place with the file's size and time as they
// were: the kept handle would panic inside bbolt with its locks taken. Many
// reads at once must each answer (damage) rather than hang, and the file
// works again once reset.
func TestStore_HeldHandleDamagedInPlaceUnderParallelReads(t *testing.T) {
	skipWithoutHold(t)
	for round := 0; round < 20; round++ {
		dir := t.TempDir()
		s := New(dir, Options{LockTimeout: time.Second})
		put(t, s, "k", "v")
		_, err := get(s, "k")
		require.NoError(t, err)
		require.NotNil(t, heldDB(s))
		st, err := os.Stat(s.Path())
		require.NoError(t, err)
		f, err := os.OpenFile(s.Path(), os.O_RDWR, 0)
		require.NoError(t, err)
		for _, off := range []int64{16, 4096 + 16} {
			_, err := f.WriteAt([]byte{0xde, 0xad, 0xbe, 0xef}, off)
			require.NoError(t, err)
		}
		require.NoError(t, f.Close())
		require.NoError(t, os.Chtimes(s.Path(), st.ModTime(), st.ModTime()))

		done := make(chan error, 16)
		for g := 0; g < 16; g++ {
			go func() { _, err := get(s, "k"); done <- err }()
		}
		for g := 0; g < 16; g++ {
			select {
			case err := <-done:
				assert.Error(t, err, "round %d", round)
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: a read hangs on the damaged handle", round)
			}
		}
		require.NoError(t, s.Reset())
		put(t, s, "k", "w")
		v, err := get(s, "k")
		require.NoError(t, err)
		assert.Equal(t, "w", v)
	}
}

// Reads waiting for a lock another process holds wait side by side: each
// gives up after its own timeout, not after the reads before it.
func TestStore_HeldHandleWaitsSideBySide(t *testing.T) {
	skipWithoutHold(t)
	dir := t.TempDir()
	const timeout = 300 * time.Millisecond
	r := New(dir, Options{LockTimeout: timeout})
	w := New(dir, Options{LockTimeout: time.Second})
	put(t, w, "k", "v")
	_, err := get(r, "k")
	require.NoError(t, err)
	inside, release := make(chan struct{}), make(chan struct{})
	writer := make(chan error, 1)
	go func() {
		writer <- w.Update(ctx, func(*bolt.Tx) error { close(inside); <-release; return nil })
	}()
	<-inside
	start := time.Now()
	errs := make(chan error, 6)
	for g := 0; g < 6; g++ {
		go func() { _, err := get(r, "k"); errs <- err }()
	}
	for g := 0; g < 6; g++ {
		assert.ErrorIs(t, <-errs, ErrLocked)
	}
	assert.Less(t, time.Since(start), 3*timeout, "six reads waited one after another")
	close(release)
	require.NoError(t, <-writer)
	v, err := get(r, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
}

// A panic in a read's own function closes the kept handle (bbolt's locks
// were released by its rollback) rather than leaking its map, and the next
// read opens the file afresh.
func TestStore_PanicInAReadClosesTheHandle(t *testing.T) {
	skipWithoutHold(t)
	s := New(t.TempDir(), Options{})
	put(t, s, "k", "v")
	err := s.View(ctx, func(*bolt.Tx) error { panic("a bug") })
	assert.Error(t, err)
	assert.Nil(t, heldDB(s))
	n := 0
	s.files.Range(func(any, any) bool { n++; return true })
	assert.Zero(t, n, "no handle is left open")
	v, err := get(s, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
}

// Stat describes the file a transaction reads, even when another file
// has taken its path meanwhile.
func TestStore_StatIsTheOpenFile(t *testing.T) {
	s := New(t.TempDir(), Options{})
	put(t, s, "k", "v")
	before, err := os.Stat(s.Path())
	require.NoError(t, err)
	other := filepath.Join(t.TempDir(), "other")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o600))
	require.NoError(t, s.View(ctx, func(tx *bolt.Tx) error {
		require.NoError(t, os.Rename(other, s.Path()))
		st, err := s.Stat(tx)
		require.NoError(t, err)
		assert.True(t, os.SameFile(before, st), "the file read, not the one at the path")
		return nil
	}))
}

// Both meta pages damaged while a read is in flight on the kept handle: a
// second read (which opens the file for itself) fails, the read in flight
// ends, and once the bytes are back a writer gets the lock (no handle
// left behind keeps it).
func TestStore_DamageWhileAReadIsInFlight(t *testing.T) {
	r, _ := keptReader(t, "k", "v")
	orig, err := os.ReadFile(r.Path())
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		done <- r.View(ctx, func(*bolt.Tx) error {
			f, err := os.OpenFile(r.Path(), os.O_RDWR, 0)
			if err != nil {
				return err
			}
			for _, off := range []int64{16, 4096 + 16} {
				if _, err := f.WriteAt([]byte{0xde, 0xad, 0xbe, 0xef}, off); err != nil {
					return err
				}
			}
			if err := f.Close(); err != nil {
				return err
			}
			if _, err := get(r, "k"); err == nil {
				return fmt.Errorf("a read of the damaged file answered")
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the read in flight hangs")
	}
	require.NoError(t, os.WriteFile(r.Path(), orig, 0o600))
	w := New(r.Dir(), Options{LockTimeout: 200 * time.Millisecond})
	put(t, w, "k", "w")
	v, err := get(r, "k")
	require.NoError(t, err)
	assert.Equal(t, "w", v)
}

// A handle abandoned on damage (its probe panicked) lets go of its lock:
// once the bytes are back, a writer gets the file.
func TestStore_AbandonedHandleDropsItsLock(t *testing.T) {
	r, _ := keptReader(t, "k", "v")
	orig, err := os.ReadFile(r.Path())
	require.NoError(t, err)
	st, err := os.Stat(r.Path())
	require.NoError(t, err)
	damaged := slices.Clone(orig)
	for _, off := range []int{16, 4096 + 16} {
		copy(damaged[off:], []byte{0xde, 0xad, 0xbe, 0xef})
	}
	rewrite := func(b []byte) {
		f, err := os.OpenFile(r.Path(), os.O_RDWR, 0)
		require.NoError(t, err)
		_, err = f.WriteAt(b, 0)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		require.NoError(t, os.Chtimes(r.Path(), st.ModTime(), st.ModTime()))
	}
	rewrite(damaged)
	_, err = get(r, "k")
	require.Error(t, err)
	require.Nil(t, heldDB(r), "the handle was let go")
	rewrite(orig)
	w := New(r.Dir(), Options{LockTimeout: 200 * time.Millisecond})
	put(t, w, "k", "w")
	v, err := get(r, "k")
	require.NoError(t, err)
	assert.Equal(t, "w", v)
}
