package jsjson

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// The two-word Value keeps what the three-field one showed callers: the
// kind and length of every value, non-nil empty items for [] and {}, nil
// members for an object made from nothing.
func TestValueRepresentation(t *testing.T) {
	v, err := Parse([]byte(`{"a":[],"b":{},"c":"","d":"x\"y","e":-1.5e3,"f":[1,"two",null,true,false]}`))
	if err != nil {
		t.Fatal(err)
	}
	if it := v.Get("a").Items(); it == nil || len(it) != 0 {
		t.Errorf("[] items = %#v, want empty non-nil", it)
	}
	if m := v.Get("b").Members(); m == nil || len(m) != 0 {
		t.Errorf("{} members = %#v, want empty non-nil", m)
	}
	if m := MakeObject().Members(); m != nil {
		t.Errorf("MakeObject() members = %#v, want nil", m)
	}
	if s, ok := v.Get("c").Str(); !ok || s != "" || v.Get("c").Kind() != String || v.Get("c").Truthy() {
		t.Errorf(`"" = %q %v`, s, ok)
	}
	if s := v.Get("d").StrOr("?"); s != `x"y` {
		t.Errorf("escaped = %q", s)
	}
	if v.Get("e").Literal() != "-1.5e3" {
		t.Errorf("literal = %q", v.Get("e").Literal())
	}
	f := v.Get("f")
	kinds := []Kind{Number, String, Null, True, False}
	if f.Len() != len(kinds) || f.Index(5).Exists() || f.Index(-1).Exists() {
		t.Fatalf("len %d", f.Len())
	}
	for i, k := range kinds {
		if f.Index(i).Kind() != k {
			t.Errorf("item %d kind %v, want %v", i, f.Index(i).Kind(), k)
		}
	}
	if got := Stringify(v); got != `{"a":[],"b":{},"c":"","d":"x\"y","e":-1500,"f":[1,"two",null,true,false]}` {
		t.Errorf("stringify = %s", got)
	}
	if (Value{}).Exists() || MakeNull().Kind() != Null || MakeString("s").Kind() != String {
		t.Error("constructors")
	}
}

// internKey changes no key's text.
func TestInternKey(t *testing.T) {
	for _, k := range []string{"type", "timestamp", "content", "id", "parentId", "toolName", "typ", "types", "", "Type", "thinkingSignature", "x"} {
		own := strings.Clone(k)
		if got := internKey(own); got != k {
			t.Errorf("internKey(%q) = %q", k, got)
		}
	}
}

// Every key that internKey's switches list is interned: a key in the
// switch its length does not lead to would never be.
func TestInternKeyInternsEveryListedKey(t *testing.T) {
	f, err := goparser.ParseFile(token.NewFileSet(), "parse.go", nil, goparser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "internKey" && fn.Name.Name != "internLongKey" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CaseClause); ok {
				for _, e := range c.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						k, _ := strconv.Unquote(lit.Value)
						keys = append(keys, k)
					}
				}
			}
			return true
		})
	}
	if len(keys) < 40 {
		t.Fatalf("found %d keys in internKey's switches; the search is broken", len(keys))
	}
	for _, k := range keys {
		own := strings.Clone(k)
		if got := internKey(own); got != k || unsafe.StringData(got) == unsafe.StringData(own) {
			t.Errorf("internKey(%q) does not intern it", k)
		}
	}
}
