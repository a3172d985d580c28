//go:build simdefects

package simdefect

import "sync/atomic"

// Built reports whether defects can be planted (the simdefects tag).
const Built = true

var active atomic.Value // Defect

// On reports whether d is the defect planted now.
func On(d Defect) bool {
	cur, _ := active.Load().(Defect)
	return cur == d
}

// Set plants d ("" for none).
func Set(d Defect) { active.Store(d) }
