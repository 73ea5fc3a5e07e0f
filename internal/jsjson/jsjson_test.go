package jsjson

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected strings were printed by node 20 (String(n), JSON.stringify).
func TestFormatNumberMatchesJavaScript(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1, "-1"}, {1.5, "1.5"}, {0.1, "0.1"},
		{1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{123456789012345680000, "123456789012345680000"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {1.2345e-7, "1.2345e-7"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{100, "100"}, {9007199254740992, "9007199254740992"}, {123.456, "123.456"},
		{-1e-7, "-1e-7"}, {1e300, "1e+300"}, {4.35, "4.35"}, {0.3, "0.3"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, FormatNumber(c.f), "%v", c.f)
	}
}

func TestParseObjectOrderLikeJavaScript(t *testing.T) {
	v, err := Parse([]byte(`{"b":1,"2":2,"a":0,"1":3,"b":9,"01":4,"4294967295":5,"4294967294":6}`))
	require.NoError(t, err)
	assert.Equal(t, `{"1":3,"2":2,"4294967294":6,"b":9,"a":0,"01":4,"4294967295":5}`, Stringify(v))
}

func TestStringifyEscapesLikeJavaScript(t *testing.T) {
	v, err := Parse([]byte(`{"s":"a\u2028<>&\u0001\ud800x\u007f\ud83d\ude00"}`))
	require.NoError(t, err)
	assert.Equal(t, "{\"s\":\"a\u2028<>&\\u0001\\ud800x\u007f😀\"}", Stringify(v))
	s, _ := v.Get("s").Str()
	// a U+2028 < > & U+0001 lone-surrogate x DEL 😀(2 units)
	assert.Equal(t, 11, UTF16Len(s))
	assert.Equal(t, UTF16Len(string(AppendString(nil, s))), StringifiedLen(s))
}

func TestParseErrorsDistinguishEOF(t *testing.T) {
	cases := []struct {
		in  string
		eof bool
	}{
		{`{"a":`, true}, {`{"a":1`, true}, {`[1,2`, true}, {`"abc`, true}, {`tr`, true},
		{`-`, true}, {`1.`, true}, {`1e`, true}, {`{"a`, true}, {`"\u12`, true},
		{`{"a":}`, false}, {`[1,]`, false}, {`tx`, false}, {`{a:1}`, false},
		{`"a` + "\n" + `"`, false}, {`"\x"`, false}, {`nul}`, false},
	}
	for _, c := range cases {
		_, _, err := ParseValue([]byte(c.in), 0)
		require.Error(t, err, c.in)
		se, ok := err.(*SyntaxError)
		require.True(t, ok)
		assert.Equal(t, c.eof, se.EOF, c.in)
	}
}

func TestParseValueStopsAfterValue(t *testing.T) {
	v, end, err := ParseValue([]byte(` {"a":[1,"x",null,true,false,{}]} junk`), 0)
	require.NoError(t, err)
	assert.Equal(t, 33, end)
	assert.Equal(t, `{"a":[1,"x",null,true,false,{}]}`, Stringify(v))
	_, err = Parse([]byte(`01`))
	assert.Error(t, err)
	_, err = Parse([]byte(`{} x`))
	assert.Error(t, err)
}

func TestDeepNestingIsAnError(t *testing.T) {
	deep := make([]byte, 0, 2*MaxDepth+10)
	for i := 0; i < MaxDepth+5; i++ {
		deep = append(deep, '[')
	}
	_, _, err := ParseValue(deep, 0)
	require.Error(t, err)
	assert.False(t, err.(*SyntaxError).EOF)
}

func TestTruthy(t *testing.T) {
	for in, want := range map[string]bool{`0`: false, `-0`: false, `1`: true, `""`: false, `"0"`: true, `null`: false, `[]`: true, `{}`: true, `false`: false, `true`: true} {
		v, err := Parse([]byte(in))
		require.NoError(t, err)
		assert.Equal(t, want, v.Truthy(), in)
	}
}

func FuzzParseStringify(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,"\ud800",{"2":1,"1":0}]`, `"\u2028"`, `1e400`, `{"a":{"a":{"a":[]}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			return
		}
		// Stringify output is JSON that parses to the same encoding.
		out := Stringify(v)
		v2, err := Parse([]byte(out))
		if err != nil {
			t.Fatalf("stringify output does not parse: %q -> %q: %v", data, out, err)
		}
		if again := Stringify(v2); again != out {
			t.Fatalf("not stable: %q -> %q -> %q", data, out, again)
		}
	})
}

func TestStringifyPrefix(t *testing.T) {
	v, err := Parse([]byte(`{"a":"` + strings.Repeat("é", 5000) + `","b":[1,2,3]}`))
	require.NoError(t, err)
	full := Stringify(v)
	for _, max := range []int{0, 1, 7, 100, 1601, len(full) - 1, len(full), len(full) + 10} {
		got, cut := StringifyPrefix(v, max)
		assert.True(t, strings.HasPrefix(full, got), "max %d", max)
		assert.LessOrEqual(t, len(got), max)
		assert.True(t, utf8.ValidString(got))
		assert.Equal(t, len(full) > max, cut, "max %d", max)
		if len(full) > max {
			assert.Greater(t, len(got), max-4, "a prefix as long as the limit allows")
		}
	}
}

// TextDecoder replaces each maximal invalid subpart with one U+FFFD
// (oracle fixture invalid-utf8-truncated-sequence).
func TestInvalidUTF8LikeTextDecoder(t *testing.T) {
	for in, want := range map[string]string{
		"e\xe2\x82X":       "e\uFFFDX",
		"e\xffX":           "e\uFFFDX",
		"\xed\xa0\x80":     "\uFFFD\uFFFD\uFFFD", // a raw surrogate is three subparts
		"\xf0\x9f\x98":     "\uFFFD",
		"\xf0\x9f\x98\x80": "😀",
		"\xc0\xaf":         "\uFFFD\uFFFD",
		"\xe0\x80\x80":     "\uFFFD\uFFFD\uFFFD",
	} {
		v, err := Parse([]byte(`"` + in + `"`))
		require.NoError(t, err)
		got, _ := v.Str()
		assert.Equal(t, want, got, "%q", in)
	}
}

// IsTrimSpace is Unicode White_Space without U+0085, plus U+FEFF, over
// every rune.
func TestIsTrimSpace(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := (unicode.IsSpace(r) && r != '\u0085') || r == '\uFEFF'
		if IsTrimSpace(r) != want {
			t.Fatalf("IsTrimSpace(%U) = %v, want %v", r, !want, want)
		}
	}
}
