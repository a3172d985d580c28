package refstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	// BuildTree writes the tree of base ("" for none; a tree, or a commit
	// of one) with entries put in (an entry replaces what base holds at
	// its path), moving no ref, and returns the id of its TreeCommit.
	BuildTree(ctx context.Context, base string, entries []TreeEntry) (string, error)
	// ListTree lists the blobs of tree (a tree, or a commit of one),
	// recursively, under dir ("" for all), in path order.
	ListTree(ctx context.Context, tree, dir string) ([]TreeEntry, error)
	// ReadPath reads the object at path inside treeish (a ref or an id).
	ReadPath(ctx context.Context, treeish, path string) (Entry, error)
}

var _ Trees = (*Store)(nil)

// A tree of ours is named by a commit that holds it, its TreeCommit, never
// by the tree itself: git's connectivity check, which every git fetch runs
// (rev-list --objects --not --all), reads in full each tree a ref names
// and stops at a commit. With a year's archive that check was most of a
// plain fetch's time. The commit is the same wherever the same tree is
// built — fixed author, committer, date and message, no parent, no
// signature — so that two clones' builds of one tree name it alike and a
// union equal to one side is that side.
const (
	// TreeCommitIdent is the TreeCommit's author and committer line.
	TreeCommitIdent = "git-handoff <> 0 +0000"
	// TreeCommitMessage is its message.
	TreeCommitMessage = "git-handoff archive\n"
)

// treeCommitEnv is the environment under which git commit-tree writes the
// TreeCommit (the name, email and date of TreeCommitIdent).
var treeCommitEnv = []string{
	"GIT_AUTHOR_NAME=git-handoff", "GIT_AUTHOR_EMAIL=", "GIT_AUTHOR_DATE=@0 +0000",
	"GIT_COMMITTER_NAME=git-handoff", "GIT_COMMITTER_EMAIL=", "GIT_COMMITTER_DATE=@0 +0000",
}

// PartTrees is a store whose trees can reach objects it lacks: a tree
// written while a git gc --prune=now ran (git's documented race of
// --prune=now with writers) can keep its top and lose the subtrees written
// with it, and then every read of it fails, and so does every git gc of
// the repository ("bad tree object"). *Store is one; package memstore
// loses no object of a clone.
type PartTrees interface {
	// Missing lists the objects trees reach that the repository lacks.
	Missing(ctx context.Context, trees ...string) ([]string, error)
	// ReadableTree lists the blobs of tree that can still be read, in
	// path order, and the objects it reaches that the repository lacks.
	ReadableTree(ctx context.Context, tree string) (entries []TreeEntry, missing []string, err error)
	// ForgetReflog drops every entry of ref's reflog: an entry naming a
	// damaged tree keeps git gc from repacking as the ref itself does.
	ForgetReflog(ctx context.Context, ref string) error
	// Logged lists the values ref's reflog holds, newest first, at most
	// n of them; none when it keeps no reflog.
	Logged(ctx context.Context, ref string, n int) ([]string, error)
}

var _ PartTrees = (*Store)(nil)

// Missing lists the objects trees reach that the repository lacks.
func (s *Store) Missing(ctx context.Context, trees ...string) ([]string, error) {
	if len(trees) == 0 {
		return nil, nil
	}
	_, _, missing, err := s.reached(ctx, trees...)
	return missing, err
}

// ReadableTree adds to what reached finds the types of the objects it has
// (cat-file --batch-check), to keep the blobs.
func (s *Store) ReadableTree(ctx context.Context, tree string) ([]TreeEntry, []string, error) {
	ids, paths, missing, err := s.reached(ctx, tree)
	if err != nil || len(ids) == 0 {
		return nil, missing, err
	}
	out, err := s.gitWith(ctx, nil, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, nil, err
	}
	var entries []TreeEntry
	for line := range strings.SplitSeq(string(out), "\n") {
		oid, typ, _ := strings.Cut(line, " ")
		if typ != "blob" {
			continue
		}
		for _, p := range paths[oid] {
			entries = append(entries, TreeEntry{Path: p, OID: oid})
		}
	}
	slices.SortFunc(entries, func(a, b TreeEntry) int { return strings.Compare(a.Path, b.Path) })
	return entries, missing, nil
}

