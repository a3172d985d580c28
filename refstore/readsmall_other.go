//go:build !unix

package refstore

import (
	"os"
	"path/filepath"
)

func readSmallAt(_ *os.File, dirPath, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dirPath, name))
}
