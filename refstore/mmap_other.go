//go:build !unix

package refstore

import (
	"io/fs"
	"os"
)

func mapFile(path string) ([]byte, bool, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, nil, err
	}
	b, err := os.ReadFile(path)
	return b, false, st, err
}

func unmapFile(b []byte) {}
