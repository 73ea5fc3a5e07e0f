package index

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A state keeps its rare parts (why it has no record, the error behind
// that, what was built in memory) apart: a server keeps a state per
// session.
func TestStateKeepsItsRarePartsApart(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(State{}), uintptr(40))
	var plain State
	assert.Empty(t, plain.Reason())
	assert.Empty(t, plain.Detail())
	assert.Nil(t, plain.Built())

	failed := FailedState("/s.jsonl", IndexUnwritable, "no space left on device")
	assert.Equal(t, "/s.jsonl", failed.Path)
	assert.Equal(t, IndexUnwritable, failed.Reason())
	assert.Equal(t, "no space left on device", failed.Detail())
	assert.Nil(t, failed.Record)
	busy := FailedState("/s.jsonl", IndexBusy, "")
	assert.Equal(t, IndexBusy, busy.Reason())
	assert.Empty(t, busy.Detail())

	b := &Built{Record: &Record{Path: "/s.jsonl"}}
	copied := failed
	failed.keepBuilt(b)
	assert.Same(t, b, failed.Built())
	assert.Equal(t, "no space left on device", failed.Detail(), "the detail stays")
	assert.Nil(t, copied.Built(), "a copy made before shares no later note")

	// A reason set or cleared on one copy is that copy's alone.
	again := failed
	again.setReason("")
	assert.Empty(t, again.Reason())
	assert.Same(t, b, again.Built(), "clearing the reason keeps the rest")
	assert.Equal(t, IndexUnwritable, failed.Reason(), "the other copy keeps its reason")
	busy.setReason("")
	assert.Nil(t, busy.note, "nothing left to note: no note")

	// A reason alone is one note for every state that has it.
	a, c := FailedState("/a.jsonl", IndexBusy, ""), FailedState("/c.jsonl", IndexBusy, "")
	assert.Same(t, a.note, c.note)
	allocs := testing.AllocsPerRun(20, func() { a.setReason(IndexUnwritable) })
	assert.Zero(t, allocs)
	assert.Equal(t, IndexUnwritable, a.Reason())
	assert.Equal(t, IndexBusy, c.Reason(), "the shared note is not changed")
}
