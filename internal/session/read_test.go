package session_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/session"
)

const hdr = `{"type":"session","version":3,"id":"s1","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}`

// types lists the record types (or the JSON of a non-object record).
func types(f *session.File) []string {
	var out []string
	for _, r := range f.Records {
		if r.Value.IsObject() {
			out = append(out, r.Type)
		} else {
			out = append(out, jsjson.Stringify(r.Value))
		}
	}
	return out
}

func TestParseLineRules(t *testing.T) {
	cases := []struct {
		name      string
		body      string
		types     []string
		malformed []string // reasons, in order
		lines     []int    // record start lines
	}{
		{"plain", hdr + "\n{\"type\":\"a\"}\n{\"type\":\"b\"}\n", []string{"a", "b"}, nil, []int{2, 3}},
		{"crlf and blanks", hdr + "\r\n\r\n  \n{\"type\":\"a\"}\r\n", []string{"a"}, nil, []int{4}},
		{"two values on a line", hdr + "\n{\"type\":\"a\"}{\"type\":\"b\"}\n{\"type\":\"c\"} junk\n", []string{"a", "c"}, nil, []int{2, 3}},
		{"junk line", hdr + "\nxx{\"type\":\"a\"}\n{\"type\":\"b\"}\n", []string{"b"}, []string{coverage.MalformedLine}, []int{3}},
		{"value spans lines", hdr + "\n{\"type\":\n\"a\"}\n{\"type\":\"b\"}\n", []string{"a", "b"}, nil, []int{2, 4}},
		{"torn line then more", hdr + "\n{\"type\":\"a\",\n{\"type\":\"b\"}\n", []string{"b"}, []string{coverage.MalformedLine}, []int{3}},
		{"incomplete value swallows the rest", hdr + "\n{\"type\":\"a\",\"content\":[\n{\"type\":\"b\"}\n", nil, []string{coverage.TornTail}, nil},
		{"torn last line", hdr + "\n{\"type\":\"a\"}\n{\"type\":\"b\",\"x\":", []string{"a"}, []string{coverage.TornTail}, []int{2}},
		{"last value without newline", hdr + "\n{\"type\":\"a\"}", []string{"a"}, nil, []int{2}},
		{"non-objects kept", hdr + "\n42\n\"s\"\ntrue\n[1]\n{}\n", []string{"42", `"s"`, "true", "[1]", ""}, nil, []int{2, 3, 4, 5, 6}},
		{"null dropped", hdr + "\nnull\n{\"type\":\"a\"}\n", []string{"a"}, []string{coverage.NullRecord}, []int{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := session.Parse("x.jsonl", []byte(c.body))
			require.NotNil(t, f.Header)
			assert.Equal(t, c.types, types(f))
			var reasons []string
			for _, m := range f.Malformed {
				reasons = append(reasons, m.Reason)
			}
			assert.Equal(t, c.malformed, reasons)
			var lines []int
			for _, r := range f.Records {
				lines = append(lines, r.Line)
			}
			assert.Equal(t, c.lines, lines)
			assert.Equal(t, len(c.malformed) == 0, f.Problems.Complete(), f.Problems.Reasons())
		})
	}
}

func TestTitleSlotAndBOM(t *testing.T) {
	slot := `{"type":"title","v":1,"title":"Fix it","source":"user","updatedAt":"2026-09-01T10:31:00.000Z","pad":"  "}`
	f := session.Parse("x.jsonl", []byte("\xEF\xBB\xBF"+slot+"\n"+`{"type":"session","version":3,"id":"s1","title":"old"}`+"\n{\"type\":\"a\"}\n"))
	require.NotNil(t, f.Header)
	assert.True(t, f.BOM)
	require.NotNil(t, f.Title)
	assert.Equal(t, "Fix it", f.Header.Title)
	assert.Equal(t, 3, f.Records[0].Line)

	// A title-shaped line that is not a valid slot is record 0: the header
	// check fails, as in OMP.
	bad := strings.Replace(slot, `"v":1`, `"v":2`, 1)
	f = session.Parse("x.jsonl", []byte(bad+"\n"+hdr+"\n"))
	assert.Nil(t, f.Header)
	assert.True(t, f.Problems.Has(coverage.InvalidHeader))
	assert.Len(t, f.Records, 2)

	// An empty slot title means no title.
	empty := strings.Replace(slot, `"title":"Fix it"`, `"title":""`, 1)
	f = session.Parse("x.jsonl", []byte(empty+"\n"+`{"type":"session","id":"s1","version":3,"title":"old"}`+"\n"))
	require.NotNil(t, f.Header)
	assert.Equal(t, "", f.Header.Title)
}

