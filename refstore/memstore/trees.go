package memstore

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/git-handoff/git-handoff/refstore"
)

// Trees in memory (refstore.Trees): tree objects encoded as git encodes
// them, so that their ids are the ids git gives the same trees (mode,
// name, NUL, raw id per entry, entries in git's order), kept beside the
// blobs and read back as git's cat-file reads them (Type "tree", the raw
// tree as Data). BuildTree answers with the tree's TreeCommit, written as
// git commit-tree writes it, and a commit stands for its tree wherever a
// tree is read.

var _ refstore.Trees = (*Store)(nil)

// Modes of tree entries, as git writes them.
const (
	modeBlob = "100644"
	modeTree = "40000"
)

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode, name, oid string
}

// leaf is a non-tree entry at a full path, a tree flattened.
type leaf struct {
	mode, oid string
}

// typedID hashes an object as git does: "<type> <size>\x00" and the content.
func (s *Store) typedID(typ string, data []byte) string {
	h := hash.New(s.crypto)
	h.Write([]byte(typ))
	h.Write([]byte(" "))
	h.Write([]byte(strconv.Itoa(len(data))))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeTree is the content of the tree of entries, sorted as git sorts
// them: by name, a tree's name compared as if it ended in '/'.
func (s *Store) encodeTree(entries []treeEntry) ([]byte, error) {
	key := func(e treeEntry) string {
		if e.mode == modeTree {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	var b bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e.oid)
		if err != nil || len(e.oid) != s.hexLen() {
			return nil, fmt.Errorf("memstore: tree entry %s: %q is not an object id", e.name, e.oid)
		}
		b.WriteString(e.mode)
		b.WriteByte(' ')
		b.WriteString(e.name)
		b.WriteByte(0)
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// decodeTree reads the entries of a tree object's content.
// treeOf is the entries of the tree object id (whose content is data),
// decoded once: an object never changes, and its id names its content in
// every store, so the decoded entries are kept by id for all stores (a
// long simulation decodes the growing archive's trees thousands of times).
// The entries are shared: read them, never change them.
func (s *Store) treeOf(id string, data []byte) ([]treeEntry, error) {
	if e, ok := decodedTrees.Load(id); ok {
		return e.([]treeEntry), nil
	}
	entries, err := s.decodeTree(data)
	if err != nil {
		return nil, err
	}
	if decodedCount.Add(1) > maxDecodedTrees {
		decodedTrees.Clear()
		decodedCount.Store(1)
	}
	decodedTrees.Store(id, entries)
	return entries, nil
}

var (
	decodedTrees sync.Map // tree id -> []treeEntry
	decodedCount atomic.Int64
)

// maxDecodedTrees bounds decodedTrees: past it the cache starts again.
const maxDecodedTrees = 20000

func (s *Store) decodeTree(data []byte) ([]treeEntry, error) {
	n := s.hexLen() / 2
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+n {
			return nil, fmt.Errorf("memstore: corrupt tree object")
		}
		out = append(out, treeEntry{
			mode: string(data[:sp]),
			name: string(data[sp+1 : nul]),
			oid:  hex.EncodeToString(data[nul+1 : nul+1+n]),
		})
		data = data[nul+1+n:]
	}
	return out, nil
}

// writeTree stores a tree object and returns its id. The caller holds s.mu.
func (s *Store) writeTree(entries []treeEntry) (string, error) {
	data, err := s.encodeTree(entries)
	if err != nil {
		return "", err
	}
	id := s.typedID("tree", data)
	if _, ok := s.objects[id]; !ok {
		s.objects[id] = data
		s.types[id] = "tree"
	}
	return id, nil
}

// writeTreeCommit stores the TreeCommit of tree (refstore.TreeCommitIdent)
// and returns its id: the content git commit-tree writes for it, so that
// the id is git's. The caller holds s.mu.
func (s *Store) writeTreeCommit(tree string) string {
	data := []byte("tree " + tree + "\nauthor " + refstore.TreeCommitIdent + "\ncommitter " +
		refstore.TreeCommitIdent + "\n\n" + refstore.TreeCommitMessage)
	id := s.typedID("commit", data)
	if _, ok := s.objects[id]; !ok {
		s.objects[id] = data
		s.types[id] = "commit"
	}
	return id
}

// peel is the tree id names: id itself, or the tree of a commit (its
// first line, "tree <id>"); ok is false for a commit that names none.
func (s *Store) peel(id string) (string, bool) {
	if s.typeOf(id) != "commit" {
		return id, true
	}
	first, _, _ := strings.Cut(string(s.objects[id]), "\n")
	tree, ok := strings.CutPrefix(first, "tree ")
	return tree, ok && refstore.IsID(tree, s.hexLen())
}

// writeLeaves writes the trees of leaves (full path -> entry), the
// subtrees first, and returns the id of the top one. The caller holds s.mu.
func (s *Store) writeLeaves(leaves map[string]leaf) (string, error) {
	var entries []treeEntry
	subs := map[string]map[string]leaf{}
	for p, l := range leaves {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if subs[dir] == nil {
				subs[dir] = map[string]leaf{}
			}
			subs[dir][rest] = l
			continue
		}
		entries = append(entries, treeEntry{mode: l.mode, name: p, oid: l.oid})
	}
	dirs := make([]string, 0, len(subs))
	for d := range subs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		id, err := s.writeLeaves(subs[d])
		if err != nil {
			return "", err
		}
		entries = append(entries, treeEntry{mode: modeTree, name: d, oid: id})
	}
	return s.writeTree(entries)
}

