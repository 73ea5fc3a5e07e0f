package strsort

import "strings"

// small is the bucket size under which insertion sort finishes a bucket:
// a radix level costs a pass over 257 counters, more than sorting a few
// strings outright.
const small = 24

// Strings sorts s in increasing byte order (strings.Compare's).
func Strings(s []string) { sortFrom(s, 0) }

// sortFrom sorts s, whose strings share their first depth bytes.
func sortFrom(s []string, depth int) {
	for len(s) > small {
		// Bucket 0 holds the strings that end at depth; bucket c+1, those
		// whose byte at depth is c.
		var count [257]int
		for _, x := range s {
			count[bucket(x, depth)]++
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
