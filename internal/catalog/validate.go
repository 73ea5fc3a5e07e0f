package catalog

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/jsjson"
)

// prepareProvider validates p and precomputes its actions' heads, hashes and
// search fields. It copies everything it keeps: the caller may reuse p.
func prepareProvider(p Provider) (*provider, error) {
	if err := checkName("provider", p.Name); err != nil {
		return nil, err
	}
	if strings.Contains(p.Name, ".") {
		return nil, invalidf("provider %q: name must not contain \".\"", p.Name)
	}
	if !utf8.ValidString(p.Description) {
		return nil, invalidf("provider %q: description is not valid UTF-8", p.Name)
	}
	pp := &provider{
		name:        p.Name,
		description: p.Description,
		lname:       analyzer.NormalizePhrase(p.Name),
		ldesc:       analyzer.NormalizePhrase(p.Description),
		actions:     make([]*action, 0, len(p.Actions)),
	}
	seen := make(map[string]bool, len(p.Actions))
	for _, a := range p.Actions {
		pa, err := prepareAction(p.Name, a)
		if err != nil {
			return nil, err
		}
		if seen[pa.Ref] {
			return nil, invalidf("duplicate action ref %q", pa.Ref)
		}
		seen[pa.Ref] = true
		pp.actions = append(pp.actions, pa)
	}
	slices.SortFunc(pp.actions, func(a, b *action) int { return analyzer.CompareUTF16(a.Ref, b.Ref) })
	return pp, nil
}

func prepareAction(providerName string, a Action) (*action, error) {
	if err := checkName("provider "+strconv.Quote(providerName)+": action", a.Name); err != nil {
		return nil, err
	}
	ref := providerName + "." + a.Name
	where := "action " + strconv.Quote(ref)
	if a.Ref != "" && a.Ref != ref {
		return nil, invalidf("%s: ref %q is not provider.name", where, a.Ref)
	}
	if a.Provider != "" && a.Provider != providerName {
		return nil, invalidf("%s: provider %q differs from its provider %q", where, a.Provider, providerName)
	}
	if a.Risk == "" {
		return nil, invalidf("%s: missing risk", where)
	}
	for _, f := range [...]struct{ name, v string }{
		{"description", a.Description}, {"risk", a.Risk}, {"namespace", a.Namespace}, {"effect", a.Effect},
	} {
		if !utf8.ValidString(f.v) {
			return nil, invalidf("%s: %s is not valid UTF-8", where, f.name)
		}
	}
	in, inV, err := prepareSchema(a.InputSchema)
	if err != nil {
		return nil, invalidf("%s: inputSchema: %v", where, err)
	}
	out, outV, err := prepareSchema(a.OutputSchema)
	if err != nil {
		return nil, invalidf("%s: outputSchema: %v", where, err)
	}
	pa := &action{Action: Action{
		Ref:          ref,
		Provider:     providerName,
		Name:         a.Name,
		Description:  a.Description,
		InputSchema:  in,
		OutputSchema: out,
		Risk:         a.Risk,
		Namespace:    a.Namespace,
		Effect:       a.Effect,
		Quarantined:  a.Quarantined,
	}}
	pa.head = ActionHead{
		Key:            "action:" + ref,
		ParentKey:      "provider:" + providerName,
		Ref:            ref,
		Name:           a.Name,
		Description:    a.Description,
		DescriptorHash: actionHash(&pa.Action, inV, outV),
		Risk:           a.Risk,
		Namespace:      a.Namespace,
		Effect:         a.Effect,
	}
	// Trimmed like the query, so that a name whose NFKC form starts with a
	// space (U+00A8 is " \u0308") can still equal it.
	pa.lref = strings.TrimSpace(analyzer.NormalizePhrase(ref))
	pa.lname = strings.TrimSpace(analyzer.NormalizePhrase(a.Name))
	pa.ldesc = analyzer.NormalizePhrase(a.Description)
	pa.lns = analyzer.NormalizePhrase(a.Namespace)
	pa.lschema = analyzer.NormalizePhrase(string(in))
	return pa, nil
}

// prepareSchema parses a schema with JavaScript's JSON rules and returns it
// compacted (JSON.stringify of the parsed value, author's key order) and
// parsed. Empty input and null mean no schema.
func prepareSchema(raw json.RawMessage) (json.RawMessage, jsjson.Value, error) {
	if len(raw) == 0 {
		return nil, jsjson.Value{}, nil
	}
	v, err := jsjson.Parse(raw)
	if err != nil {
		return nil, jsjson.Value{}, err
	}
	return compactSchema(v)
}

func compactSchema(v jsjson.Value) (json.RawMessage, jsjson.Value, error) {
	switch v.Kind() {
	case jsjson.Null, jsjson.Absent:
		return nil, jsjson.Value{}, nil
	case jsjson.Object, jsjson.True, jsjson.False:
		return json.RawMessage(jsjson.AppendValue(nil, v)), v, nil
	}
	return nil, jsjson.Value{}, errNotSchema{v.Kind()}
}

type errNotSchema struct{ k jsjson.Kind }

func (e errNotSchema) Error() string {
	return "a schema must be an object or a boolean, not " + e.k.String()
}

func checkName(what, name string) error {
	if name == "" {
		return invalidf("%s: missing name", what)
	}
	if !utf8.ValidString(name) {
		return invalidf("%s %q: name is not valid UTF-8", what, name)
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return invalidf("%s %q: name contains whitespace or a control character", what, name)
	}
	return nil
}
