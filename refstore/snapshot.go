package refstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Snapshots of uncommitted work. A snapshot is a commit (not a record
// blob): its tree is the worktree as `git add -A` would stage it (staged,
// unstaged and untracked changes, .gitignore respected), its first parent
// the HEAD it was taken on, and a second commit beside it holds what the
// index held, so applying it brings back which changes were staged. Being
// commits, snapshots survive gc on every host that fetched them, and
// refs/ao/preserved/ (another tool's) is never involved.

// SnapshotPrefix holds one snapshot per session: refs/ao/snapshots/<id>.
const SnapshotPrefix = "refs/ao/snapshots/"

// SnapshotRef names the snapshot of a session's uncommitted work.
func SnapshotRef(id string) (string, error) { return join(SnapshotPrefix, id) }

// ErrClean is returned by TakeSnapshot when there is nothing uncommitted.
var ErrClean = errors.New("nothing uncommitted")

// emptyTree is git's id of the tree with nothing in it, in the
// repository's object format.
func (s *Store) emptyTree() string {
	if s.layout.objectFormat == "sha256" {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}

// Trailers of a snapshot commit's message: what each parent is.
const (
	trailerHead     = "Snapshot-Head"
	trailerIndex    = "Snapshot-Index"
	trailerPrevious = "Snapshot-Previous"
	trailerSession  = "Snapshot-Session"
)

// Snapshot is one snapshot commit, as read back.
type Snapshot struct {
	Session  string
	Ref      string
	Commit   string    // the snapshot commit: its tree is the worktree
	Head     string    // the commit it was taken on; "" for an unborn branch
	Index    string    // the commit whose tree is what the index held
	Previous string    // the session's snapshot it replaced, if any
	When     time.Time // committer time
	// Unmerged: the index had unmerged entries when it was taken, so the
	// snapshot's index is HEAD's (nothing reads as staged).
	Unmerged bool
}

// worktreeTrees writes, without touching the user's index, the tree of
// what the index holds and the tree `git add -A` would make of the
// worktree, on a copy of the index in a temporary file.
func (s *Store) worktreeTrees(ctx context.Context, headTree string) (indexTree, wtTree string, unmerged bool, err error) {
	tmp, err := os.MkdirTemp(s.gitDir, "handoff-snapshot-")
	if err != nil {
		return "", "", false, err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	real, err := s.indexPath(ctx)
	if err != nil {
		return "", "", false, err
	}
	// A copy keeps the stat data, so git add -A hashes only what changed.
	// It keeps the index's own mtime too: git takes an entry whose file
	// changed in the same second as the index was written as possibly
	// changed ("racily clean") only by comparing with that mtime, and a
	// copy made now would hide such a change from the snapshot.
	if b, err := os.ReadFile(real); err == nil {
		if err := os.WriteFile(index, b, 0o600); err != nil {
			return "", "", false, err
		}
		if fi, err := os.Stat(real); err == nil {
			os.Chtimes(index, fi.ModTime(), fi.ModTime())
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", "", false, fmt.Errorf("reading the index: %w", err)
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	out, err := s.gitWith(ctx, env, nil, "write-tree")
	if err != nil {
		// Unmerged entries: what was staged cannot be told apart; the
		// worktree is still recorded in full.
		unmerged = true
		out = []byte(headTree)
		if _, err := s.gitWith(ctx, env, nil, "read-tree", headTree); err != nil {
			return "", "", false, err
		}
	}
	indexTree = strings.TrimSpace(string(out))
	if _, err := s.gitWith(ctx, env, nil, "add", "-A", "--ignore-errors", "--", ":/"); err != nil {
		return "", "", false, err
	}
	out, err = s.gitWith(ctx, env, nil, "write-tree")
	if err != nil {
		return "", "", false, err
	}
	return indexTree, strings.TrimSpace(string(out)), unmerged, nil
}

// TakeSnapshot records the worktree's uncommitted changes as the snapshot
// of session id, without touching the user's index or worktree: git add -A
// runs on a copy of the index in a temporary file. A worktree with nothing
// uncommitted gets no snapshot (ErrClean); an older snapshot of the session
// stays its parent, so a newer one fast-forwards the ref.
func (s *Store) TakeSnapshot(ctx context.Context, id string) (Snapshot, error) {
	if s.bare {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: a bare repository has no worktree", id)
	}
	ref, err := SnapshotRef(id)
	if err != nil {
		return Snapshot{}, err
	}
	head, err := s.revParse(ctx, "HEAD^{commit}")
	if err != nil {
		return Snapshot{}, err
	}
	headTree := s.emptyTree()
	if head != "" {
		if headTree, err = s.revParse(ctx, head+"^{tree}"); err != nil {
			return Snapshot{}, err
		}
	}
	it, wt, unmerged, err := s.worktreeTrees(ctx, headTree)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, err)
	}
	if it == headTree && wt == headTree {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, ErrClean)
	}
	prev, err := ResolveID(ctx, s, ref)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Snapshot{}, err
	}
	var parents []string
	if head != "" {
		parents = append(parents, "-p", head)
	}
	indexCommit, err := s.commitTree(ctx, it, parents, "git-handoff: index of session "+id+"\n")
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, err)
	}
	parents = append(parents, "-p", indexCommit)
	if prev != "" {
		parents = append(parents, "-p", prev)
	}
	headName := head
	if headName == "" {
		headName = "none"
	}
	msg := fmt.Sprintf("git-handoff: uncommitted work of session %s\n\n%s: %s\n%s: %s\n%s: %s\n", id,
		trailerSession, id, trailerHead, headName, trailerIndex, indexCommit)
	if prev != "" {
		msg += trailerPrevious + ": " + prev + "\n"
	}
	commit, err := s.commitTree(ctx, wt, parents, msg)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, err)
	}
	if err := s.Apply(ctx, "handoff: snapshot of "+id, Update{Ref: ref, New: commit, Old: prev}); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, err)
	}
	snap, err := s.ReadSnapshot(ctx, id)
	snap.Unmerged = unmerged
	return snap, err
}

