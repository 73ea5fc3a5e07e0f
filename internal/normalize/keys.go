package normalize

// Structural keys name the typed values an entry can be filtered by. They
// start with a NUL byte, which no canonical token contains, so the hot
// dictionary and the cold address table hold them beside (or apart from)
// words without collisions.
const (
	KeyRole     = "\x00r"
	KeyTool     = "\x00t"
	KeyRef      = "\x00R"
	KeyProvider = "\x00p"
	KeyAction   = "\x00a"
	KeyOutcome  = "\x00o"
)

// EachStructuralKey calls fn for every structural key of e: its role,
// every tool it calls (with the omp ref and action of each native call, so
// that a filter matches the second call of a message too), its ref,
// provider, action and outcome. A key may be offered more than once.
func (e *Entry) EachStructuralKey(fn func(key string)) {
	e.EachStructuralKeyPart(func(prefix, value string) { fn(prefix + value) })
}

// EachStructuralKeyPart is EachStructuralKey with each key given as its
// prefix and value, for a caller that looks keys up without making each
// one (a digest builder, for every entry of an archive).
func (e *Entry) EachStructuralKeyPart(fn func(prefix, value string)) {
	add := func(prefix string, v *string) {
		if v != nil && *v != "" {
			fn(prefix, *v)
		}
	}
	add(KeyRole, e.Role)
	add(KeyTool, e.Tool)
	add(KeyRef, e.Ref)
	add(KeyProvider, e.Provider)
	add(KeyAction, e.Action)
	add(KeyOutcome, e.Outcome)
	native := Get(e.Provider) == "omp"
	for _, t := range e.Tools {
		if t == "" {
			continue
		}
		fn(KeyTool, t)
		if native {
			fn(KeyRef+"omp.", t)
			fn(KeyAction, t)
		}
	}
}
