package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"

	"github.com/memidx/memidx/internal/jsjson"
)

// ErrNeedsFullRead is ReadSlim's answer for a file outside its fast path:
// the caller reads it with ReadFile/Parse, which handles every case.
var ErrNeedsFullRead = errors.New("session: the file needs the full reader")

// Slim is a session file read to locate its records without keeping them:
// each record keeps its byte span, line and tree ids, and its value is
// parsed again from the file when it is needed. It holds what Parse would
// give for the same bytes (records, ids after migration, header, title),
// without the values and without the file-level problems.
type Slim struct {
	Path string
	Size int64
	// SourceHash is the SHA-256 hex of every byte read.
	SourceHash string
	Title      *TitleSlot
	Header     *Header
	Records    []SlimRecord
	Migrated   bool
	// Stream is true when OMP's streaming loader rules applied.
	Stream bool

	size int64 // the size the caller announced
}

// SlimRecord is one record of a Slim: Record without its value.
type SlimRecord struct {
	Offset, End int64
	Line        int32
	// Tag is what ReadSlim's tag function returned for the record.
	Tag   uint8
	flags uint8
	// ID and Parent are as in Record, after migration.
	ID, Parent ID
}

const (
	slimHasParentKey = 1 << iota
	slimSessionType
)

// HasParentKey is Record.HasParentKey.
func (r *SlimRecord) HasParentKey() bool { return r.flags&slimHasParentKey != 0 }

// TagFunc looks at one record while ReadSlim has it parsed; rec is its
// index and typ its string "type". v and typ alias memory that is reused
// for the next record: anything kept must be copied.
type TagFunc func(rec int, typ string, v jsjson.Value) uint8

// LegacyHookMessages is File.LegacyHookMessages.
func (s *Slim) LegacyHookMessages() bool { return s.Header != nil && s.Header.Version < 3 }

// ReadSlim reads a session file of size bytes from r, hashing every byte and
// keeping per record only what locating it needs, so that memory grows
// with the number of records and the longest line, not with the file.
//
// It covers the files OMP writes: a header, then one value per line, with
// blank lines allowed. Anything else (a byte order mark, a malformed or
// torn line, a value spanning lines, a null record, an object or array as
// an id, a file without a valid header, or a size other than size) returns
// ErrNeedsFullRead, and Parse decides, so that both readers always agree.
func ReadSlim(r io.Reader, size int64, path string, tag TagFunc) (*Slim, error) {
	return ReadSlimWith(r, size, path, tag, Options{Stream: size >= StreamThreshold})
}

// ReadSlimWith is ReadSlim with the given loader rules, as ParseWith.
func ReadSlimWith(r io.Reader, size int64, path string, tag TagFunc, opt Options) (*Slim, error) {
	s := &Slim{Path: path, Stream: opt.Stream, size: size}
	h := sha256.New()
	buf := make([]byte, 0, min(max(size+1, 512), 1<<20))
	var (
		off    int64 // file offset of buf[0]
		total  int64
		lineNo = 1
		eof    bool
		ps     jsjson.Parser
	)
	for {
		start := 0
		for {
			nl := bytes.IndexByte(buf[start:], '\n')
			var line []byte
			switch {
			case nl >= 0:
				line = buf[start : start+nl+1]
			case eof && start < len(buf):
				line = buf[start:]
			default:
				nl = -2
			}
			if nl == -2 {
				break
			}
			if err := s.line(line, off+int64(start), lineNo, &ps, tag); err != nil {
				return nil, err
			}
			if nl < 0 {
				start = len(buf)
				break
			}
			start += nl + 1
			lineNo++
		}
		if eof {
			break
		}
		n := copy(buf, buf[start:])
		buf = buf[:n]
		off += int64(start)
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		h.Write(buf[len(buf) : len(buf)+m])
		buf = buf[:len(buf)+m]
		total += int64(m)
		if err == io.EOF {
			eof = true
		} else if err != nil {
			return nil, err
		}
	}
	if total != size || s.Header == nil {
		return nil, ErrNeedsFullRead
	}
	s.Size = total
	s.SourceHash = hex.EncodeToString(h.Sum(nil))
	s.migrate()
	return s, nil
}