// ReadSnapshot reads the snapshot of session id (ErrNotFound when none).
func (s *Store) ReadSnapshot(ctx context.Context, id string) (Snapshot, error) {
	ref, err := SnapshotRef(id)
	if err != nil {
		return Snapshot{}, err
	}
	commit, err := ResolveID(ctx, s, ref)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, err)
	}
	return s.readSnapshotCommit(ctx, id, ref, commit)
}

func (s *Store) readSnapshotCommit(ctx context.Context, id, ref, commit string) (Snapshot, error) {
	out, err := Git(ctx, s.workDir, false, nil, "cat-file", "commit", commit)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, err)
	}
	hdr, body, _ := strings.Cut(string(out), "\n\n")
	snap := Snapshot{Session: id, Ref: ref, Commit: commit}
	for _, l := range strings.Split(hdr, "\n") {
		if rest, ok := strings.CutPrefix(l, "committer "); ok {
			snap.When = identTime(rest)
		}
	}
	found := false
	for _, l := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		switch k {
		case trailerHead:
			found = true
			if v != "none" {
				snap.Head = v
			}
		case trailerIndex:
			snap.Index = v
		case trailerPrevious:
			snap.Previous = v
		}
	}
	if !found || !isHexID(snap.Index) || snap.Head != "" && !isHexID(snap.Head) {
		return Snapshot{}, fmt.Errorf("%w: %s (%s) is not a snapshot commit", ErrInvalidRecord, ref, short(commit))
	}
	return snap, nil
}

