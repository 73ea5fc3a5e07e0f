//go:build unix

package reliability

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

// versions remembers every version a writer produced of every session
// file, by SHA-256, so that any answer bound to a source hash can be
// checked against exactly the bytes that hash names.
type versions struct {
	mu     sync.Mutex
	bytes  map[string][]byte   // hash -> file bytes
	byPath map[string][]string // path -> hashes, oldest first
	parsed map[string][]entryText
}

// entryText is what an answer may say about an entry of a version.
type entryText struct {
	id   string
	text string
}

func newVersions() *versions {
	return &versions{bytes: map[string][]byte{}, byPath: map[string][]string{}, parsed: map[string][]entryText{}}
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// add records a version before it becomes visible.
func (v *versions) add(path string, b []byte) string {
	h := hashOf(b)
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.bytes[h]; !ok {
		v.bytes[h] = append([]byte(nil), b...)
		v.byPath[path] = append(v.byPath[path], h)
	}
	return h
}

func (v *versions) count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.bytes)
}

// entries returns the active-branch entries of the version with hash h,
// read losslessly as expansion reads them; ok is false for an unknown hash.
func (v *versions) entries(path, h string) ([]entryText, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.parsed[h]; ok {
		return e, true
	}
	b, ok := v.bytes[h]
	if !ok {
		return nil, false
	}
	f := session.Parse(path, b)
	sel := lineage.Select(f, lineage.Active, nil)
	res := normalize.Session(f, sel, normalize.Lossless())
	out := make([]entryText, len(res.Entries))
	for i, e := range res.Entries {
		out[i] = entryText{id: normalize.Get(e.EntryID), text: e.Text}
	}
	v.parsed[h] = out
	return out, true
}

func (v *versions) hashesOf(path string) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.byPath[path]...)
}

// verdict of one check.
type verdict int

const (
	verdictOK verdict = iota
	verdictUnknownHash
	verdictContradiction
)

// checkEntry checks one claim about entry index of path: its id and a
// piece of its text (whole text when exact, else a snippet). An answer
// bound to hash h must match that version; an answer with a hash no
// version has (a read that raced an append) must match some version of
// the file.
func (v *versions) checkEntry(path, h string, index int, id, text string, exact bool) (verdict, string) {
	match := func(ents []entryText) bool {
		if index < 0 || index >= len(ents) {
			return false
		}
		e := ents[index]
		if e.id != id {
			return false
		}
		if exact {
			return e.text == text
		}
		return containsInOrder(e.text, strings.Split(snippetCore(text), "…"))
	}
	if ents, ok := v.entries(path, h); ok {
		if match(ents) {
			return verdictOK, ""
		}
		got := "<out of range>"
		if index >= 0 && index < len(ents) {
			got = fmt.Sprintf("id %q text %q", ents[index].id, clip([]byte(ents[index].text), 200))
		}
		return verdictContradiction, fmt.Sprintf("%s@%s index %d: answer says id %q text %q; that version has %s",
			path, h[:12], index, id, clip([]byte(text), 200), got)
	}
	for _, other := range v.hashesOf(path) {
		if ents, _ := v.entries(path, other); match(ents) {
			return verdictUnknownHash, ""
		}
	}
	return verdictContradiction, fmt.Sprintf("%s@%s (no such version) index %d: id %q text %q matches no version of the file",
		path, h, index, id, clip([]byte(text), 200))
}

// containsInOrder reports whether the pieces occur in text in order: a
// snippet of a tool call shows its arguments cut ("…)") where the
// expanded text has them whole.
func containsInOrder(text string, pieces []string) bool {
	for _, p := range pieces {
		i := strings.Index(text, p)
		if i < 0 {
			return false
		}
		text = text[i+len(p):]
	}
	return true
}

// snippetCore strips the ellipses a snippet marks its cuts with.
func snippetCore(s string) string {
	s = strings.TrimPrefix(s, "…")
	return strings.TrimSuffix(s, "…")
}

// expandArgs are the parts of an expand call the checks need.
type expandArgs struct {
	Session            string  `json:"session"`
	ExpectedSourceHash string  `json:"expectedSourceHash"`
	Indices            []int64 `json:"indices"`
}

func parseExpandArgs(raw json.RawMessage) (expandArgs, error) {
	var a expandArgs
	err := json.Unmarshal(raw, &a)
	return a, err
}
