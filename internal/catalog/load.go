package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/memidx/memidx/internal/jsjson"
)

// DefaultMaxFileBytes is the size bound of a catalog file Load reads: a
// catalog of some thousands of actions with their schemas is a few MiB.
const DefaultMaxFileBytes = 16 << 20

// ErrNotRegular is returned for a catalog path that is not a regular file
// (a FIFO, a device such as /dev/zero, a directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a catalog file over its size bound.
var ErrTooLarge = errors.New("over the size bound of a catalog file")

// Load reads a catalog file (see the package documentation for its format)
// of at most DefaultMaxFileBytes and returns the catalog it describes.
func Load(path string) (*Catalog, error) { return LoadLimit(path, DefaultMaxFileBytes) }

// LoadLimit is Load with a size bound of max bytes. Only a regular file
// is read, so that a FIFO or a device in its place fails at once instead of
// blocking or filling memory.
func LoadLimit(path string, max int64) (*Catalog, error) {
	data, err := readBounded(path, max)
	if err != nil {
		return nil, fmt.Errorf("catalog: load: %w", err)
	}
	c, err := Decode(data)
	if ie, ok := err.(*invalidError); ok {
		ie.path = path
	}
	return c, err
}

// readBounded reads the regular file at path, of at most max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	// Non-blocking: opening a FIFO must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fileKind(st.Mode()))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes: %w (%d bytes)", path, st.Size(), ErrTooLarge, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // it grew while read
		return nil, fmt.Errorf("%s is over %d bytes: %w (%d bytes)", path, max, ErrTooLarge, max)
	}
	return data, nil
}

// fileKind names what a file that is not regular is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// Decode parses the catalog file format from data and returns the catalog
// it describes. A malformed file, or one that breaks a validation rule, is
// an error wrapping [ErrInvalid] that names the offending member.
func Decode(data []byte) (*Catalog, error) {
	providers, err := DecodeProviders(data)
	if err != nil {
		return nil, err
	}
	return New(providers...)
}

// DecodeProviders parses the catalog file format from data and returns its
// providers in file order, checked for JSON types, unknown keys and missing
// names and risks but not yet validated otherwise (New does that).
func DecodeProviders(data []byte) ([]Provider, error) {
	root, err := jsjson.Parse(data)
	if err != nil {
		return nil, invalidf("%v", err)
	}
	d := decoder{}
	if err := d.object(root, "catalog", "providers"); err != nil {
		return nil, err
	}
	list := root.Get("providers")
	if !list.IsArray() {
		return nil, invalidf("providers: must be an array")
	}
	out := make([]Provider, 0, list.Len())
	for i, item := range list.Items() {
		p, err := d.provider(item.Value, "providers["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

type decoder struct{}

func (d decoder) provider(v jsjson.Value, at string) (Provider, error) {
	var p Provider
	if err := d.object(v, at, "name", "description", "actions"); err != nil {
		return p, err
	}
	var err error
	if p.Name, err = d.str(v, at, "name"); err != nil {
		return p, err
	}
	if p.Name == "" {
		return p, invalidf("%s: missing name", at)
	}
	if p.Description, err = d.str(v, at, "description"); err != nil {
		return p, err
	}
	actions := v.Get("actions")
	if !actions.Exists() {
		return p, nil
	}
	if !actions.IsArray() {
		return p, invalidf("%s.actions: must be an array", at)
	}
	for i, item := range actions.Items() {
		a, err := d.action(item.Value, at+".actions["+strconv.Itoa(i)+"]")
		if err != nil {
			return p, err
		}
		p.Actions = append(p.Actions, a)
	}
	return p, nil
}

func (d decoder) action(v jsjson.Value, at string) (Action, error) {
	var a Action
	if err := d.object(v, at, "name", "description", "inputSchema", "outputSchema", "risk", "namespace", "effect", "quarantined"); err != nil {
		return a, err
	}
	for _, f := range [...]struct {
		key string
		dst *string
	}{
		{"name", &a.Name}, {"description", &a.Description}, {"risk", &a.Risk},
		{"namespace", &a.Namespace}, {"effect", &a.Effect},
	} {
		s, err := d.str(v, at, f.key)
		if err != nil {
			return a, err
		}
		*f.dst = s
	}
	if a.Name == "" {
		return a, invalidf("%s: missing name", at)
	}
	if a.Risk == "" {
		return a, invalidf("%s: missing risk", at)
	}
	if q := v.Get("quarantined"); q.Exists() {
		b, ok := q.Bool()
		if !ok {
			return a, invalidf("%s.quarantined: must be true or false", at)
		}
		a.Quarantined = b
	}
	for _, f := range [...]struct {
		key string
		dst *[]byte
	}{
		{"inputSchema", (*[]byte)(&a.InputSchema)}, {"outputSchema", (*[]byte)(&a.OutputSchema)},
	} {
		raw, _, err := compactSchema(v.Get(f.key))
		if err != nil {
			return a, invalidf("%s.%s: %v", at, f.key, err)
		}
		*f.dst = raw
	}
	return a, nil
}

// object checks that v is an object whose keys are among allowed or start
// with "$".
func (decoder) object(v jsjson.Value, at string, allowed ...string) error {
	if !v.IsObject() {
		return invalidf("%s: must be an object", at)
	}
	for _, m := range v.Members() {
		if strings.HasPrefix(m.Key, "$") {
			continue
		}
		known := false
		for _, k := range allowed {
			if m.Key == k {
				known = true
				break
			}
		}
		if !known {
			return invalidf("%s: unknown key %q (allowed: %s)", at, m.Key, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// str returns the string member key of v, "" when it is absent.
func (decoder) str(v jsjson.Value, at, key string) (string, error) {
	m := v.Get(key)
	if !m.Exists() {
		return "", nil
	}
	s, ok := m.Str()
	if !ok {
		return "", invalidf("%s.%s: must be a string", at, key)
	}
	// Parsed strings may alias the input, which the caller owns.
	return strings.Clone(s), nil
}

// Encode returns the catalog in the file format, indented with two spaces:
// every provider by name and its actions by ref, quarantined ones included
// (with "quarantined": true), empty optional members omitted. [Decode]
// reads it back to an equal catalog.
func (c *Catalog) Encode() []byte {
	providers := c.Providers()
	var b []byte
	b = append(b, `{"providers":[`...)
	for i, p := range providers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsjson.AppendString(b, p.Name)
		if p.Description != "" {
			b = append(b, `,"description":`...)
			b = jsjson.AppendString(b, p.Description)
		}
		b = append(b, `,"actions":[`...)
		for j, a := range p.Actions {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsjson.AppendString(b, a.Name)
			for _, f := range [...]struct{ key, v string }{
				{"description", a.Description}, {"risk", a.Risk}, {"namespace", a.Namespace}, {"effect", a.Effect},
			} {
				if f.v != "" {
					b = append(b, `,"`+f.key+`":`...)
					b = jsjson.AppendString(b, f.v)
				}
			}
			for _, f := range [...]struct {
				key string
				v   []byte
			}{{"inputSchema", a.InputSchema}, {"outputSchema", a.OutputSchema}} {
				if len(f.v) > 0 {
					b = append(b, `,"`+f.key+`":`...)
					b = append(b, f.v...)
				}
			}
			if a.Quarantined {
				b = append(b, `,"quarantined":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	b = append(b, "]}"...)
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		panic("catalog: encode: " + err.Error()) // schemas were validated
	}
	out.WriteByte('\n')
	return out.Bytes()
}
