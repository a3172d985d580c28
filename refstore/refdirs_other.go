//go:build !linux

package refstore

import (
	"errors"
	"io/fs"
	"os"
)

func stampOf(fi fs.FileInfo) Stamp {
	t := fi.ModTime().UnixNano()
	return Stamp{Mtime: t, Ctime: t, Size: fi.Size()}
}

// localTimes: only Linux filesystems are known here; elsewhere every
// caller lists all refs.
func localTimes(string) bool { return false }

func statAt(*os.File, string) (FileStamp, error) { return FileStamp{}, errors.New("no stamps here") }

func dirStampAt(*os.File, string) (Stamp, error) { return Stamp{}, errors.New("no stamps here") }