func TestHeaderRules(t *testing.T) {
	for name, c := range map[string]struct {
		body    string
		valid   bool
		empty   bool
		version float64
	}{
		"empty":           {"", false, true, 0},
		"blank":           {"  \n\n", false, true, 0},
		"garbage only":    {"xx\n", false, false, 0},
		"no id":           {`{"type":"session","version":3}` + "\n", false, false, 0},
		"numeric id":      {`{"type":"session","version":3,"id":5}` + "\n", false, false, 0},
		"not first":       {`{"type":"message"}` + "\n" + hdr + "\n", false, false, 0},
		"garbage first":   {"garbage\n" + hdr + "\n", true, false, 3},
		"v1":              {`{"type":"session","id":"s"}` + "\n", true, false, 1},
		"null version":    {`{"type":"session","id":"s","version":null}` + "\n", true, false, 1},
		"string version":  {`{"type":"session","id":"s","version":"2"}` + "\n", true, false, 2},
		"boolean version": {`{"type":"session","id":"s","version":true}` + "\n", true, false, 1},
	} {
		t.Run(name, func(t *testing.T) {
			f := session.Parse("x.jsonl", []byte(c.body))
			assert.Equal(t, c.valid, f.Header != nil)
			assert.Equal(t, c.empty, f.Empty)
			if c.valid {
				assert.Equal(t, c.version, f.Header.Version)
			} else if !c.empty {
				assert.True(t, f.Problems.Has(coverage.InvalidHeader))
			}
		})
	}
}

func TestV1Migration(t *testing.T) {
	body := `{"type":"session","id":"s"}` + "\n" +
		`{"type":"message","id":"x","parentId":"zz","message":{"role":"user","content":"a"}}` + "\n" +
		`{"type":"session","id":"s2"}` + "\n" +
		`{"type":"message","message":{"role":"hookMessage","content":"b"}}` + "\n"
	f := session.Parse("x.jsonl", []byte(body))
	require.NotNil(t, f.Header)
	assert.True(t, f.Migrated)
	assert.True(t, f.LegacyHookMessages())
	require.Len(t, f.Records, 3)
	assert.True(t, f.Records[0].ID.Synthetic())
	assert.False(t, f.Records[0].Parent.Valid(), "the first record is the root")
	id, _ := f.Records[1].ID.String()
	assert.Equal(t, "s2", id, "a later session line keeps its id")
	assert.False(t, f.Records[1].Parent.Valid())
	assert.Equal(t, f.Records[0].ID, f.Records[2].Parent, "the chain skips session lines")
}

func TestHostRefusals(t *testing.T) {
	for name, line := range map[string]string{
		"message without message": `{"type":"message","id":"a","parentId":null}`,
		"usage without cost":      `{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[],"usage":{"input":1}}}`,
		"model usage":             `{"type":"model_usage","id":"a","parentId":null,"usage":{"input":1}}`,
		"task usage":              `{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolName":"task","content":[],"details":{"usage":{}}}}`,
	} {
		f := session.Parse("x.jsonl", []byte(hdr+"\n"+line+"\n"))
		assert.True(t, f.Problems.Has(coverage.HostRefusesFile), name)
		assert.Len(t, f.Records, 1, name)
	}
	f := session.Parse("x.jsonl", []byte(hdr+"\n"+`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[],"usage":{"cost":{"total":0}}}}`+"\n"))
	assert.True(t, f.Problems.Complete())
}

