package listing

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"golang.org/x/sys/unix"
)

// dirent is one linux_dirent64 record, padded to 8 bytes as the kernel
// writes it.
func dirent(ino uint64, typ byte, name string) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b, ino)
	binary.NativeEndian.PutUint16(b[16:], uint16(n))
	b[18] = typ
	copy(b[19:], name)
	return b
}

func TestParseDirents(t *testing.T) {
	raw := slices.Concat(
		dirent(1, unix.DT_DIR, "."),
		dirent(2, unix.DT_DIR, ".."),
		dirent(3, unix.DT_REG, "a.jsonl"),
		dirent(0, unix.DT_REG, "deleted.jsonl"),
		dirent(4, unix.DT_LNK, "link.jsonl"),
		dirent(5, unix.DT_DIR, "a"),
		dirent(6, unix.DT_UNKNOWN, "unknown-file"),
		dirent(7, unix.DT_UNKNOWN, "vanished"),
		dirent(8, unix.DT_FIFO, "pipe"),
		dirent(9, unix.DT_SOCK, "sock"),
		dirent(10, unix.DT_CHR, "chr"),
		dirent(11, unix.DT_BLK, "blk"),
	)
	asked := []string{}
	typeOf := func(name string) (fs.FileMode, error) {
		asked = append(asked, name)
		if name == "vanished" {
			return 0, unix.ENOENT
		}
		return 0, nil
	}
	parse := func(raw []byte) []dirEntry {
		ents, err := parseDirents(raw, typeOf)
		require.NoError(t, err)
		return ents
	}
	want := []dirEntry{
		{"a.jsonl", 0}, {"link.jsonl", fs.ModeSymlink}, {"a", fs.ModeDir}, {"unknown-file", 0},
		{"pipe", fs.ModeNamedPipe}, {"sock", fs.ModeSocket}, {"chr", fs.ModeDevice | fs.ModeCharDevice}, {"blk", fs.ModeDevice},
	}
	assert.Equal(t, want, parse(raw))
	assert.Equal(t, []string{"unknown-file", "vanished"}, asked)

	// A record cut short, or one whose length is not a record's, ends the
	// run: what came before it stands.
	assert.Equal(t, []dirEntry{{"a.jsonl", 0}}, parse(slices.Concat(dirent(3, unix.DT_REG, "a.jsonl"), dirent(4, unix.DT_REG, "b.jsonl")[:20])))
	bad := dirent(4, unix.DT_REG, "b.jsonl")
	binary.NativeEndian.PutUint16(bad[16:], 3)
	assert.Equal(t, []dirEntry{{"a.jsonl", 0}}, parse(slices.Concat(dirent(3, unix.DT_REG, "a.jsonl"), bad)))
	assert.Empty(t, parse(nil))

	// An unknown type that cannot be asked for another reason fails the
	// directory, as os.File.ReadDir does.
	_, err := parseDirents(dirent(6, unix.DT_UNKNOWN, "locked"), func(string) (fs.FileMode, error) { return 0, unix.EACCES })
	assert.ErrorIs(t, err, unix.EACCES)
}

// TestEntriesMatchReadDir reads a directory holding every kind of entry,
// and more entries than one getdents64 call returns, and compares with
// os.ReadDir.
func TestEntriesMatchReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 700 {
		name := filepath.Join(dir, "2026-01-01T00-00-00-000Z_"+string(rune('a'+i%26))+string(rune('a'+i/26))+"-a-long-name-to-fill-the-buffer.jsonl")
		require.NoError(t, os.WriteFile(name, nil, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink("sub", filepath.Join(dir, "link")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))

	d, ents, err := openDir(dir)
	require.NoError(t, err)
	defer d.close()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	want := make([]dirEntry, len(des))
	for i, e := range des {
		want[i] = dirEntry{e.Name(), e.Type()}
	}
	slices.SortFunc(ents, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	assert.Equal(t, want, ents)
	for name, want := range map[string]fs.FileMode{"link": fs.ModeSymlink, "sub": fs.ModeDir, "pipe": fs.ModeNamedPipe, ents[0].name: 0} {
		typ, err := d.lstatType(name)
		assert.NoError(t, err, name)
		assert.Equal(t, want, typ, name)
	}
	_, err = d.lstatType("missing")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// TestDirentTypeIsTheModesType: a d_type is st_mode's type bits shifted,
// which lstatType relies on.
func TestDirentTypeIsTheModesType(t *testing.T) {
	for _, c := range []struct {
		dt   byte
		mode uint32
	}{
		{unix.DT_REG, unix.S_IFREG}, {unix.DT_DIR, unix.S_IFDIR}, {unix.DT_LNK, unix.S_IFLNK},
		{unix.DT_FIFO, unix.S_IFIFO}, {unix.DT_SOCK, unix.S_IFSOCK}, {unix.DT_CHR, unix.S_IFCHR}, {unix.DT_BLK, unix.S_IFBLK},
	} {
		assert.Equal(t, c.dt, byte(c.mode>>12))
		_, ok := direntType(c.dt)
		assert.True(t, ok, "d_type %d", c.dt)
	}
	_, ok := direntType(unix.DT_UNKNOWN)
	assert.False(t, ok)
}

// Reading a large directory holds a buffer's worth of raw entries at a
// time, not the whole directory's: what it allocates is about its
// entries and names, even when a collection has emptied the buffer pool
// (as a one-shot listing of a large archive does, again and again).
func TestEntriesOfALargeDirectoryAllocateAboutTheirNames(t *testing.T) {
	for _, n := range []int{500, 3000} {
		dir := t.TempDir()
		names := 0
		for i := range n {
			name := fmt.Sprintf("2026-04-10T18-36-12-327Z_019d78ae-26a7-7f4c-8e01-%012d.jsonl", i)
			names += len(name)
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600))
		}
		least := uint64(math.MaxUint64)
		for range 3 {
			runtime.GC()
			runtime.GC() // the pool's buffers are gone
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d, ents, err := openDir(dir)
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			d.close()
			require.NoError(t, err)
			require.Len(t, ents, n)
			least = min(least, after.TotalAlloc-before.TotalAlloc)
		}
		entries := uint64(n) * uint64(unsafe.Sizeof(dirEntry{}))
		assert.LessOrEqual(t, least, uint64(names)+3*entries+96<<10, "%d files", n)
	}
}
