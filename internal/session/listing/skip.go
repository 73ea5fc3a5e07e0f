package listing

import (
	"errors"
	"fmt"
)

// Reasons a listing may leave a file out on purpose. Each makes the
// answer non-authoritative.
const (
	// ReasonOutsideRoots: a symlinked session file or directory resolves
	// outside the allowed session roots; it is not followed.
	ReasonOutsideRoots = "symlink_outside_session_roots"
	// ReasonMaxListingDepth: a directory nested deeper than MaxNestedDepth
	// inside a session's artifacts directory was not listed.
	ReasonMaxListingDepth = "max_listing_depth"
	// ReasonInvalidFileName: a file name that is not valid UTF-8 cannot be
	// carried in a follow token, so the file is left out.
	ReasonInvalidFileName = "invalid_file_name"
)

// SkipError names a file or directory a listing left out on purpose, with
// the coverage reason that says so.
type SkipError struct {
	Reason string
	Path   string
}

func (e *SkipError) Error() string { return fmt.Sprintf("session: %s skipped (%s)", e.Path, e.Reason) }

// ListReasons splits a listing's error into the reasons of the files it
// skipped on purpose and whether anything else went wrong (a directory that
// could not be read: source_unavailable).
func ListReasons(err error) (reasons []string, unavailable bool) {
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var se *SkipError
		if errors.As(err, &se) {
			reasons = append(reasons, se.Reason)
			return
		}
		unavailable = true
	}
	walk(err)
	return reasons, unavailable
}
