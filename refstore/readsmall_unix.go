//go:build unix

package refstore

import (
	"bytes"
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
func readSmallAt(dir *os.File, dirPath, name string) (b []byte, err error) {
	if eerr := readSmallEach(dir, dirPath, []string{name}, func(_ string, got []byte, rerr error) error {
		b, err = bytes.Clone(got), rerr // got is the shared buffer's
		return nil
	}); eerr != nil {
		return nil, eerr
	}
	return b, err
}

// readSmallEach is readSmallAt for every file of names in dir, handing fn
// each one's bytes (valid only until fn returns) or its error; fn's error
// ends it. The directory's descriptor is taken once for all of them and
// one buffer serves every file: a listing of a hundred thousand loose refs
// allocates nothing here for each.
func readSmallEach(dir *os.File, dirPath string, names []string, fn func(name string, b []byte, err error) error) error {
	raw, err := dir.SyscallConn()
	if err != nil {
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(dirPath, name))
			if err := fn(name, b, err); err != nil {
				return err
			}
		}
		return nil
	}
	var ferr error
	var buf [256]byte
	if err := raw.Control(func(dfd uintptr) {
		for _, name := range names {
			b, err := readOneAt(int(dfd), dirPath, name, &buf)
			if ferr = fn(name, b, err); ferr != nil {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}

// readOneAt is readSmallAt's reading, into buf, of name in the directory
// open as dfd.
func readOneAt(dfd int, dirPath, name string, buf *[256]byte) ([]byte, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dirPath, name), Err: err}
	}
	n, err := syscall.Read(fd, buf[:])
	for err == syscall.EINTR {
		n, err = syscall.Read(fd, buf[:])
	}
	syscall.Close(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: filepath.Join(dirPath, name), Err: err}
	}
	if n == len(buf) {
		return os.ReadFile(filepath.Join(dirPath, name))
	}
	return buf[:n], nil
}
