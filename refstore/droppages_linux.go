package refstore

import "syscall"

// dropPages lets go of the pages of b, part of a read-only mapping of a
// file, that this process has touched: they leave its resident set, and a
// later read finds them again in the page cache. Never for memory that is
// not such a mapping (its contents would be lost).
func dropPages(b []byte) {
	if len(b) > 0 {
		syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
