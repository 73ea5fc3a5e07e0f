package index

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A state keeps its rare parts (the error behind its reason, what was
// built in memory) apart: a server keeps a state per session.
func TestStateKeepsItsRarePartsApart(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(State{}), uintptr(56))
	var plain State
	assert.Empty(t, plain.Detail())
	assert.Nil(t, plain.Built())

	failed := FailedState("/s.jsonl", IndexUnwritable, "no space left on device")
	assert.Equal(t, "/s.jsonl", failed.Path)
	assert.Equal(t, IndexUnwritable, failed.Reason)
	assert.Equal(t, "no space left on device", failed.Detail())
	assert.Nil(t, failed.Record)
	assert.Nil(t, FailedState("/s.jsonl", IndexBusy, "").note, "no detail, no note")

	b := &Built{Record: &Record{Path: "/s.jsonl"}}
	copied := failed
	failed.keepBuilt(b)
	assert.Same(t, b, failed.Built())
	assert.Equal(t, "no space left on device", failed.Detail(), "the detail stays")
	assert.Nil(t, copied.Built(), "a copy made before shares no later note")
}
