package benchmark

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/corpus"
	"github.com/memidx/memidx/internal/session/listing"
)

// fileState is what the bench must leave alone in a corpus file.
type fileState struct {
	mode  fs.FileMode
	mtime time.Time
	data  string // contents, or a symlink's target
}

// snapshot records every entry under dir, symlinks not followed.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	snap := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{mode: info.Mode(), mtime: info.ModTime()}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			st.data, err = os.Readlink(p)
		case d.Type().IsRegular():
			var b []byte
			b, err = os.ReadFile(p)
			st.data = string(b)
		}
		snap[p] = st
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// sameSnapshot reports every entry added, removed or changed.
func sameSnapshot(t *testing.T, before, after map[string]fileState) {
	t.Helper()
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Errorf("%s was removed", p)
		case a.mode != b.mode || !a.mtime.Equal(b.mtime):
			t.Errorf("%s: mode %v mtime %v, was %v %v", p, a.mode, a.mtime, b.mode, b.mtime)
		case a.data != b.data:
			t.Errorf("%s: contents changed (%d bytes, was %d)", p, len(a.data), len(b.data))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		}
	}
}

// writeFile writes data to a new file with an old mtime, so that a later
// write shows.
func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

// stubMemidx returns a memidx binary answering {"seen":0} to everything:
// the tests are about which files the bench touches, and its in-process
// steps (refreshes with the appended turn, queries) still do real work.
func stubMemidx(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stub memidx is a shell script")
	}
	stub := filepath.Join(t.TempDir(), "memidx")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\necho '{\"seen\":0}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return stub
}

// A manifest naming a file outside the corpus, directly or through a
// symlink, stops the bench before it does anything, with an error naming
// the path; the file is left as it was. The corpus is dir/corpus and the
// victim dir/victim.txt; $victim and $dir stand for their absolute paths.
func TestRunRefusesManifestPathsOutsideCorpus(t *testing.T) {
	stub := stubMemidx(t)
	session := func(path string) string {
		return `{"sessions":[{"path":` + quote(path) + `,"bucket":"b","leaf":"x"}],"facts":[]}`
	}
	cases := []struct {
		name, manifest, path string
		link, target         string // a symlink made in the corpus
	}{
		{name: "relative", manifest: session("../victim.txt"), path: "../victim.txt"},
		{name: "dot-dot inside", manifest: session("sessions/../../victim.txt"), path: "sessions/../../victim.txt"},
		{name: "absolute", manifest: session("$victim"), path: "$victim"},
		{name: "fact", manifest: `{"sessions":[],"facts":[{"kind":"term","path":"../victim.txt"}]}`, path: "../victim.txt"},
		{name: "parent", manifest: `{"sessions":[{"path":"sessions/b/s.jsonl","parent":"../victim.txt","bucket":"b"}]}`, path: "../victim.txt"},
		{name: "bucket", manifest: `{"sessions":[{"path":"sessions/b/s.jsonl","bucket":"../../x"}]}`, path: "sessions/../../x"},
		{name: "file symlink", manifest: session("sessions/s.jsonl"), path: "sessions/s.jsonl",
			link: "sessions/s.jsonl", target: "$victim"},
		{name: "directory symlink", manifest: session("sessions/out/victim.txt"), path: "sessions/out/victim.txt",
			link: "sessions/out", target: "$dir"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			victim, dir := filepath.Join(top, "victim.txt"), filepath.Join(top, "corpus")
			expand := strings.NewReplacer("$victim", filepath.ToSlash(victim), "$dir", top).Replace
			writeFile(t, victim, "keep me\n")
			if err := os.MkdirAll(filepath.Join(dir, "sessions", "b"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "manifest.json"), expand(c.manifest))
			if c.link != "" {
				if err := os.Symlink(expand(c.target), filepath.Join(dir, filepath.FromSlash(c.link))); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, victim)
			start := time.Now()
			_, err := Run(context.Background(), Options{Corpus: dir, Runs: 1, Binary: stub})
			if err == nil || !strings.Contains(err.Error(), quote(expand(c.path))) || !strings.Contains(err.Error(), "outside the corpus") {
				t.Errorf("Run: %v, want an error naming %q outside the corpus", err, expand(c.path))
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("refused after %v, want before any work", d)
			}
			sameSnapshot(t, before, snapshot(t, victim))
		})
	}
}

