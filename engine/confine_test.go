package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecallNeverReadsASwappedBucket: the project's bucket directory is
// swapped for a symlink to an outside directory holding a session of the
// same name, and back, while recalls run; the outside session's text
// never appears in an answer or in the index file.
func TestRecallNeverReadsASwappedBucket(t *testing.T) {
	w := newWorld(t)
	p := w.write("in", msgLine("u1", "", "2026-09-01T10:00:01.000Z", user("insideword deploy")))
	outBucket := filepath.Join(w.root, "outside", filepath.Base(w.bucket))
	require.NoError(t, os.MkdirAll(outBucket, 0o755))
	secret := "outsidesecretword"
	for i := range 8 {
		// Outside sessions of other sizes and times, so that the index
		// cannot take them for the listed one.
		body := `{"type":"session","version":3,"id":"out","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/secret"}` + "\n" +
			msgLine("u1", "", "2026-09-01T10:00:01.000Z", user(secret+strings.Repeat(" pad", i))) + "\n"
		name := filepath.Base(p)
		if i > 0 {
			name = strings.Replace(name, "_in", "_in"+string(rune('a'+i)), 1)
		}
		require.NoError(t, os.WriteFile(filepath.Join(outBucket, name), []byte(body), 0o644))
	}
	e := w.engine()
	defer e.Close()
	require.Contains(t, strings.Join(texts(recall(t, e, engine.RecallRequest{Query: "insideword", Scope: "global"})), " "), "insideword")

	aside := w.bucket + ".aside"
	link := w.bucket + ".link"
	require.NoError(t, os.Symlink(outBucket, link))
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Rename(w.bucket, aside)
			os.Rename(link, w.bucket)
			time.Sleep(time.Millisecond)
			os.Rename(w.bucket, link)
			os.Rename(aside, w.bucket)
			// A change of the listed session makes the next recall read
			// it again.
			if f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0); err == nil {
				f.WriteString(msgLine("u"+time.Now().Format("150405.000000000"), "", "2026-09-01T10:00:02.000Z", user("more")) + "\n")
				f.Close()
			}
		}
	}()
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; i < 300 && time.Now().Before(deadline); i++ {
		page, err := e.Recall(ctx, engine.RecallRequest{Query: secret, Scope: "global"})
		if err == nil {
			assert.NotContains(t, strings.Join(texts(page), " "), secret)
		}
	}
	close(stop)
	<-done
	require.NoError(t, e.Close())
	err := filepath.Walk(w.cfg.IndexDir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil {
			assert.False(t, bytes.Contains(b, []byte(secret)), "%s holds the outside text", path)
		}
		return err
	})
	require.NoError(t, err)
}
