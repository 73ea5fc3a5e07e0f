package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/memidx/memidx/internal/normalize"
)

// TestEnumsAreWhatValidationAccepts: every listed value passes the
// request's validation, and the role list is sorted and without repeats.
func TestEnumsAreWhatValidationAccepts(t *testing.T) {
	if !slices.IsSorted(roles) || len(slices.Compact(slices.Clone(roles))) != len(roles) {
		t.Fatalf("roles must be sorted and unique: %v", roles)
	}
	for _, r := range Roles() {
		if !validRole(r) {
			t.Errorf("role %q listed but refused", r)
		}
	}
	for _, o := range Outcomes() {
		if !normalize.ValidOutcome(o) {
			t.Errorf("outcome %q listed but refused", o)
		}
	}
	e := &Engine{}
	for _, m := range QueryModes() {
		q := "x"
		if _, eo := e.prepareRecall(recallArgs{QueryMode: m, Query: &q}); eo != nil && strings.HasPrefix(eo.Message, "queryMode") {
			t.Errorf("mode %q listed but refused: %s", m, eo.Message)
		}
	}
}
