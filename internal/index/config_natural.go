package index

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
)

// NaturalConfig is memidx's own key "natural" of the memory section: how
// a natural-language query (queryMode "natural") scores an entry. It sums
// two BM25 fields, the canonical terms of the query less stop words and
// their English stems, each with its weight and its length
// normalisation b (0: none, 1: full). Both fields are normalised by the
// entry's canonical length.
type NaturalConfig struct {
	CanonicalWeight float64 `json:"canonicalWeight"`
	StemWeight      float64 `json:"stemWeight"`
	CanonicalB      float64 `json:"canonicalB"`
	StemB           float64 `json:"stemB"`
}

// DefaultNaturalConfig returns the natural key's defaults. Questions
// find their answer in long entries more often than literal queries do:
// b 0.3 (less length normalisation than BM25's usual 0.75) ranks the
// labelled evidence of testdata/eval and of the OMP set best (see
// docs/BENCHMARKS.md); the two fields weigh alike.
func DefaultNaturalConfig() NaturalConfig {
	return NaturalConfig{CanonicalWeight: 1, StemWeight: 1, CanonicalB: 0.3, StemB: 0.3}
}

// DefaultWeakMatchBelow is the default of weakMatchBelow: a page whose
// best hit matches less than half of the query's idf mass holds no
// evidence a host should act on. Fixed before any measurement of it.
const DefaultWeakMatchBelow = 0.5

// floatBounds are the ranges of the natural key's numbers and of
// weakMatchBelow; a number outside is clamped, anything else keeps the
// default.
var floatBounds = map[string][2]float64{
	"canonicalWeight": {0, 10},
	"stemWeight":      {0, 10},
	"canonicalB":      {0, 1},
	"stemB":           {0, 1},
	"weakMatchBelow":  {0, 1},
}

// applyFloat sets *dst from v within key's bounds, noting what it did not
// take as is.
func applyFloat(dst *float64, key string, v json.RawMessage, note func(k, format string, a ...any)) {
	bd := floatBounds[key]
	var fp *float64
	if err := json.Unmarshal(v, &fp); err != nil || fp == nil {
		note(key, "not a number; default %v kept", *dst)
		return
	}
	f := *fp
	if f < bd[0] || f > bd[1] {
		c := math.Min(math.Max(f, bd[0]), bd[1])
		note(key, "%v is outside %v..%v; clamped to %v", f, bd[0], bd[1], c)
		f = c
	}
	*dst = f
}

// applyNatural sets cfg.Natural from the natural key's object.
func applyNatural(cfg *Config, v json.RawMessage, note func(k, format string, a ...any)) {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(v))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		note("natural", "not an object; defaults kept")
		return
	}
	fields := map[string]*float64{
		"canonicalWeight": &cfg.Natural.CanonicalWeight,
		"stemWeight":      &cfg.Natural.StemWeight,
		"canonicalB":      &cfg.Natural.CanonicalB,
		"stemB":           &cfg.Natural.StemB,
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dst, ok := fields[k]
		if !ok {
			note("natural."+k, "unknown key; ignored")
			continue
		}
		applyFloat(dst, k, obj[k], func(_, format string, a ...any) { note("natural."+k, format, a...) })
	}
}