func quote(s string) string { return `"` + s + `"` }

// A run over a corpus directory works on its own copy: every file of the
// corpus keeps its bytes and mtime, nothing is created in it, and a file
// a symlink of the corpus leads to is not written either.
func TestRunLeavesCorpusUntouched(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := corpus.Generate(corpus.Options{Sessions: 3, Seed: 7, Scale: 0.02, Out: dir}); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	writeFile(t, outside, "keep me\n")
	if err := os.Symlink(outside, filepath.Join(dir, "sessions", "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	stub := stubMemidx(t)
	before, beforeOut := snapshot(t, dir), snapshot(t, outside)

	rep, err := Run(context.Background(), Options{Corpus: dir, Runs: 1, Binary: stub})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Corpus != dir || rep.Rebuild.OneAppendRebuilt != 1 {
		t.Errorf("corpus %q, one append rebuilt %d; want %q and 1", rep.Corpus, rep.Rebuild.OneAppendRebuilt, dir)
	}
	sameSnapshot(t, before, snapshot(t, dir))
	sameSnapshot(t, beforeOut, snapshot(t, outside))
}

// mirror copies the corpus files, keeps their mtimes, leaves the corpus's
// own files as they were (ctime included: no hard link) and leaves
// symlinks out.
func TestMirror(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "mirror")
	if err := os.MkdirAll(filepath.Join(src, "sessions", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"manifest.json", "sessions/b/linked.jsonl", "sessions/b/written.jsonl"} {
		writeFile(t, filepath.Join(src, filepath.FromSlash(name)), name+"\n")
	}
	symlinked := os.Symlink(filepath.Join(src, "manifest.json"), filepath.Join(src, "sessions", "link.jsonl")) == nil

	ctimes := map[string]int64{}
	for _, name := range []string{"manifest.json", "sessions/b/linked.jsonl", "sessions/b/written.jsonl"} {
		ctimes[name] = ctimeOf(t, filepath.Join(src, filepath.FromSlash(name)))
	}
	time.Sleep(20 * time.Millisecond) // a link made now would move a ctime
	st, err := mirror(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if st != (mirrorStats{copied: 3}) {
		t.Errorf("stats %+v, want 3 copied", st)
	}
	if symlinked {
		if _, err := os.Lstat(filepath.Join(dst, "sessions", "link.jsonl")); !os.IsNotExist(err) {
			t.Errorf("the symlink was mirrored: %v", err)
		}
	}
	for _, name := range []string{"manifest.json", "sessions/b/linked.jsonl", "sessions/b/written.jsonl"} {
		a, err := os.Stat(filepath.Join(src, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.Stat(filepath.Join(dst, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if os.SameFile(a, b) {
			t.Errorf("%s: linked to the corpus", name)
		}
		if c := ctimeOf(t, filepath.Join(src, filepath.FromSlash(name))); c != ctimes[name] {
			t.Errorf("%s: the corpus file's ctime moved", name)
		}
		if !a.ModTime().Equal(b.ModTime()) {
			t.Errorf("%s: mtime %v, want %v", name, b.ModTime(), a.ModTime())
		}
		data, _ := os.ReadFile(filepath.Join(dst, filepath.FromSlash(name)))
		if !bytes.Equal(data, []byte(name+"\n")) {
			t.Errorf("%s: contents %q", name, data)
		}
	}
}

// ctimeOf is a file's change time (0 where the platform does not say).
func ctimeOf(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return listing.StatOf(st).CtimeNs
}
