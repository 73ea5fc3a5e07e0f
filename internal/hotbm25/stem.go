package hotbm25

import (
	"cmp"
	"slices"
	"strings"

	"github.com/memidx/memidx/internal/analyzer/natural"
)

// The stemmed field shares the dictionary as the structural keys do:
// natural.Key(s)'s postings are the entries holding any term whose natural
// form (natural.Term) is s, with those terms' frequencies summed.
//
// A stem whose only form in the shard is the stem itself ("deploy" alone),
// or that is looked up as itself alone (natural.OwnFormOnly), gets no key
// of its own: its postings are the term's. Postings falls
// back to them for a self-stemming stem (natural.SelfStem), and only for
// one, so the fallback can never lend a stem the postings of a term that
// is not its form (a stop word, or a term whose own stem differs).

// addStems adds the stemmed field's keys to the postings: for each stem
// whose forms are not just the stem itself, the merged postings of its
// forms.
func (b *Builder) addStems() {
	type form struct {
		stem, term string
		id         uint32
	}
	var forms []form
	for t, id := range b.post.ids {
		if t == "" || t[0] < ' ' {
			continue // structural keys
		}
		if st, ok := natural.Term(t); ok && !natural.OwnFormOnly(st) {
			forms = append(forms, form{st, t, id})
		}
	}
	slices.SortFunc(forms, func(x, y form) int {
		return cmp.Or(strings.Compare(x.stem, y.stem), cmp.Compare(x.id, y.id))
	})
	var merged []posting
	for i := 0; i < len(forms); {
		j := i + 1
		for j < len(forms) && forms[j].stem == forms[i].stem {
			j++
		}
		st := forms[i].stem
		if j-i == 1 && forms[i].term == st {
			i = j
			continue
		}
		merged = merged[:0]
		for _, f := range forms[i:j] {
			merged = b.post.appendList(merged, f.id)
		}
		b.post.addList(natural.Key(st), mergePostings(merged))
		i = j
	}
}

// mergePostings sorts pl by entry and sums the frequencies of postings of
// one entry.
func mergePostings(pl []posting) []posting {
	slices.SortFunc(pl, func(x, y posting) int { return cmp.Compare(x.entry, y.entry) })
	out := pl[:0]
	for _, p := range pl {
		if n := len(out); n > 0 && out[n-1].entry == p.entry {
			out[n-1].tf += p.tf
			continue
		}
		out = append(out, p)
	}
	return slices.Clone(out)
}
