package main

import (
	"fmt"
	"strings"
)

// skippedShown is how many unreadable records are named one per line; more
// than that become one line with a count. A clone that fetched 100,000
// misplaced records should read one line about them, not 100,000.
const skippedShown = 5

// condenseSkipped folds the "skipping <ref>: <why>" lines of notices into
// one line naming the first few refs and the count, at the place of the
// first; other notices keep their order. Up to skippedShown such lines are
// left as they are.
func condenseSkipped(notices []string) []string {
	var skips []string
	for _, n := range notices {
		if strings.HasPrefix(n, "skipping ") {
			skips = append(skips, n)
		}
	}
	if len(skips) <= skippedShown {
		return notices
	}
	refs := make([]string, 0, 3)
	for _, s := range skips[:3] {
		ref, _, _ := strings.Cut(strings.TrimPrefix(s, "skipping "), ": ")
		refs = append(refs, ref)
	}
	line := fmt.Sprintf("skipping %d records that cannot be read here (%s and %d more); the first: %s",
		len(skips), strings.Join(refs, ", "), len(skips)-len(refs), strings.TrimPrefix(skips[0], "skipping "))
	out := make([]string, 0, len(notices)-len(skips)+1)
	folded := false
	for _, n := range notices {
		if !strings.HasPrefix(n, "skipping ") {
			out = append(out, n)
		} else if !folded {
			out = append(out, line)
			folded = true
		}
	}
	return out
}
