// Package sessiontext writes small OMP session files for tests: a v3
// header and a linear chain of user messages, one per word list entry.
package sessiontext