// identTime reads the time of "Name <email> 1700000000 +0000".
func identTime(ident string) time.Time {
	f := strings.Fields(ident)
	if len(f) < 2 {
		return time.Time{}
	}
	var sec int64
	if _, err := fmt.Sscan(f[len(f)-2], &sec); err != nil {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}

// HeadMismatchError refuses to apply a snapshot on another commit than the
// one it was taken on.
type HeadMismatchError struct {
	Snapshot, Want, Have string
}

func (e *HeadMismatchError) Error() string {
	name := func(id string) string {
		if id == "" {
			return "an unborn branch"
		}
		return short(id)
	}
	return fmt.Sprintf("snapshot %s was taken on %s, but HEAD is %s: check out %s first (nothing was changed)",
		short(e.Snapshot), name(e.Want), name(e.Have), name(e.Want))
}

// WorktreeConflictError refuses to apply a snapshot over local changes or
// files it would overwrite. Nothing was changed.
type WorktreeConflictError struct {
	Snapshot string
	Paths    []string
	Detail   string // git's own words, when git refused
}

func (e *WorktreeConflictError) Error() string {
	msg := fmt.Sprintf("snapshot %s would overwrite local changes", short(e.Snapshot))
	if len(e.Paths) > 0 {
		shown := e.Paths[:min(5, len(e.Paths))]
		msg += " in " + strings.Join(shown, ", ")
		if len(e.Paths) > len(shown) {
			msg += fmt.Sprintf(" and %d more", len(e.Paths)-len(shown))
		}
	} else if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg + " (nothing was changed; commit, stash or remove them first)"
}

func (e *WorktreeConflictError) Unwrap() error { return ErrConflict }

// Unwrap makes a different HEAD a conflict too (exit 5).
func (e *HeadMismatchError) Unwrap() error { return ErrConflict }

// Applied is what ApplySnapshot changed.
type Applied struct {
	Snapshot Snapshot
	Paths    []string // the paths the snapshot set, sorted
	Staged   int      // of them, those whose staged version was restored in the index
	Already  bool     // the worktree held it already: nothing changed
	// Rebased: HEAD had moved on from the snapshot's, and its changes
	// were merged onto HEAD (three-way, without conflicts).
	Rebased bool
}

// MergeConflictError refuses a snapshot whose changes conflict with the
// commits HEAD has moved on by. Nothing was changed.
type MergeConflictError struct {
	Snapshot, Head, Have string
	Paths                []string
}

func (e *MergeConflictError) Error() string {
	return fmt.Sprintf("snapshot %s was taken on %s; merged onto HEAD %s its changes conflict in %s (nothing was changed; check out %s to apply it there)",
		short(e.Snapshot), short(e.Head), short(e.Have), strings.Join(e.Paths[:min(5, len(e.Paths))], ", "), short(e.Head))
}

func (e *MergeConflictError) Unwrap() error { return ErrConflict }

// mergeOnto merges the changes of tree-ish side (the snapshot's worktree
// or index, taken on snap.Head) onto head, which descends from snap.Head,
// and returns the merged tree. A stand-in commit with snap.Head as its only
// parent makes snap.Head the merge base (git 2.39's merge-tree has no
// --merge-base); it is referenced by nothing.
func (s *Store) mergeOnto(ctx context.Context, snap Snapshot, side, head string) (string, error) {
	tree, err := s.revParse(ctx, side+"^{tree}")
	if err != nil {
		return "", err
	}
	c, err := s.commitTree(ctx, tree, []string{"-p", snap.Head}, "git-handoff: snapshot to merge\n")
	if err != nil {
		return "", err
	}
	out, err := Git(ctx, s.workDir, false, nil, "merge-tree", "--write-tree", "--no-messages", "--name-only", head, c)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.ExitCode() == 1 && len(lines) > 1 {
			return "", &MergeConflictError{Snapshot: snap.Commit, Head: snap.Head, Have: head, Paths: lines[1:]}
		}
		return "", fmt.Errorf("merging snapshot %s onto %s: %w", short(snap.Commit), short(head), err)
	}
	return lines[0], nil
}

// holds reports whether the worktree and index hold exactly the target
// and index trees (on base, HEAD's commit or the empty tree).
func (s *Store) holds(ctx context.Context, base, target, index string) (bool, error) {
	baseTree, err := s.revParse(ctx, base+"^{tree}")
	if err != nil {
		return false, err
	}
	tt, err := s.revParse(ctx, target+"^{tree}")
	if err != nil {
		return false, err
	}
	it, err := s.revParse(ctx, index+"^{tree}")
	if err != nil {
		return false, err
	}
	gotIndex, gotWT, _, err := s.worktreeTrees(ctx, baseTree)
	if err != nil {
		return false, err
	}
	return gotIndex == it && gotWT == tt, nil
}

