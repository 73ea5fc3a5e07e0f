// Package jsjson reads and writes JSON exactly as a JavaScript host does.
//
// OMP writes sessions with JSON.stringify and reads them with Bun's JSON
// parser, and the reference implementation (docs/REFERENCE.md) hashes
// JSON.stringify output and counts response sizes in UTF-16 code units.
// Go's encoding/json differs from all of that: it escapes HTML characters
// and U+2028/U+2029, replaces lone surrogates, orders map keys, formats
// numbers differently and keeps the first of two duplicate keys' positions
// with the last value only for structs. This package is the one place
// where those JavaScript rules live:
//
//   - [Parse] and [ParseValue] decode one JSON value like JSON.parse: a
//     duplicate key keeps its first position and takes the last value, keys
//     that are array indices come first in ascending order (as JavaScript
//     objects order them), lone surrogate escapes survive as WTF-8.
//   - [Stringify] and [AppendString] encode like JSON.stringify: no HTML
//     escaping, JavaScript number formatting, lone surrogates as \udXXX.
//   - [UTF16Len] counts a string the way String.prototype.length does.
//
// Parsing is a single pass over the input. Strings without escapes are not
// copied: they alias the input, which must not be modified afterwards (the
// session reader reads a file into a buffer it never writes). Callers that
// keep a small string for long should strings.Clone it.
//
// The package is a leaf: it imports nothing inside the module.
package jsjson
