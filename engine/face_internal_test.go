package engine

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/index"
)

// fill sets every settable field of v to a value of its own (n counts),
// so that a field a conversion drops or swaps shows.
func fill(v reflect.Value, n *int) {
	*n++
	if v.Type() == reflect.TypeFor[index.Stamp]() { // a time, held as its bits
		t := float64(*n) + 0.25
		v.Set(reflect.ValueOf(index.StampOf(&t)))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n)
		fill(v.Index(1), n)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	}
}

func filled[T any]() T {
	var v T
	n := 0
	fill(reflect.ValueOf(&v).Elem(), &n)
	return v
}

func jsonEq(t *testing.T, want, got any) {
	t.Helper()
	wb, err := json.Marshal(want)
	require.NoError(t, err)
	gb, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Equal(t, string(wb), string(gb))
}

// Engine's Config is the index's, field for field: a key the index adds
// must be added here too, and the conversions lose nothing.
func TestConfigMirrorsIndex(t *testing.T) {
	it, et := reflect.TypeOf(index.Config{}), reflect.TypeOf(Config{})
	require.Equal(t, it.NumField(), et.NumField())
	for i := 0; i < it.NumField(); i++ {
		assert.Equal(t, it.Field(i).Name, et.Field(i).Name)
		assert.Equal(t, it.Field(i).Tag.Get("json"), et.Field(i).Tag.Get("json"))
	}
	c := filled[index.Config]()
	assert.Equal(t, c, indexConfig(configOf(c)))
	jsonEq(t, c, configOf(c))
	assert.Equal(t, configOf(index.DefaultConfig()), DefaultConfig())
}

// The results that showed the lower layers' types write the same bytes
// with engine's own: every field set, and the nil and empty cases.
func TestResultTypesKeepTheWire(t *testing.T) {
	// The shapes engine wrote before it had its own types.
	type oldCoverage struct {
		index.Coverage
		Error *ErrorObject `json:"error,omitempty"`
	}
	type oldRebuild struct {
		Scope    string `json:"scope"`
		Branches string `json:"branches"`
		*index.Report
	}
	cov := filled[index.Coverage]()
	rec := filled[index.Record]()
	rec.SetReasons([]string{"sx", "sy"})
	bare := index.Record{}
	dig := filled[coldvocab.Digest]()
	rep := filled[index.Report]()
	rep.States = []index.State{index.FailedState("/a", "unreadable", "d"), {Path: "/b", Record: &rec}}
	for _, tc := range []struct {
		name      string
		want, got any
	}{
		{"coverage", oldCoverage{Coverage: cov, Error: codedError(cov.Error)}, indexCoverage(cov)},
		{"coverage without error", oldCoverage{Coverage: index.Coverage{}}, indexCoverage(index.Coverage{})},
		{"record", &rec, recordOf(&rec)},
		{"record without reasons", &bare, recordOf(&bare)},
		{"digest", &dig, digestOf(&dig)},
		{"rebuild", oldRebuild{"global", "active", &rep}, rebuildReportOf("global", "active", &rep)},
	} {
		t.Run(tc.name, func(t *testing.T) { jsonEq(t, tc.want, tc.got) })
	}
	got := rebuildReportOf("global", "active", &rep)
	assert.Equal(t, []UnindexedSession{{Path: "/a", Reason: "unreadable", Detail: "d"}}, got.Unindexed)
}