// ApplySnapshot brings a snapshot's uncommitted work into this worktree,
// which must be on the commit it was taken on: files as they were, the
// index as it was for those paths (untracked files come back untracked).
// Local changes elsewhere stay. Paths with local changes, and untracked or
// ignored files the snapshot would overwrite, refuse the whole apply and
// change nothing: git's own two-tree read-tree checks every path before
// it writes one.
func (s *Store) ApplySnapshot(ctx context.Context, snap Snapshot) (Applied, error) {
	if s.bare {
		return Applied{}, fmt.Errorf("applying snapshot %s: a bare repository has no worktree", short(snap.Commit))
	}
	head, err := s.revParse(ctx, "HEAD^{commit}")
	if err != nil {
		return Applied{}, err
	}
	base := s.emptyTree()
	if head != "" {
		base = head
	}
	// What to move the worktree and the index to: the snapshot's own
	// trees on its HEAD; on a HEAD that has moved on from it, the trees
	// of a three-way merge of its changes onto HEAD, refused on any
	// conflict before anything is written.
	target, index := snap.Commit, snap.Index
	rebased := false
	if head != snap.Head {
		if snap.Head == "" || head == "" {
			return Applied{}, &HeadMismatchError{Snapshot: snap.Commit, Want: snap.Head, Have: head}
		}
		if ok, err := s.IsAncestor(ctx, snap.Head, head); err != nil {
			return Applied{}, err
		} else if !ok {
			return Applied{}, &HeadMismatchError{Snapshot: snap.Commit, Want: snap.Head, Have: head}
		}
		if target, err = s.mergeOnto(ctx, snap, snap.Commit, head); err != nil {
			return Applied{}, err
		}
		if index, err = s.mergeOnto(ctx, snap, snap.Index, head); err != nil {
			return Applied{}, err
		}
		rebased = true
	}
	changed, err := s.diffPaths(ctx, base, target)
	if err != nil {
		return Applied{}, err
	}
	staged, err := s.diffPaths(ctx, base, index)
	if err != nil {
		return Applied{}, err
	}
	all := union(changed, staged)
	res := Applied{Snapshot: snap, Paths: all, Rebased: rebased}
	if len(all) == 0 {
		return res, nil
	}
	// Applied already (here, or this is where it was taken): nothing to do.
	if ok, err := s.holds(ctx, base, target, index); err != nil {
		return Applied{}, err
	} else if ok {
		res.Already = true
		return res, nil
	}
	if conflicts, err := s.localChanges(ctx, all); err != nil {
		return Applied{}, err
	} else if len(conflicts) > 0 {
		return Applied{}, &WorktreeConflictError{Snapshot: snap.Commit, Paths: conflicts}
	}
	// The move from HEAD's tree to the snapshot's, as a checkout makes it:
	// refused as a whole when it would overwrite anything not committed.
	if _, err := Git(ctx, s.workDir, false, nil, "read-tree", "-m", "-u", base, target); err != nil {
		var ge *GitError
		if errors.As(err, &ge) {
			return Applied{}, &WorktreeConflictError{Snapshot: snap.Commit, Detail: strings.TrimSpace(firstLines(ge.Stderr, 3))}
		}
		return Applied{}, err
	}
	// Then the index of those paths as it was: staged changes staged,
	// unstaged ones and untracked files not.
	info, err := s.indexInfo(ctx, target, index)
	if err != nil {
		return res, fmt.Errorf("applying snapshot %s: the files are in place, the index holds them all as staged: %w", short(snap.Commit), err)
	}
	if len(info) > 0 {
		if _, err := Git(ctx, s.workDir, false, info, "update-index", "-z", "--index-info"); err != nil {
			return res, fmt.Errorf("applying snapshot %s: the files are in place, the index holds them all as staged: %w", short(snap.Commit), err)
		}
	}
	// Entries written from ids carry no stat data: refresh them, so an
	// unchanged file does not read as modified.
	Git(ctx, s.workDir, false, nil, "update-index", "-q", "--refresh")
	res.Staged = len(staged)
	return res, nil
}

