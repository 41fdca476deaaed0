package main

import "fmt"

// didYouMean is " (did you mean X?)" when one of known is close to what the user typed
// (at most two edits, or one for short words), and "" otherwise.
func didYouMean(typed string, known []string) string {
	best, bestD := "", 3
	if len(typed) <= 4 {
		bestD = 2
	}
	for _, k := range known {
		if d := editDistance(typed, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || best == typed {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// commands are the top-level commands, for suggestions.
var commands = []string{"grade", "merge", "run", "play", "fuzz", "tournament", "adequacy", "exec", "programs", "version", "completion", "help"}
