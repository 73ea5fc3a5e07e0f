// Package sessiontest builds session trees for the tests of the session
// packages: temporary roots with symlinks resolved, small v3 session files
// with a given header id, cwd and mtime, and plain files.
package sessiontest
