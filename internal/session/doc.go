// Package session reads an OMP session file exactly as the OMP host's
// text loader does.
//
// # Reading
//
// [ReadFile] and [Parse] follow OMP 18's lenient JSONL loader, checked
// against the host itself on every fixture in testdata/omp (see its
// README.md for how the host's answers were recorded):
//
//   - a UTF-8 BOM is stripped; CRLF and blank lines are fine;
//   - a valid 256-byte title slot on the first line is taken out and its
//     title folded into the header (an empty title means none); a
//     title-shaped line that fails the slot checks is an ordinary record;
//   - JSON values are parsed one after another and may span lines; the
//     first value starting on a line is kept and the rest of the line
//     ignored; a value with a syntax error drops the line it started on and
//     parsing resumes on the next line; a value still incomplete at the end
//     drops everything from its start (a torn tail);
//   - numbers, strings, arrays and {} are records like objects; a null line
//     makes OMP throw, so memidx drops it with the reason null_record;
//   - the first value is the header when it is an object with type
//     "session" and a string id; otherwise OMP refuses the file and memidx
//     reports invalid_header and keeps every value as a record;
//   - versions compare as JavaScript numbers (missing and null are 1): v1
//     records become one chain in file order with synthetic ids (OMP's are
//     random), v1 and v2 hookMessage roles read as custom;
//   - records that make OMP's loader throw (a message record without a
//     message, a usage object without cost) are kept and flagged
//     host_refuses_file.
//
// Every dropped line is a Malformed entry with a reason (malformed_line,
// torn_tail, null_record), because its text is not indexed. SourceHash is
// the SHA-256 of every byte. Files are opened read-only and never written.
// Strings in records alias the file's bytes (see package jsjson).
//
// Files are opened confined to the session roots (package confine);
// listing them is package listing, resolving a scope to them package
// scopes.
package session