// line reads one physical line (with its newline, if any) at file offset
// off, as parseBody would.
func (s *Slim) line(line []byte, off int64, lineNo int, ps *jsjson.Parser, tag TagFunc) error {
	if lineNo == 1 {
		if bytes.HasPrefix(line, bom) {
			return ErrNeedsFullRead
		}
		if line[len(line)-1] == '\n' {
			if slot, _, ok := titleSlot(line, 0, s.Stream); ok {
				s.Title = slot
				return nil
			}
		}
	}
	body := line
	if body[len(body)-1] == '\n' {
		body = body[:len(body)-1]
	}
	p := 0
	for p < len(body) && (body[p] == ' ' || body[p] == '\t' || body[p] == '\r') {
		p++
	}
	if p == len(body) {
		return nil // blank
	}
	if s.Header == nil {
		cl := bytes.Clone(body)
		v, _, err := jsjson.ParseValue(cl, p)
		if err != nil {
			return ErrNeedsFullRead
		}
		hd, ok := header(v, s.Title)
		if !ok {
			return ErrNeedsFullRead
		}
		s.Header = hd
		return nil
	}
	ps.Reset()
	v, end, err := ps.ParseValue(body, p)
	if err != nil || v.IsNull() {
		return ErrNeedsFullRead
	}
	i := len(s.Records)
	idv := v.Get("id")
	if k := idv.Kind(); k == jsjson.Array || k == jsjson.Object {
		return ErrNeedsFullRead
	}
	typ := v.Get("type").StrOr("")
	rec := SlimRecord{Offset: off + int64(p), End: off + int64(end), Line: int32(lineNo), ID: idOf(idv, i)}
	pv := v.Get("parentId")
	if pv.Exists() {
		rec.flags |= slimHasParentKey
	}
	// A chain's parent is usually the previous record: share its id.
	if pstr, ok := pv.Str(); ok && i > 0 {
		if prev := s.Records[i-1].ID.key; len(prev) == len(pstr)+1 && prev[0] == 's' && prev[1:] == pstr {
			rec.Parent = s.Records[i-1].ID
		}
	}
	if !rec.Parent.Present() {
		rec.Parent = idOf(pv, -1-i)
	}
	if typ == "session" {
		rec.flags |= slimSessionType
	}
	if tag != nil {
		rec.Tag = tag(i, typ, v)
	}
	if len(s.Records) == cap(s.Records) {
		s.grow(off)
	}
	s.Records = append(s.Records, rec)
	return nil
}

// grow makes room for more records, guessing how many the file holds
// from the bytes per record so far (off is where the current line starts),
// so that a long session's record list is not copied over and over.
func (s *Slim) grow(off int64) {
	n := len(s.Records)
	want := n + n/4 + 64
	if n >= 64 && off > 0 && s.size > off {
		// Records so far × (file size / bytes so far), and a little more.
		est := int(float64(n) * float64(s.size) / float64(off) * 1.05)
		want = max(want, min(est, n*8))
	}
	nr := make([]SlimRecord, n, want)
	copy(nr, s.Records)
	s.Records = nr
}

// migrate is File.migrate on the slim records.
func (s *Slim) migrate() {
	version := s.Header.Version
	if version < 2 {
		prev := ID{}
		for i := range s.Records {
			r := &s.Records[i]
			if r.flags&slimSessionType != 0 {
				continue
			}
			r.ID = syntheticID(i)
			r.Parent = prev
			r.flags |= slimHasParentKey
			prev = r.ID
		}
	}
	if version < 3 {
		s.Migrated = true
	}
}

// IDValue is Record.IDValue for a slim record, rebuilt from its id: null
// when it has none or memidx invented it. Slim files never hold an object
// or array id.
func (r *SlimRecord) IDValue() jsjson.Value {
	if r.ID.Synthetic() {
		return jsjson.MakeNull()
	}
	return r.ID.JSON()
}

// JSON returns the id as the JSON value it was read from, for ids that are
// not objects or arrays: a string, number or boolean; null for missing and
// null ids (which have the same ID).
func (id ID) JSON() jsjson.Value {
	if id.key == "" {
		return jsjson.MakeNull()
	}
	switch id.key[0] {
	case 's':
		return jsjson.MakeString(id.key[1:])
	case 'n':
		return jsjson.MakeNumber(parseFormatted(id.key[1:]))
	case 't':
		return jsjson.MakeBool(true)
	case 'f':
		return jsjson.MakeBool(false)
	}
	return jsjson.MakeNull()
}

// parseFormatted reads back a number FormatNumber wrote (Infinity and NaN
// included).
func parseFormatted(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