// flatten adds to leaves every non-tree entry of the tree id, by full
// path under prefix. The caller holds s.mu.
func (s *Store) flatten(id, prefix string, leaves map[string]leaf) error {
	if s.typeOf(id) != "tree" {
		return fmt.Errorf("%s: not a tree object", id)
	}
	entries, err := s.treeOf(id, s.objects[id])
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.mode == modeTree {
			if _, ok := s.objects[e.oid]; !ok {
				return fmt.Errorf("%s%s: tree %s: %w", prefix, e.name, e.oid, refstore.ErrMissingObject)
			}
			if err := s.flatten(e.oid, prefix+e.name+"/", leaves); err != nil {
				return err
			}
			continue
		}
		leaves[prefix+e.name] = leaf{mode: e.mode, oid: e.oid}
	}
	return nil
}

// resolveTreeish is the id of the object treeish names (a full id or a
// ref): ErrNotFound when there is none, ErrBadName for a treeish that is
// neither. The caller holds s.mu.
func (s *Store) resolveTreeish(treeish string) (string, error) {
	id := treeish
	if refstore.IsID(treeish, s.hexLen()) {
		if _, ok := s.objects[treeish]; !ok {
			return "", fmt.Errorf("%s: %w", treeish, refstore.ErrNotFound)
		}
	} else {
		if err := refstore.CheckRef(treeish); err != nil {
			return "", err
		}
		var ok bool
		if id, ok = s.refs[treeish]; !ok {
			return "", fmt.Errorf("%s: %w", treeish, refstore.ErrNotFound)
		}
		if _, ok := s.objects[id]; !ok {
			return "", fmt.Errorf("%s: %s: %w", treeish, id, refstore.ErrMissingObject)
		}
	}
	// A commit stands for its tree, as in git's "<commit>:<path>".
	tree, ok := s.peel(id)
	if !ok {
		return "", fmt.Errorf("%s: %s: %w", treeish, id, refstore.ErrNotFound)
	}
	if _, ok := s.objects[tree]; !ok {
		return "", fmt.Errorf("%s: tree %s: %w", treeish, tree, refstore.ErrMissingObject)
	}
	return tree, nil
}

// checkTreePath refuses a path git would not take as one in a tree:
// empty components, ".", "..", ".git" (in any case), control characters.
// (The git store's ReadPath refuses the same but ".git"; its BuildTree
// leaves the rest to git update-index.)
func checkTreePath(path string, dotgit bool) error {
	if path == "" {
		return fmt.Errorf("%w: empty path", refstore.ErrBadName)
	}
	for _, c := range strings.Split(path, "/") {
		if c == "" || c == "." || c == ".." || dotgit && strings.EqualFold(c, ".git") {
			return fmt.Errorf("%w: path %q has an empty, \".\", \"..\" or \".git\" component", refstore.ErrBadName, path)
		}
		for i := 0; i < len(c); i++ {
			if c[i] < 0x20 || c[i] == 0x7f {
				return fmt.Errorf("%w: path %q has a control character", refstore.ErrBadName, path)
			}
		}
	}
	return nil
}

