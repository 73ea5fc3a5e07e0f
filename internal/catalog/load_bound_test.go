package catalog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/catalog"
)

// A catalog over the size bound is refused before it is read; one at the
// bound loads. The bound is small here, so a reader that ignored it would
// be seen reading bytes it should not.
func TestLoadLimit_SizeBound(t *testing.T) {
	dir := t.TempDir()
	small := `{"providers":[{"name":"p","actions":[{"name":"x","risk":"read"}]}]}`
	padded := small + strings.Repeat(" ", 4096-len(small))
	for _, tc := range []struct {
		name    string
		content string
		max     int64
		wantErr error
	}{
		{"at the bound", padded, 4096, nil},
		{"one byte over", padded + " ", 4096, catalog.ErrTooLarge},
		{"far over", padded + strings.Repeat(" ", 1<<20), 4096, catalog.ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o600))
			c, err := catalog.LoadLimit(path, tc.max)
			if tc.wantErr == nil {
				require.NoError(t, err)
				assert.NotNil(t, c)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			assert.Contains(t, err.Error(), path, "the error names the file")
			assert.Contains(t, err.Error(), "4096", "the error names the bound")
		})
	}
}

// Only a regular file is read: a directory, a device that never ends and
// a FIFO nobody writes fail at once with an error naming the path.
func TestLoad_NotRegularFailsFast(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, path string }{{"directory", dir}}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct{ name, path string }{"/dev/zero", "/dev/zero"})
	}
	if fifo := makeFIFO(t, dir); fifo != "" {
		cases = append(cases, struct{ name, path string }{"fifo", fifo})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := catalog.Load(tc.path)
				done <- err
			}()
			select {
			case err := <-done:
				require.ErrorIs(t, err, catalog.ErrNotRegular)
				assert.Contains(t, err.Error(), tc.path)
			case <-time.After(5 * time.Second):
				t.Fatalf("Load(%s) did not return", tc.path)
			}
		})
	}
}
