package mcpopts

import "time"

// Bounds and defaults of Options.
const (
	// DefaultMaxResultBytes bounds a tool result, text and structured
	// content together: well inside the TypeScript client's 10 MiB line
	// buffer, and a page a host can hand a model.
	DefaultMaxResultBytes = 1 << 20
	// MinMaxResultBytes is the least bound a host may set: room for a
	// recall page (30,000 characters) and its text twice over.
	MinMaxResultBytes = 128 << 10
	// DefaultMaxMessageBytes bounds one inbound message, as serve's.
	DefaultMaxMessageBytes = 16 << 20
	// Progress of a call that waits: a first notification after
	// DefaultProgressAfter, then one every DefaultProgressEvery.
	DefaultProgressAfter = 250 * time.Millisecond
	DefaultProgressEvery = time.Second
	// resultReserve is the part of the result bound kept for what is not
	// a walk page's entries: the page's other fields and its text's
	// headers.
	resultReserve = 64 << 10
)

// Options configure an MCP server.
type Options struct {
	// Version is the server's version in the initialize answer.
	Version string
	// MaxResultBytes bounds a result, text and structured content
	// together; 0 is DefaultMaxResultBytes, at least MinMaxResultBytes.
	MaxResultBytes int
	// MaxMessageBytes bounds one inbound message; 0 is
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
	// ProgressAfter and ProgressEvery time the progress notifications of
	// a call that waits; 0 is the default (250 ms, 1 s), negative sends
	// none.
	ProgressAfter, ProgressEvery time.Duration
}

// Filled returns o with every zero field at its default and the result
// bound at least MinMaxResultBytes.
func (o Options) Filled() Options {
	if o.MaxResultBytes == 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	o.MaxResultBytes = max(o.MaxResultBytes, MinMaxResultBytes)
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.ProgressAfter == 0 {
		o.ProgressAfter = DefaultProgressAfter
	}
	if o.ProgressEvery == 0 {
		o.ProgressEvery = DefaultProgressEvery
	}
	if o.Version == "" {
		o.Version = "devel"
	}
	return o
}

// WalkPageBytes is the bound of a walk page's entries that keeps its
// result, whose text repeats the entries' text, within maxResultBytes; the
// engine serving MCP is opened with it (engine.Options.WalkPageBytes), so
// that memory_call's walks are bounded alike.
func WalkPageBytes(maxResultBytes int) int {
	o := Options{MaxResultBytes: maxResultBytes}.Filled()
	return (o.MaxResultBytes - resultReserve) / 2
}