// SnapshotPresent reports whether this worktree holds the snapshot's work
// already, exactly: on its HEAD, with the same files and the same staged
// changes (where it was taken, or after it was applied).
func (s *Store) SnapshotPresent(ctx context.Context, snap Snapshot) (bool, error) {
	if s.bare {
		return false, nil
	}
	head, err := s.revParse(ctx, "HEAD^{commit}")
	if err != nil || head != snap.Head {
		return false, err
	}
	snapTree, err := s.revParse(ctx, snap.Commit+"^{tree}")
	if err != nil {
		return false, err
	}
	idxTree, err := s.revParse(ctx, snap.Index+"^{tree}")
	if err != nil {
		return false, err
	}
	baseTree := s.emptyTree()
	if head != "" {
		if baseTree, err = s.revParse(ctx, head+"^{tree}"); err != nil {
			return false, err
		}
	}
	it, wt, _, err := s.worktreeTrees(ctx, baseTree)
	if err != nil {
		return false, err
	}
	return it == idxTree && wt == snapTree, nil
}

// FindSnapshot reads the snapshot of session id: this clone's, else the
// newest copy a plain `git fetch` brought from any remote (ErrNotFound
// when there is none).
func (s *Store) FindSnapshot(ctx context.Context, id string) (Snapshot, error) {
	snap, err := s.ReadSnapshot(ctx, id)
	if !errors.Is(err, ErrNotFound) {
		return snap, err
	}
	enc, eerr := EncodeComponent(id)
	if eerr != nil {
		return Snapshot{}, eerr
	}
	copies, lerr := s.remoteCopies(ctx, strings.TrimPrefix(SnapshotPrefix, Root)+enc)
	if lerr != nil {
		return Snapshot{}, lerr
	}
	var best Snapshot
	for ref, commit := range copies {
		c, err := s.readSnapshotCommit(ctx, id, ref, commit)
		if err != nil {
			continue
		}
		if best.Commit == "" || c.When.After(best.When) || c.When.Equal(best.When) && c.Commit > best.Commit {
			best = c
		}
	}
	if best.Commit == "" {
		return Snapshot{}, err
	}
	return best, nil
}

// diffPaths lists the paths that differ between two trees (no renames).
func (s *Store) diffPaths(ctx context.Context, a, b string) ([]string, error) {
	out, err := Git(ctx, s.workDir, false, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b, "--")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// localChanges lists which of paths have changes of their own here
// (staged, unstaged, untracked) or are on disk ignored where the snapshot
// would put a file.
func (s *Store) localChanges(ctx context.Context, paths []string) ([]string, error) {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	out, err := Git(ctx, s.workDir, false, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames")
	if err != nil {
		return nil, fmt.Errorf("reading the worktree's status: %w", err)
	}
	var hits []string
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) < 4 {
			continue
		}
		p := e[3:]
		if want[p] {
			hits = append(hits, p)
			continue
		}
		// An untracked or ignored directory is listed once, with a slash.
		if strings.HasSuffix(p, "/") {
			for q := range want {
				if strings.HasPrefix(q, p) {
					hits = append(hits, q)
				}
			}
		}
	}
	sort.Strings(hits)
	return hits, nil
}

