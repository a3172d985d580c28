package refstore

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func stampOf(fi fs.FileInfo) Stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Stamp{Mtime: fi.ModTime().UnixNano(), Ctime: fi.ModTime().UnixNano(), Size: fi.Size()}
	}
	return Stamp{
		Ino:   st.Ino,
		Size:  st.Size,
		Nlink: uint64(st.Nlink),
		Mtime: st.Mtim.Nano(),
		Ctime: st.Ctim.Nano(),
	}
}

// localTimes reports whether path is on a filesystem known to be local,
// whose directory times move on every entry created, renamed or removed,
// from this machine's clock. Network filesystems (NFS, SMB, FUSE mounts of
// anything) cache attributes and take times from a server, so a stat may
// be stale: they are not on the list.
func localTimes(path string) bool {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(path, &fs); err != nil {
		return false
	}
	switch uint32(fs.Type) {
	case 0xEF53, // ext2, ext3, ext4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994, // tmpfs
		0x794C7630, // overlayfs
		0x2FC12FC1, // zfs
		0xF2F52010, // f2fs
		0xCA451A4E: // bcachefs
		return true
	}
	return false
}

// fstatat stats name in the open directory dir without following a
// symbolic link, retried on EINTR: serr is the stat's own failure, err one
// of reaching the descriptor.
func fstatat(dir *os.File, name string) (st unix.Stat_t, serr, err error) {
	raw, err := dir.SyscallConn()
	if err != nil {
		return st, nil, err
	}
	err = raw.Control(func(fd uintptr) {
		for {
			if serr = unix.Fstatat(int(fd), name, &st, unix.AT_SYMLINK_NOFOLLOW); serr != unix.EINTR {
				return
			}
		}
	})
	return st, serr, err
}

// statAt stats name in the open directory dir without following a
// symbolic link, in one system call. A failure is a zero stamp: the
// caller reads the file, which says what is wrong.
func statAt(dir *os.File, name string) (FileStamp, error) {
	st, serr, err := fstatat(dir, name)
	if err != nil {
		return FileStamp{}, err
	}
	if serr != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileStamp{}, errors.New("not a regular file")
	}
	return FileStamp{Ino: st.Ino, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}, nil
}

// dirStampAt stamps the directory name (a relative path) under the open
// directory dir; one that does not exist, or is no directory, is absent.
func dirStampAt(dir *os.File, name string) (Stamp, error) {
	st, serr, err := fstatat(dir, name)
	if err != nil {
		return Stamp{}, err
	}
	switch {
	case serr == unix.ENOENT || serr == unix.ENOTDIR:
		return Stamp{}, nil
	case serr != nil:
		return Stamp{}, &fs.PathError{Op: "stat", Path: name, Err: serr}
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return Stamp{}, nil
	}
	return Stamp{Ino: st.Ino, Size: st.Size, Nlink: uint64(st.Nlink), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}, nil
}
