package strsort

// Sorter sorts as Strings does, keeping its scratch memory from one sort
// to the next: a long list is sorted by prefix (see Order), the shorter
// ones and the runs that share a prefix by Strings' radix sort.
//
// Sorting a cold digest's vocabulary (some 660 terms a session on the
// generated 100k archive) was 7% of a rebuild's CPU; by prefix it takes
// two thirds of the time. A Sorter is for one goroutine at a time.
type Sorter struct {
	pre, tmpPre []uint64
	idx, tmpIdx []int32
	strs        []string
}

// minPrefixSort is the shortest list a Sorter sorts by prefix: below it
// the radix passes cost more than they save.
const minPrefixSort = 64

// Strings sorts s in increasing byte order.
func (st *Sorter) Strings(s []string) {
	n := len(s)
	if n < minPrefixSort {
		sortFrom(s, 0)
		return
	}
	if cap(st.pre) < n {
		st.pre, st.tmpPre = make([]uint64, n), make([]uint64, n)
		st.idx, st.tmpIdx = make([]int32, n), make([]int32, n)
		st.strs = make([]string, n)
	}
	pre, idx := st.pre[:n], st.idx[:n]
	for i, x := range s {
		pre[i], idx[i] = prefixOf(x), int32(i)
	}
	pre, idx = radixByPrefix(pre, idx, st.tmpPre[:n], st.tmpIdx[:n])
	strs := st.strs[:n]
	for i, j := range idx {
		strs[i] = s[j]
	}
	copy(s, strs)
	clear(strs) // the scratch holds no strings between sorts
	for i := 0; i < n; {
		j := i + 1
		for j < n && pre[j] == pre[i] {
			j++
		}
		if j-i > 1 {
			// They share their first eight bytes, or, zero-padded,
			// as many as the shortest has.
			depth := 8
			for _, x := range s[i:j] {
				depth = min(depth, len(x))
			}
			sortFrom(s[i:j], depth)
		}
		i = j
	}
}
