package index

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// policyNum numbers the policy string of a Record: every record of a
// configuration holds one of a few strings, and a number is 4 bytes where
// a string was 16 (1.6 MB of a one-shot call's partial records at 100k
// sessions, and of a server's records). 0 is the empty policy.
type policyNum uint32

// policyEntry is a numbered policy: its string and the fingerprint a
// manifest entry keeps of it (policyID).
type policyEntry struct {
	name string
	id   uint64
}

// policyTable numbers the policy strings of the process, by string and by
// fingerprint: a manifest entry keeps only the fingerprint, and a record
// read from it gets the number of the string an Index named (Open names
// its configuration's), or one of its own ("policy#<hex>": no current
// policy, so the record is rebuilt). An entry, once numbered, is never
// changed but to give an unnamed fingerprint its string; the entries are
// copied when one is added, so a record's number reads without a lock.
type policyTable struct {
	mu      sync.Mutex
	byName  map[string]policyNum
	byID    map[uint64]policyNum
	unnamed int       // entries named for their fingerprint
	other   policyNum // what unnamed fingerprints share past maxUnnamedPolicies
	entries atomic.Pointer[[]policyEntry]
}

// maxUnnamedPolicies bounds the unnamed fingerprints that get numbers of
// their own: a damaged or foreign index could hold a new one in every
// entry. Past it they share one, "policy#other", which is no current
// policy either.
const maxUnnamedPolicies = 256

var policies policyTable

// entry is the policy numbered n.
func (t *policyTable) entry(n policyNum) policyEntry {
	if n == 0 {
		return policyEntry{}
	}
	return (*t.entries.Load())[n-1]
}

// named is the number of the policy string p.
func (t *policyTable) named(p string) policyNum {
	if p == "" {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.byName[p]; ok {
		return n
	}
	t.init()
	id := policyID(p)
	n, ok := t.byID[id]
	if ok && t.entry(n).name == unnamedPolicy(id) {
		t.set(n, policyEntry{p, id}) // read before it was named: name it
		t.unnamed--
	} else {
		n = t.add(policyEntry{p, id})
		if !ok {
			t.byID[id] = n
		}
	}
	t.byName[p] = n
	return n
}

// byFingerprint is the number of the policy whose fingerprint is id: a
// named one's, else one named for the fingerprint.
func (t *policyTable) byFingerprint(id uint64) policyNum {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.byID[id]; ok {
		return n
	}
	t.init()
	if t.unnamed >= maxUnnamedPolicies {
		if t.other == 0 {
			t.other = t.add(policyEntry{"policy#other", 0})
		}
		return t.other
	}
	n := t.add(policyEntry{unnamedPolicy(id), id})
	t.byID[id] = n
	t.unnamed++
	return n
}

// unnamedPolicy is the name of a policy known by its fingerprint only.
func unnamedPolicy(id uint64) string { return "policy#" + strconv.FormatUint(id, 16) }

func (t *policyTable) init() {
	if t.byName == nil {
		t.byName, t.byID = map[string]policyNum{}, map[uint64]policyNum{}
	}
}

// add numbers e (t.mu held).
func (t *policyTable) add(e policyEntry) policyNum {
	var next []policyEntry
	if old := t.entries.Load(); old != nil {
		next = append(next, *old...)
	}
	next = append(next, e)
	t.entries.Store(&next)
	return policyNum(len(next))
}

// set changes entry n to e (t.mu held), in a copy.
func (t *policyTable) set(n policyNum, e policyEntry) {
	next := append([]policyEntry(nil), *t.entries.Load()...)
	next[n-1] = e
	t.entries.Store(&next)
}

// Policy is the record's policy string (Policy.String's, or for a record
// written under a policy no Index of the process named, "policy#<hex>" of
// its fingerprint).
func (r *Record) Policy() string { return policies.entry(r.policy).name }

// SetPolicy sets the record's policy string.
func (r *Record) SetPolicy(p string) { r.policy = policies.named(p) }

// policyFingerprint is what a manifest entry keeps of the record's
// policy: the fingerprint it was read with, or of the string it was
// built with.
func (r *Record) policyFingerprint() uint64 {
	if r.policy == 0 {
		return policyID("")
	}
	return policies.entry(r.policy).id
}
