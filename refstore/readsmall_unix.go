//go:build unix

package refstore

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// readSmallAt reads the loose ref file name in the open directory dir in
// three system calls (openat, read, close): os.ReadFile resolves the
// whole path, stats the file and offers it to the poller, which doubles
// the cost of listing ten thousand loose refs. A file larger than the
// buffer is read again whole.
func readSmallAt(dir *os.File, dirPath, name string) ([]byte, error) {
	var buf [256]byte
	path := filepath.Join(dirPath, name)
	raw, err := dir.SyscallConn()
	if err != nil {
		return os.ReadFile(path)
	}
	var fd int
	var oerr error
	if err := raw.Control(func(dfd uintptr) {
		for {
			fd, oerr = unix.Openat(int(dfd), name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if oerr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return os.ReadFile(path)
	}
	if oerr != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: oerr}
	}
	n, err := syscall.Read(fd, buf[:])
	for err == syscall.EINTR {
		n, err = syscall.Read(fd, buf[:])
	}
	syscall.Close(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if n == len(buf) {
		return os.ReadFile(path)
	}
	return append([]byte(nil), buf[:n]...), nil
}
