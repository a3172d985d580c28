//go:build !simdefects

package simdefect

// Built reports whether defects can be planted (the simdefects tag).
const Built = false

// On is false: no defect is compiled in without the simdefects tag.
func On(Defect) bool { return false }

// Set does nothing without the simdefects tag.
func Set(Defect) {}
