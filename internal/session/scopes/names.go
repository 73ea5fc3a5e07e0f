package scopes

import "github.com/memidx/memidx/internal/session/listing"

// A resolution answers the refs of package listing, listed with its
// options; scope resolution speaks of them by these names.
type (
	Ref         = listing.Ref
	ListOptions = listing.ListOptions
)