// BuildTree writes the tree of base ("" for none: a tree id, or a ref
// that names one) with entries put in as blobs (mode 100644), moving no
// ref (refstore.Trees). As git update-index puts them in an index, an
// entry replaces what base holds at its path, a file where a directory
// was and a directory where a file was; of two entries for one path the
// later wins. Every entry must name a blob the store has, as git
// write-tree requires.
func (s *Store) BuildTree(ctx context.Context, base string, entries []refstore.TreeEntry) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	for _, e := range entries {
		if err := checkTreePath(e.Path, true); err != nil {
			return "", err
		}
		if !refstore.IsID(e.OID, s.hexLen()) {
			return "", fmt.Errorf("%w: %s: %q is not an object id", refstore.ErrBadName, e.Path, e.OID)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	leaves := map[string]leaf{}
	if base != "" {
		id, err := s.resolveTreeish(base)
		if err != nil {
			return "", fmt.Errorf("reading tree %s: %w", base, err)
		}
		if err := s.flatten(id, "", leaves); err != nil {
			return "", fmt.Errorf("reading tree %s: %w", base, err)
		}
	}
	for _, e := range entries {
		if _, ok := s.objects[e.OID]; !ok {
			return "", fmt.Errorf("%s: %s: %w", e.Path, e.OID, refstore.ErrMissingObject)
		}
		if t := s.typeOf(e.OID); t != "blob" {
			return "", fmt.Errorf("%s: %s is a %s, not a blob", e.Path, e.OID, t)
		}
		// A file where a directory was, or under a path that was a file.
		for p := range leaves {
			if strings.HasPrefix(p, e.Path+"/") || strings.HasPrefix(e.Path, p+"/") {
				delete(leaves, p)
			}
		}
		leaves[e.Path] = leaf{mode: modeBlob, oid: e.OID}
	}
	tree, err := s.writeLeaves(leaves)
	if err != nil {
		return "", err
	}
	return s.writeTreeCommit(tree), nil
}

// ListTree lists the blobs of tree (a tree id, or a ref that names one),
// recursively, in path order, under dir ("" for all: the path dir itself,
// or paths below it; no pattern) (refstore.Trees).
func (s *Store) ListTree(ctx context.Context, tree, dir string) ([]refstore.TreeEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, err := s.resolveTreeish(tree)
	if err != nil {
		return nil, fmt.Errorf("listing tree %s: %w", tree, err)
	}
	leaves := map[string]leaf{}
	if err := s.flatten(id, "", leaves); err != nil {
		return nil, fmt.Errorf("listing tree %s: %w", tree, err)
	}
	dir = strings.TrimSuffix(dir, "/")
	var out []refstore.TreeEntry
	for p, l := range leaves {
		if l.mode == "160000" { // a submodule's commit: not a blob
			continue
		}
		if dir == "" || p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, refstore.TreeEntry{Path: p, OID: l.oid})
		}
	}
	// Full paths in byte order are git's recursive tree order.
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// ReadPath reads the object at path inside treeish (a ref or a full id),
// as `git cat-file -p <treeish>:<path>` would (refstore.Trees): the Entry's
// Ref is "<treeish>:<path>". ErrNotFound when the ref, the tree or the
// path is missing; ErrBadName for a treeish that is neither a ref nor an
// id, or a path that is not plain.
func (s *Store) ReadPath(ctx context.Context, treeish, path string) (refstore.Entry, error) {
	rev := treeish + ":" + path
	if !refstore.IsID(treeish, s.hexLen()) {
		if err := refstore.CheckRef(treeish); err != nil {
			return refstore.Entry{Ref: rev}, err
		}
	}
	if err := checkTreePath(path, false); err != nil {
		return refstore.Entry{Ref: rev}, err
	}
	if err := ctx.Err(); err != nil {
		return refstore.Entry{Ref: rev}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	notFound := fmt.Errorf("%s: %w", rev, refstore.ErrNotFound)
	id, err := s.resolveTreeish(treeish)
	if err != nil {
		return refstore.Entry{Ref: rev}, notFound
	}
	for _, name := range strings.Split(path, "/") {
		if s.typeOf(id) != "tree" {
			return refstore.Entry{Ref: rev}, notFound
		}
		entries, err := s.treeOf(id, s.objects[id])
		if err != nil {
			return refstore.Entry{Ref: rev}, err
		}
		next := ""
		for _, e := range entries {
			if e.name == name {
				next = e.oid
				break
			}
		}
		if _, ok := s.objects[next]; !ok {
			return refstore.Entry{Ref: rev}, notFound
		}
		id = next
	}
	return s.entry(rev, id)
}

// closure adds to ids every object id reaches that the store has: id
// itself and, for a tree, its entries, recursively. The caller holds s.mu.
func (s *Store) closure(id string, ids map[string]bool) {
	if ids[id] {
		return
	}
	if _, ok := s.objects[id]; !ok {
		return
	}
	ids[id] = true
	if s.typeOf(id) == "commit" {
		if tree, ok := s.peel(id); ok {
			s.closure(tree, ids)
		}
		return
	}
	if s.typeOf(id) != "tree" {
		return
	}
	entries, err := s.treeOf(id, s.objects[id])
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.mode != "160000" {
			s.closure(e.oid, ids)
		}
	}
}
