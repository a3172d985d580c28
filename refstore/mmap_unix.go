//go:build unix

package refstore

import (
	"io/fs"
	"os"
	"syscall"
)

// mapFile maps path read-only and returns what it mapped with the file's
// stat, taken from the open file so that the two agree (git replaces
// packed-refs by renaming a new file over it, so a mapping never sees its
// file change). An empty file, or one that cannot be mapped, is read.
func mapFile(path string) ([]byte, bool, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, nil, err
	}
	if size := st.Size(); size > 0 && size == int64(int(size)) {
		if b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			return b, true, st, nil
		}
	}
	b, err := os.ReadFile(path)
	return b, false, st, err
}

func unmapFile(b []byte) { syscall.Munmap(b) }
