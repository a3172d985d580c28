package refstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// WorktreeDigest fingerprints the state of the working tree against HEAD:
// the paths `git status` lists (changed, staged, untracked) with each one's
// size and modification time, so that editing a file that was already
// changed still changes the digest. Two equal digests mean nobody touched
// the tree in between; a bare repository has "" for a digest.
func (s *Store) WorktreeDigest(ctx context.Context) (string, error) {
	if s.bare {
		return "", nil
	}
	out, err := Git(ctx, s.workDir, true, nil, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=dirty")
	if err != nil {
		return "", fmt.Errorf("reading the working tree's status: %w", err)
	}
	h := sha256.New()
	for _, entry := range bytes.Split(out, []byte{0}) {
		if len(entry) < 4 {
			continue // the empty tail, or the origin path of a rename
		}
		h.Write(entry)
		h.Write([]byte{0})
		if fi, err := os.Lstat(filepath.Join(s.workDir, string(entry[3:]))); err == nil {
			fmt.Fprintf(h, "%d %d\x00", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
