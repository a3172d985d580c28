//go:build !linux

package refstore

import "io/fs"

// changedAt is a file's modification time, ns since the epoch.
func changedAt(fi fs.FileInfo) int64 { return fi.ModTime().UnixNano() }

// inodeOf is 0: the modification time and size stand for the file.
func inodeOf(fs.FileInfo) int64 { return 0 }
