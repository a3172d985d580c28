//go:build unix

package webui

import (
	"io/fs"
	"syscall"
)

// inode tells apart two files of one name, size and time: a ref written
// twice within the file system's clock tick is a new file each time.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
