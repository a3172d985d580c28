//go:build unix

package refstore

import (
	"os"
	"syscall"
)

// sameDevice reports whether a and b are on one filesystem (known false
// when either cannot be read).
func sameDevice(a, b string) (same, known bool) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, false
	}
	sa, ok := fa.Sys().(*syscall.Stat_t)
	sb, ok2 := fb.Sys().(*syscall.Stat_t)
	if !ok || !ok2 {
		return false, false
	}
	return sa.Dev == sb.Dev, true
}
