package natural

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"When did the deploys start timing out?", []string{"deploy", "start", "time"}},
		{"how do we publish the package?", []string{"publish", "packag"}},
		{"Published, publishing: PUBLISHES", []string{"publish", "publish", "publish"}},
		{"which version of bleve did we pin? v2.6.3", []string{"version", "bleve", "pin", "v2", "6", "3"}},
		{"parse_config TestReconcileBatch E402 café", []string{"parse_config", "testreconcilebatch", "e402", "café"}},
		{"the a an of", nil},
		{"", nil},
		{"timed out timeouts", []string{"time", "timeout"}},
		{"go js ok", []string{"go", "js", "ok"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Terms(tt.text), "%q", tt.text)
	}
}

func TestTerm(t *testing.T) {
	for _, stop := range []string{"did", "when", "her", "the", "how", "what", "was"} {
		_, ok := Term(stop)
		assert.False(t, ok, stop)
		assert.True(t, IsStop(stop), stop)
	}
	for tok, want := range map[string]string{
		"migrations": "migrat", "migrated": "migrat", "running": "run",
		"flaky": "flaki", "x86_64": "x86_64", "42": "42", "ünïcode": "ünïcode",
	} {
		got, ok := Term(tok)
		assert.True(t, ok, tok)
		assert.Equal(t, want, got, tok)
	}
}

func BenchmarkTerm(b *testing.B) {
	words := []string{"deployment", "timing", "the", "migrations", "parse_config", "v2", "publishing", "reconcile"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Term(words[i%len(words)])
	}
}
