package indexfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// fsizeDirEnv names the index directory a re-executed test binary
// writes to under a file size limit, fsizeLimitEnv the limit.
const (
	fsizeDirEnv   = "MEMIDX_TEST_BUCKET_FSIZE_DIR"
	fsizeLimitEnv = "MEMIDX_TEST_BUCKET_FSIZE_LIMIT"
)

// TestNewFileChild runs in a re-executed test binary only: one write to a
// new Store in the directory of fsizeDirEnv under RLIMIT_FSIZE, SIGXFSZ
// ignored, so that every write past the limit fails with EFBIG as on a
// disk that fills up. It prints the write's error.
func TestNewFileChild(t *testing.T) {
	dir := os.Getenv(fsizeDirEnv)
	if dir == "" {
		t.Skip("run by TestNewFileOnAFullDisk")
	}
	limit, err := strconv.ParseUint(os.Getenv(fsizeLimitEnv), 10, 64)
	require.NoError(t, err)
	signal.Ignore(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: limit, Max: limit}
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim))
	s := New(dir, Options{})
	err = s.Update(ctx, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("x"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), bytes.Repeat([]byte("v"), 2<<20))
	})
	fmt.Printf("\nCHILD %v\n", err)
}

// A disk that fills up while memidx creates its index file leaves either
// no file or a whole one of memidx's: never a half-made file that every
// later run calls foreign and leaves in place for good. The next process
// writes to it.
func TestNewFileOnAFullDisk(t *testing.T) {
	for _, limit := range []int{0, 4 << 10, 8 << 10, 12 << 10, 16 << 10, 20 << 10, 64 << 10, 1 << 20, 1280 << 10} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestNewFileChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), fsizeDirEnv+"="+dir, fsizeLimitEnv+"="+strconv.Itoa(limit))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "%s%s", out, stderr.String())
			_, child, ok := strings.Cut(string(out), "\nCHILD ")
			require.True(t, ok, "%s", out)
			child, _, _ = strings.Cut(child, "\n")
			assert.Contains(t, child, "file too large", "the write failed")

			s := New(dir, Options{})
			defer s.Close()
			if _, err := os.Lstat(s.Path()); !errors.Is(err, os.ErrNotExist) {
				_, err := get(s, "k")
				require.NoError(t, err, "the file at the path is a whole one of memidx's")
			}
			put(t, s, "k", "v")
			v, err := get(s, "k")
			require.NoError(t, err)
			assert.Equal(t, "v", v)
			names, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, names, 1, "no half-made file is left beside it")
			assert.Equal(t, FileName, names[0].Name())
		})
	}
}
