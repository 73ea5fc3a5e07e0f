package strsort

import (
	"slices"
	"strings"
)

// small is the bucket size under which insertion sort finishes a bucket:
// a radix level costs a pass over 257 counters, more than sorting a few
// strings outright.
const small = 24

// maxRadixDepth is the depth from which a bucket is left to slices.Sort:
// a radix level costs a pass over its bucket, and strings that share
// long prefixes but split at every byte (a chain, each level shedding a
// few) would cost one a byte. Terms rarely share more than 32 bytes, and
// a comparison of two that do is one memcmp.
const maxRadixDepth = 32

// Strings sorts s in increasing byte order (strings.Compare's).
func Strings(s []string) { sortFrom(s, 0) }

// sortFrom sorts s, whose strings share their first depth bytes.
func sortFrom(s []string, depth int) {
	for len(s) > small {
		if depth >= maxRadixDepth {
			slices.Sort(s)
			return
		}
		// Bucket 0 holds the strings that end at depth; bucket c+1, those
		// whose byte at depth is c.
		var count [257]int
		for _, x := range s {
			count[bucket(x, depth)]++
		}
		if b := bucket(s[0], depth); count[b] == len(s) {
			// One bucket holds them all: they end here (equal), or
			// share this byte and maybe many more, which one scan skips
			// (a radix level a byte cost 30 ms on 25 terms of 20 KB
			// that differ only at their end).
			if b == 0 {
				return
			}
			depth += sharedPrefix(s, depth)
			continue
		}
		var start, next [257]int
		sum := 0
		for b, n := range count {
			start[b], next[b] = sum, sum
			sum += n
		}
		// Each swap puts one string in its bucket for good.
		for b := range count {
			end := start[b] + count[b]
			for next[b] < end {
				c := bucket(s[next[b]], depth)
				if c == b {
					next[b]++
					continue
				}
				s[next[b]], s[next[c]] = s[next[c]], s[next[b]]
				next[c]++
			}
		}
		// Bucket 0's strings are equal. The largest bucket is sorted by
		// this loop, the others by recursion: the stack stays shallow.
		largest := 1
		for b := 2; b < 257; b++ {
			if count[b] > count[largest] {
				largest = b
			}
		}
		for b := 1; b < 257; b++ {
			if b != largest && count[b] > 1 {
				sortFrom(s[start[b]:start[b]+count[b]], depth+1)
			}
		}
		s, depth = s[start[largest]:start[largest]+count[largest]], depth+1
	}
	insertion(s, depth)
}

// sharedPrefix is the length of the longest prefix that every string of s
// has from depth on.
func sharedPrefix(s []string, depth int) int {
	first := s[0][depth:]
	n := len(first)
	for _, x := range s[1:] {
		x = x[depth:]
		m := min(n, len(x))
		i := 0
		for i+64 <= m && first[i:i+64] == x[i:i+64] {
			i += 64
		}
		for i < m && first[i] == x[i] {
			i++
		}
		n = i
	}
	return n
}

// bucket is the bucket of x at depth: 0 when x ends there.
func bucket(x string, depth int) int {
	if depth < len(x) {
		return int(x[depth]) + 1
	}
	return 0
}

// insertion sorts s, whose strings share their first depth bytes.
func insertion(s []string, depth int) {
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for ; j > 0 && strings.Compare(x[depth:], s[j-1][depth:]) < 0; j-- {
			s[j] = s[j-1]
		}
		s[j] = x
	}
}