func TestReadFileHashesEveryByte(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	data := []byte(hdr + "\n{\"type\":\"a\"}\n{\"torn")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	f, err := session.ReadFile(p)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	assert.Equal(t, hex.EncodeToString(sum[:]), f.SourceHash)
	assert.Equal(t, int64(len(data)), f.Size)
	h, err := session.ReadHeader(p)
	require.NoError(t, err)
	assert.Equal(t, "s1", h.ID)
	assert.Equal(t, "/p", h.Cwd)

	_, err = session.ReadFile(dir)
	assert.ErrorIs(t, err, session.ErrNotRegular)
	_, err = session.ReadFile(filepath.Join(dir, "missing.jsonl"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestReadHeaderLongHeader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	big := `{"type":"session","version":3,"id":"s1","cwd":"/p","pad":"` + strings.Repeat("x", 200<<10) + `"}`
	require.NoError(t, os.WriteFile(p, []byte("junk\n"+big+"\n"), 0o600))
	h, err := session.ReadHeader(p)
	require.NoError(t, err)
	assert.Equal(t, "s1", h.ID)
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"message"}`+"\n"), 0o600))
	_, err = session.ReadHeader(p)
	assert.ErrorIs(t, err, session.ErrNoHeader)
}

// ReadHeader finds the header ReadFile finds, on the edges where a
// prefix reader could differ: a file exactly one read long with no final
// newline, and (from 8 MiB) a U+FEFF after leading blank lines, which the
// stream loader skips.
func TestReadHeaderAgreesWithReadFile(t *testing.T) {
	exact := `{"type":"session","version":3,"id":"s1","cwd":"/p","pad":"`
	exact += strings.Repeat("x", 4096-len(exact)-2) + `"}`
	require.Len(t, exact, 4096)
	stream := "\n\xEF\xBB\xBF" + hdr + "\n"
	stream += strings.Repeat(" ", session.StreamThreshold-len(stream)) + "\n"
	for name, data := range map[string]string{"exactly 4 KiB": exact, "stream BOM": stream} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "s.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
			f, err := session.ReadFile(p)
			require.NoError(t, err)
			require.NotNil(t, f.Header, "ReadFile finds the header")
			h, err := session.ReadHeader(p)
			require.NoError(t, err)
			assert.Equal(t, f.Header.ID, h.ID)
			assert.Equal(t, f.Header.Cwd, h.Cwd)
		})
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		hdr + "\n{\"type\":\"a\",\"id\":\"1\",\"parentId\":null}\n",
		"\xEF\xBB\xBF" + `{"type":"title","v":1,"title":"t","updatedAt":"x","pad":" "}` + "\n" + hdr + "\n",
		hdr + "\n{\"a\":\n[1,\n2]}\n{\"b\":",
		hdr + "\nnull\n42\n{}{}\n",
		`{"type":"session","id":"s"}` + "\n{\"type\":\"compaction\",\"firstKeptEntryIndex\":1}\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := session.Parse("fuzz.jsonl", data)
		last := -1
		for i, r := range file.Records {
			if r.Index != i {
				t.Fatalf("record %d has index %d", i, r.Index)
			}
			if r.Value.IsNull() || !r.Value.Exists() {
				t.Fatalf("record %d is null or absent", i)
			}
			if r.Offset < 0 || r.End > int64(len(data)) || r.Offset >= r.End || int(r.Offset) <= last {
				t.Fatalf("record %d spans [%d,%d) after %d in %d bytes", i, r.Offset, r.End, last, len(data))
			}
			last = int(r.Offset)
			if r.Line < 1 {
				t.Fatalf("record %d on line %d", i, r.Line)
			}
		}
		if file.Problems.Complete() != (len(file.Malformed) == 0 && (file.Header != nil || file.Empty) && !file.Problems.Has(coverage.HostRefusesFile) && !file.Problems.Has(coverage.UnknownVersion)) {
			t.Fatalf("problems %v disagree with malformed %v", file.Problems.Reasons(), file.Malformed)
		}
		if file.Header != nil && !utf8.ValidString(file.Header.ID) && !strings.Contains(file.Header.ID, "\xED") {
			t.Fatalf("header id is not valid UTF-8: %q", file.Header.ID)
		}
	})
}

func TestReadFileRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscallMkfifo(p); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	_, err := session.ReadFile(p)
	assert.ErrorIs(t, err, session.ErrNotRegular)
	_, err = session.ReadHeader(p)
	assert.ErrorIs(t, err, session.ErrNotRegular)
}

// From 8 MiB OMP switches to its streaming loader, whose rules differ: a
// U+FEFF starting a later line is skipped and the record kept.
func TestLargeFilesUseStreamRules(t *testing.T) {
	body := hdr + "\n\xEF\xBB\xBF{\"type\":\"a\"}\n"
	small := session.Parse("x.jsonl", []byte(body))
	assert.Equal(t, []string(nil), types(small), "text loader: the line is malformed")
	pad := `{"type":"pad","x":"` + strings.Repeat("y", session.StreamThreshold) + `"}` + "\n"
	large := session.Parse("x.jsonl", []byte(body+pad))
	assert.Equal(t, []string{"a", "pad"}, types(large), "stream loader: the record is kept")
}

// A file of blank lines reserves no record per line: reading it allocates
// about what the file holds, not a hundred times that.
func TestParseBlankLinesAllocateLittle(t *testing.T) {
	data := append([]byte(`{"type":"session","version":3,"id":"b","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`+"\n"), bytes.Repeat([]byte("\n"), 4<<20)...)
	allocs := testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if f := session.Parse("blank.jsonl", data); len(f.Records) != 0 {
				b.Fatal("records in blank lines")
			}
		}
	}).AllocedBytesPerOp()
	require.Less(t, allocs, int64(4*len(data)), "bytes allocated reading %d bytes", len(data))
}
