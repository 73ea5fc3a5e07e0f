package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/jsjson"
)

// actionHash is the descriptor hash of an action: the hash of {ref,
// description, inputSchema, outputSchema, risk, namespace, effect}, with
// empty optional members omitted. in and out are the parsed schemas (Absent
// when there is none).
func actionHash(a *Action, in, out jsjson.Value) string {
	m := []jsjson.Member{
		{Key: "ref", Value: jsjson.MakeString(a.Ref)},
		{Key: "description", Value: jsjson.MakeString(a.Description)},
		{Key: "inputSchema", Value: in},
		{Key: "outputSchema", Value: out},
		{Key: "risk", Value: jsjson.MakeString(a.Risk)},
		{Key: "namespace", Value: optional(a.Namespace)},
		{Key: "effect", Value: optional(a.Effect)},
	}
	return stableJSONHash(jsjson.MakeObject(m...))
}

// providerHash is the hash of {name, description, actions: [actionHashes]}.
func providerHash(name, description string, actionHashes []string) string {
	return stableJSONHash(jsjson.MakeObject(
		jsjson.Member{Key: "name", Value: jsjson.MakeString(name)},
		jsjson.Member{Key: "description", Value: jsjson.MakeString(description)},
		jsjson.Member{Key: "actions", Value: stringArray(actionHashes)},
	))
}

// rootHash is the hash of [providerHashes].
func rootHash(providerHashes []string) string {
	return stableJSONHash(stringArray(providerHashes))
}

// stableJSONHash is the lowercase hex SHA-256 of the canonical JSON of v.
func stableJSONHash(v jsjson.Value) string {
	sum := sha256.Sum256(appendCanonical(nil, v))
	return hex.EncodeToString(sum[:])
}

// appendCanonical appends the canonical JSON of v: JSON.stringify's
// encoding with no whitespace and every object's keys sorted by UTF-16
// code units. Absent members are omitted.
func appendCanonical(dst []byte, v jsjson.Value) []byte {
	switch v.Kind() {
	case jsjson.Array:
		dst = append(dst, '[')
		for i, it := range v.Items() {
			if i > 0 {
				dst = append(dst, ',')
			}
			if !it.Value.Exists() {
				dst = append(dst, "null"...)
				continue
			}
			dst = appendCanonical(dst, it.Value)
		}
		return append(dst, ']')
	case jsjson.Object:
		members := slices.Clone(v.Members())
		slices.SortStableFunc(members, func(a, b jsjson.Member) int { return analyzer.CompareUTF16(a.Key, b.Key) })
		dst = append(dst, '{')
		first := true
		for _, m := range members {
			if !m.Value.Exists() {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = jsjson.AppendString(dst, m.Key)
			dst = append(dst, ':')
			dst = appendCanonical(dst, m.Value)
		}
		return append(dst, '}')
	}
	return jsjson.AppendValue(dst, v)
}

func optional(s string) jsjson.Value {
	if s == "" {
		return jsjson.Value{}
	}
	return jsjson.MakeString(s)
}

func stringArray(ss []string) jsjson.Value {
	items := make([]jsjson.Value, len(ss))
	for i, s := range ss {
		items[i] = jsjson.MakeString(s)
	}
	return jsjson.MakeArray(items...)
}
