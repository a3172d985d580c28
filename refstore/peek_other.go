//go:build !unix

package refstore

// sameDevice cannot tell here: Peek then asks git.
func sameDevice(a, b string) (same, known bool) { return false, false }
