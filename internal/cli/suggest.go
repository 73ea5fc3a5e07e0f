package cli

import (
	"fmt"
	"strings"
)

// suggestCommand is the " (did you mean …?)" tail of an unknown command's
// message, "" when no command is close.
func suggestCommand(name string) string {
	var cands []string
	prefix := ""
	if sub, ok := strings.CutPrefix(name, "inspect "); ok {
		name, prefix = sub, "inspect "
	}
	for _, c := range commands {
		if rest, ok := strings.CutPrefix(c.name, prefix); ok && !strings.Contains(rest, " ") {
			cands = append(cands, rest)
		}
	}
	if best := closest(name, cands); best != "" {
		return fmt.Sprintf("; did you mean '%s%s'?", prefix, best)
	}
	return ""
}

// suggestFlag is the "; did you mean --since?" tail of an unknown flag's
// message: the closest flag of the command or a global one.
func suggestFlag(cmd, name string) string {
	var cands []string
	specs := globalFlags
	if c := lookupCommand(cmd); c != nil {
		specs = join(c.flags, globalFlags)
	}
	for _, f := range specs {
		cands = append(cands, f.names...)
	}
	if best := closest(name, cands); best != "" {
		return fmt.Sprintf("; did you mean %s?", dash(best))
	}
	return ""
}

// closest is the candidate nearest to s by edit distance, if near enough
// to be a typo: one edit in a short word, two in a longer one; or the one
// candidate s starts.
func closest(s string, cands []string) string {
	best, bestD := "", 3
	if len(s) < 5 {
		bestD = 2
	}
	for _, c := range cands {
		if d := editDistance(s, c); d < bestD && d < len(c) {
			best, bestD = c, d
		}
	}
	if best != "" || len(s) < 3 {
		return best
	}
	var starts []string
	for _, c := range cands {
		if strings.HasPrefix(c, s) {
			starts = append(starts, c)
		}
	}
	if len(starts) == 1 {
		return starts[0]
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of neighbours count one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
