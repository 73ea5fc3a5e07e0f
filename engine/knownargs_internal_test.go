package engine

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A request's argument names are one set a type, made once: each
// request looks its keys up in it, and strict decoding still names an
// unknown one.
func TestKnownArgsAreMadeOnceAType(t *testing.T) {
	for _, v := range []any{&recallArgs{}, &expandArgs{}} {
		a, b := knownArgs(v), knownArgs(v)
		assert.Equal(t, reflect.ValueOf(a).Pointer(), reflect.ValueOf(b).Pointer(), "%T: one set", v)
		names := tagNames(v)
		assert.Len(t, a, len(names))
		for _, n := range names {
			assert.True(t, a[n], "%T: %s", v, n)
		}
		assert.Zero(t, testing.AllocsPerRun(10, func() { knownArgs(v) }), "%T", v)
	}
	var a recallArgs
	eo := decodeStrict([]byte(`{"query":"x","pagesize":3}`), &a, recallAliases)
	if assert.NotNil(t, eo) {
		assert.Contains(t, eo.Message, `unknown argument "pagesize"`)
	}
	assert.Nil(t, decodeStrict([]byte(`{"query":"x","pageSize":3}`), &a, recallAliases))
}