// reached asks git for every object trees reach, in one walk, the missing
// ones printed, not fatal (rev-list --objects --missing=print): the ids
// of those it has below the trees themselves, in the order given, the
// paths each is at, and the missing ones.
func (s *Store) reached(ctx context.Context, trees ...string) (ids []string, paths map[string][]string, missing []string, err error) {
	out, err := s.gitWith(ctx, nil, nil, append([]string{"rev-list", "--objects", "--missing=print"}, trees...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	paths = map[string][]string{}
	for line := range strings.SplitSeq(string(out), "\n") {
		if line == "" {
			continue
		}
		if oid, ok := strings.CutPrefix(line, "?"); ok {
			missing = append(missing, oid)
			continue
		}
		// "<oid> <path>"; a tree asked for has no path. Archive paths
		// are encoded components: no newline, never quoted.
		oid, p, _ := strings.Cut(line, " ")
		if p == "" {
			continue
		}
		if _, seen := paths[oid]; !seen {
			ids = append(ids, oid)
		}
		paths[oid] = append(paths[oid], p)
	}
	return ids, paths, missing, nil
}

// ForgetReflog expires every entry of ref's reflog (git reflog expire).
func (s *Store) ForgetReflog(ctx context.Context, ref string) error {
	_, err := s.gitWith(ctx, nil, nil, "reflog", "expire", "--expire=now", "--expire-unreachable=now", ref)
	return err
}

// Logged lists the values of ref's reflog, newest first (git reflog show):
// at most n, none when the ref keeps no reflog.
//
// git reflog show reads each entry's commit, and dies on a ref whose own
// object is gone (a month whose commit a prune took): then each entry is
// asked for on its own (git rev-parse ref@{i}), which reads the reflog
// alone, until git says the reflog has no more.
func (s *Store) Logged(ctx context.Context, ref string, n int) ([]string, error) {
	if _, err := s.gitWith(ctx, nil, nil, "reflog", "exists", ref); err != nil {
		return nil, nil // no reflog: git says so by its exit code alone
	}
	out, err := s.gitWith(ctx, nil, nil, "reflog", "show", "--no-abbrev", "--format=%H", "-n", strconv.Itoa(n), ref, "--")
	if err == nil {
		return strings.Fields(string(out)), nil
	}
	var ids []string
	for i := range n {
		out, err := s.gitWith(ctx, nil, nil, "rev-parse", "--verify", "-q", ref+"@{"+strconv.Itoa(i)+"}")
		if err != nil {
			break
		}
		ids = append(ids, strings.TrimSpace(string(out)))
	}
	return ids, nil
}

// BuildTree writes the tree through git on an index file of its own:
// read-tree, update-index --index-info, write-tree, then its TreeCommit
// (commit-tree). The index lives in a
// fresh directory under the common git dir (the same file system as the
// objects; never the user's index) and is removed afterwards.
//
// A git gc --prune=now can delete the tree write-tree just wrote before
// commit-tree names it (git's documented race of --prune=now with
// writers): commit-tree then says the tree "is not a valid object", and
// the build is made again, at most twice more. A base that reaches
// objects the repository lacks (ErrMissingObject) is not retried: it
// needs mending (archive.Mend).
func (s *Store) BuildTree(ctx context.Context, base string, entries []TreeEntry) (string, error) {
	var id string
	var err error
	for range 3 {
		id, err = s.buildTree(ctx, base, entries)
		if err == nil {
			s.holdBuilt(id, base, entries) // for a prune beside it (gcrace.go)
			return id, nil
		}
		if errors.Is(err, ErrMissingObject) || ctx.Err() != nil {
			break
		}
	}
	return "", err
}

func (s *Store) buildTree(ctx context.Context, base string, entries []TreeEntry) (string, error) {
	dir, err := os.MkdirTemp(s.commonDir, "handoff-archive-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")}
	if base != "" {
		if _, err := s.gitWith(ctx, env, nil, "read-tree", base); err != nil {
			return "", s.damaged(ctx, base, err)
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
	// A commit-encoding setting would add a header, and commit.gpgSign a
	// signature: neither may make one clone's commit differ from another's.
	out, err = s.gitWith(ctx, treeCommitEnv, nil, "-c", "i18n.commitEncoding=UTF-8", "commit-tree", "--no-gpg-sign",
		"-m", strings.TrimSuffix(TreeCommitMessage, "\n"), strings.TrimSpace(string(out)))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// damaged is err, git's failure to read tree, named as ErrMissingObject
// when the tree reaches objects the repository lacks (subtrees a git gc
// --prune=now removed while it was written), for the caller that can mend
// it (archive.Mend).
func (s *Store) damaged(ctx context.Context, tree string, err error) error {
	if missing, e := s.Missing(ctx, tree); e == nil && len(missing) > 0 {
		return fmt.Errorf("%w: tree %s reaches %d objects this repository lacks (%s first), removed by a git gc --prune=now while it was written: %v", ErrMissingObject, tree, len(missing), missing[0], err)
	}
	if _, e := s.ReadObject(ctx, tree); errors.Is(e, ErrNotFound) {
		return fmt.Errorf("%w: %s, which this repository lacks (removed by a git gc --prune=now while it was written): %v", ErrMissingObject, tree, err)
	}
	return err
}

// ListTree lists through one git ls-tree. A tree without dir lists nothing.
func (s *Store) ListTree(ctx context.Context, tree, dir string) ([]TreeEntry, error) {
	args := []string{"ls-tree", "-r", "-z", "--full-tree", tree}
	if dir != "" {
		args = append(args, "--", dir)
	}
	out, err := s.gitWith(ctx, nil, nil, args...)
	if err != nil {
		return nil, s.damaged(ctx, tree, err)
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
