//go:build !unix

package refstore

import (
	"os"
	"path/filepath"
)

func readSmallAt(_ *os.File, dirPath, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dirPath, name))
}

func readSmallEach(_ *os.File, dirPath string, names []string, fn func(name string, b []byte, err error) error) error {
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dirPath, name))
		if err := fn(name, b, err); err != nil {
			return err
		}
	}
	return nil
}