// indexInfo builds update-index --index-info input that gives every path
// where the worktree tree and the index tree differ its index version
// (or none: an untracked file).
func (s *Store) indexInfo(ctx context.Context, wt, idx string) ([]byte, error) {
	out, err := Git(ctx, s.workDir, false, nil, "diff-tree", "-r", "-z", "--no-renames", wt, idx, "--")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	zero := s.zeroID()
	f := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		// ":<old mode> <new mode> <old id> <new id> <status>" then the path
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		if len(meta) < 5 {
			return nil, fmt.Errorf("unexpected diff-tree output %q", f[i])
		}
		path := f[i+1]
		if meta[4] == "D" {
			fmt.Fprintf(&b, "0 %s\t%s\x00", zero, path)
		} else {
			fmt.Fprintf(&b, "%s %s\t%s\x00", meta[1], meta[3], path)
		}
	}
	return b.Bytes(), nil
}

// revParse resolves name to an id, "" when it does not exist.
func (s *Store) revParse(ctx context.Context, name string) (string, error) {
	out, err := Git(ctx, s.workDir, false, nil, "rev-parse", "-q", "--verify", name)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.ExitCode() == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// indexPath is this worktree's index file (GIT_INDEX_FILE honoured).
func (s *Store) indexPath(ctx context.Context) (string, error) {
	out, err := Git(ctx, s.workDir, false, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// commitTree writes a commit, with a stand-in identity when the user has
// none configured: a snapshot must not fail for want of user.email.
func (s *Store) commitTree(ctx context.Context, tree string, parents []string, msg string) (string, error) {
	args := append(append([]string{"commit-tree", "--no-gpg-sign"}, parents...), tree)
	out, err := s.gitWith(ctx, nil, []byte(msg), args...)
	if err != nil {
		if _, ierr := Git(ctx, s.workDir, false, nil, "var", "GIT_COMMITTER_IDENT"); ierr == nil {
			return "", err
		}
		out, err = s.gitWith(ctx, []string{
			"GIT_AUTHOR_NAME=git-handoff", "GIT_AUTHOR_EMAIL=git-handoff@localhost",
			"GIT_COMMITTER_NAME=git-handoff", "GIT_COMMITTER_EMAIL=git-handoff@localhost",
		}, []byte(msg), args...)
		if err != nil {
			return "", err
		}
	}
	return strings.TrimSpace(string(out)), nil
}

// gitWith runs git in the worktree with env added to (and overriding) ours.
func (s *Store) gitWith(ctx context.Context, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = s.workDir
	cmd.Env = append(os.Environ(), env...)
	inOwnGroup(cmd) // as runGit's
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), &GitError{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.Bytes(), nil
}

// SnapshotRefs lists the snapshot refs under prefix (SnapshotPrefix, or a
// remote's copies) with the commit each names.
func (s *Store) SnapshotRefs(ctx context.Context, prefix string) (map[string]string, error) {
	out, err := Git(ctx, s.workDir, false, nil, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ref, id, ok := strings.Cut(l, " ")
		if ok {
			refs[ref] = id
		}
	}
	return refs, nil
}

// remoteCopies returns the refs refs/ao/remotes/<remote>/<tail> there
// are, for every remote configured here: one read each through the
// store's cat-file, where a listing would start another git (a start
// after a session that left no snapshot here asks this every time).
func (s *Store) remoteCopies(ctx context.Context, tail string) (map[string]string, error) {
	remotes, err := s.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	for _, r := range remotes {
		ref := RemotesPrefix + r + "/" + tail
		e, err := s.Get(ctx, ref)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrBadName) {
			continue
		}
		if err != nil {
			return nil, err
		}
		refs[ref] = e.OID
	}
	return refs, nil
}

func isHexID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// IsAncestor reports whether commit a is b or an ancestor of b.
func (s *Store) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := Git(ctx, s.workDir, false, nil, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode() == 1 {
		return false, nil
	}
	return false, err
}

// CommitTime is a commit's committer time.
func (s *Store) CommitTime(ctx context.Context, id string) (time.Time, error) {
	out, err := Git(ctx, s.workDir, false, nil, "show", "-s", "--format=%ct", id)
	if err != nil {
		return time.Time{}, err
	}
	var sec int64
	fmt.Sscan(string(out), &sec)
	return time.Unix(sec, 0).UTC(), nil
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range [][]string{a, b} {
		for _, p := range l {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[:min(n, len(lines))], " / ")
}
