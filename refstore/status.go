package refstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	out, err := s.status(ctx)
	if err != nil {
		return "", err
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

// status is `git status` of the paths that differ from HEAD (changed,
// staged, untracked), NUL-separated entries of "XY path".
func (s *Store) status(ctx context.Context) ([]byte, error) {
	out, err := Git(ctx, s.workDir, true, nil, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=dirty")
	if err != nil {
		return nil, fmt.Errorf("reading the working tree's status: %w", err)
	}
	return out, nil
}

// WorktreeChangedSince reports whether a path that differs from HEAD now
// was changed after since (ns since the epoch): its modification or change
// time is later, or, for a path that is gone, its directory's is. A path
// changed before since and not touched again is not a change; nor is
// staging, alone, an edit made before since. Paths under one of the
// directories in skip (slash-separated, ending in "/") are not looked at.
func (s *Store) WorktreeChangedSince(ctx context.Context, since int64, skip ...string) (bool, error) {
	if s.bare {
		return false, nil
	}
	out, err := s.status(ctx)
	if err != nil {
		return false, err
	}
	after := func(fi os.FileInfo) bool {
		return changedAt(fi) > since
	}
	entries := bytes.Split(out, []byte{0})
	for i := 0; i < len(entries); i++ {
		entry := entries[i]
		if len(entry) < 4 {
			continue
		}
		paths := []string{string(entry[3:])}
		if skipped(paths[0], skip) {
			continue
		}
		if entry[0] == 'R' || entry[0] == 'C' {
			// A rename's origin follows it: changed too when it is gone.
			if i+1 < len(entries) {
				paths = append(paths, string(entries[i+1]))
				i++
			}
		}
		for _, p := range paths {
			full := filepath.Join(s.workDir, filepath.FromSlash(strings.TrimSuffix(p, "/")))
			fi, err := os.Lstat(full)
			if err == nil {
				if after(fi) {
					return true, nil
				}
				continue
			}
			// Gone: its removal changed the nearest directory that is
			// still there.
			for dir := filepath.Dir(full); ; dir = filepath.Dir(dir) {
				if di, err := os.Lstat(dir); err == nil {
					if after(di) {
						return true, nil
					}
					break
				}
				if dir == s.workDir || dir == filepath.Dir(dir) {
					break
				}
			}
		}
	}
	return false, nil
}

func skipped(path string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(path, d) {
			return true
		}
	}
	return false
}
