package session_test

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"

	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/session"
)

// Wherever ReadSlim does not hand a file to the full reader, it agrees
// with Parse on every record, read whole or one byte at a time, under both
// loaders' rules.
func FuzzSlimMatchesParse(f *testing.F) {
	for _, s := range []string{
		hdr + "\n{\"type\":\"message\",\"id\":\"1\",\"parentId\":null}\n\n  {\"type\":\"a\",\"id\":2,\"parentId\":\"1\"} x\n",
		`{"type":"title","v":1,"title":"t","updatedAt":"x","pad":" "}` + "\n" + hdr + "\n{\"id\":\"\\u0031\"}",
		hdr + "\r\n{\"a\":\"\xc3\xa9\\n\"}\r\n\t\r\n7\n\"s\"\n",
		`{"type":"session","id":"s","version":1}` + "\n{\"type\":\"session\",\"id\":\"t\"}\n{\"id\":true,\"parentId\":false}\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, stream bool) {
		s, err := session.ReadSlimWith(iotest.HalfReader(bytes.NewReader(data)), int64(len(data)), "f", func(rec int, typ string, v jsjson.Value) uint8 {
			return uint8(len(jsjson.Stringify(v)))
		}, session.Options{Stream: stream})
		if errors.Is(err, session.ErrNeedsFullRead) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		full := session.ParseWith("f", data, s.SourceHash, session.Options{Stream: stream})
		if full.Header == nil || len(full.Malformed) != 0 || len(full.Records) != len(s.Records) {
			t.Fatalf("slim read %d records of a file Parse reads as %d records, %d dropped, header %v",
				len(s.Records), len(full.Records), len(full.Malformed), full.Header != nil)
		}
		if full.Header.ID != s.Header.ID || full.Migrated != s.Migrated || (full.Title == nil) != (s.Title == nil) {
			t.Fatal("header, title or migration differ")
		}
		for i := range full.Records {
			a, b := &full.Records[i], &s.Records[i]
			if a.Offset != b.Offset || a.End != b.End || a.Line != int(b.Line) || a.ID != b.ID || a.Parent != b.Parent ||
				a.HasParentKey != b.HasParentKey() || uint8(len(jsjson.Stringify(a.Value))) != b.Tag {
				t.Fatalf("record %d: %+v vs %+v", i, *a, *b)
			}
		}
	})
}
