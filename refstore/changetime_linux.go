package refstore

import (
	"io/fs"
	"syscall"
)

// changedAt is the later of a file's modification and change times, ns
// since the epoch: a file moved or given old times by a tool still counts
// as changed when it was.
func changedAt(fi fs.FileInfo) int64 {
	t := fi.ModTime().UnixNano()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Ctim.Nano() > t {
		t = st.Ctim.Nano()
	}
	return t
}

// inodeOf is a file's inode number, 0 where the system has none.
func inodeOf(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino)
	}
	return 0
}
