package refstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TreeEntry is a blob at a path of a tree: an archived record.
type TreeEntry struct {
	Path string // e.g. "sessions/s-123"
	OID  string
}

// Trees builds and reads git trees of record blobs: the monthly archive
// (package archive) keeps final records in them.
type Trees interface {
	// BuildTree writes the tree of base ("" for none) with entries put in
	// (an entry replaces what base holds at its path), moving no ref.
	BuildTree(ctx context.Context, base string, entries []TreeEntry) (string, error)
	// ListTree lists the blobs of tree, recursively, under dir ("" for
	// all), in path order.
	ListTree(ctx context.Context, tree, dir string) ([]TreeEntry, error)
	// ReadPath reads the object at path inside treeish (a ref or an id).
	ReadPath(ctx context.Context, treeish, path string) (Entry, error)
}

var _ Trees = (*Store)(nil)

// BuildTree writes the tree through git on an index file of its own:
// read-tree, update-index --index-info, write-tree. The index lives in a
// fresh directory under the common git dir (the same file system as the
// objects; never the user's index) and is removed afterwards.
func (s *Store) BuildTree(ctx context.Context, base string, entries []TreeEntry) (string, error) {
	dir, err := os.MkdirTemp(s.commonDir, "handoff-archive-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")}
	if base != "" {
		if _, err := s.gitWith(ctx, env, nil, "read-tree", base); err != nil {
			return "", err
		}
	}
	// ls-tree's own line shape, NUL-terminated: no path is ever quoted.
	var in bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&in, "100644 blob %s\t%s\x00", e.OID, e.Path)
	}
	if _, err := s.gitWith(ctx, env, in.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	// write-tree refuses an entry naming an object the repository lacks.
	out, err := s.gitWith(ctx, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ListTree lists through one git ls-tree. A tree without dir lists nothing.
func (s *Store) ListTree(ctx context.Context, tree, dir string) ([]TreeEntry, error) {
	args := []string{"ls-tree", "-r", "-z", "--full-tree", tree}
	if dir != "" {
		args = append(args, "--", dir)
	}
	out, err := s.gitWith(ctx, nil, nil, args...)
	if err != nil {
		return nil, err
	}
	var entries []TreeEntry
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// <mode> SP <type> SP <object> TAB <path>
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree %s: unexpected line %q", tree, rec)
		}
		if f[1] != "blob" {
			continue
		}
		entries = append(entries, TreeEntry{Path: string(p), OID: f[2]})
	}
	return entries, nil
}
