package index

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Policy strings are numbered once a process: by string for what a
// configuration names, by fingerprint for what a manifest entry keeps;
// a fingerprint read before its string was named gets the string when
// it is; numbers never change their meaning.
func TestPolicyNumbers(t *testing.T) {
	var tab policyTable
	assert.Zero(t, tab.named(""))
	a := tab.named("entry:4000;branches:active")
	assert.Equal(t, a, tab.named("entry:4000;branches:active"), "one number a string")
	assert.Equal(t, a, tab.byFingerprint(policyID("entry:4000;branches:active")), "a stored fingerprint of it")
	assert.Equal(t, "entry:4000;branches:active", tab.entry(a).name)
	assert.Equal(t, policyID("entry:4000;branches:active"), tab.entry(a).id)

	// Read first, named after: the number read names the string since.
	id := policyID("vocab:1")
	early := tab.byFingerprint(id)
	assert.Equal(t, "policy#"+strconv.FormatUint(id, 16), tab.entry(early).name)
	assert.Equal(t, early, tab.named("vocab:1"))
	assert.Equal(t, "vocab:1", tab.entry(early).name)
	assert.Equal(t, id, tab.entry(early).id, "its fingerprint as stored")
	assert.NotEqual(t, a, early)

	// An unnamed fingerprint is no named policy, and keeps what it read.
	other := tab.byFingerprint(12345)
	assert.NotEqual(t, a, other)
	assert.Equal(t, uint64(12345), tab.entry(other).id)
	assert.Equal(t, "policy#3039", tab.entry(other).name)
}

// A manifest with a fingerprint in every entry (damage, a foreign index)
// numbers at most maxUnnamedPolicies of them; the rest share one that no
// configuration names.
func TestUnnamedPoliciesAreBounded(t *testing.T) {
	var tab policyTable
	named := tab.named("entry:4000")
	seen := map[policyNum]bool{}
	for i := range 3 * maxUnnamedPolicies {
		seen[tab.byFingerprint(uint64(i)<<8|1)] = true
	}
	assert.Len(t, seen, maxUnnamedPolicies+1)
	assert.False(t, seen[named])
	assert.Len(t, *tab.entries.Load(), maxUnnamedPolicies+2)
	assert.Equal(t, "policy#other", tab.entry(tab.byFingerprint(1<<40)).name)
}

// Numbers are given under a lock and read without one: readers of the
// entries never see them change under them (run with -race).
func TestPolicyNumbersReadWhileAdded(t *testing.T) {
	var tab policyTable
	first := tab.named("first")
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			tab.named(fmt.Sprint("p", i))
			tab.byFingerprint(uint64(i) << 4)
		}
	})
	for range 2000 {
		require.Equal(t, "first", tab.entry(first).name)
	}
	wg.Wait()
	require.Equal(t, "p199", tab.entry(tab.named("p199")).name)
}

// A record stores its policy's fingerprint and reads back its number:
// the string it was built with, or for an unnamed fingerprint the same
// fingerprint again (a reverified entry keeps what it had).
func TestRecordPolicyRoundTrips(t *testing.T) {
	rec := &Record{}
	rec.SetPolicy("cold-policy-for-this-test")
	assert.Equal(t, "cold-policy-for-this-test", rec.Policy())
	assert.Equal(t, policyID("cold-policy-for-this-test"), rec.policyFingerprint())
	var read Record
	read.policy = (*recordArena)(nil).policyNum(rec.policyFingerprint())
	assert.Equal(t, rec.policy, read.policy)
	unnamed := Record{policy: policies.byFingerprint(0xfeed)}
	assert.Equal(t, uint64(0xfeed), unnamed.policyFingerprint())
	assert.Equal(t, policyID(""), (&Record{}).policyFingerprint())
}
