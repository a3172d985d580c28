package memstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// A Clone is one worktree of a repository in memory: every role of a
// refstore.Clone. The records, configuration, notes, signer and trees are
// its Store's, shared by every worktree of the repository; HEAD, the
// session binding, the worktree's own notes and what changed in its files
// are the worktree's; commits and branches are the repository's, set by
// the test (there are no files and no real commits: a commit here is a
// made-up id with its parents, dates, subject and trailers). The remotes
// are a Network's (remote.go).
type Clone struct {
	*Store
	dir   string
	net   *Network
	repo  *repository
	local *Notes // the worktree's own notes (WorktreeLocal)

	mu      sync.Mutex
	head    refstore.Head
	binding string           // the session ref refs/worktree/ao/session names, "" for none
	changed map[string]int64 // path -> when it last changed (Unix ns), for paths that differ from HEAD
}

var _ refstore.Clone = (*Clone)(nil)

// repository is what the worktrees of one Store share beside records:
// which worktrees there are, the commits, the branches.
type repository struct {
	mu        sync.Mutex
	nonces    uint64 // Nonce's calls so far
	worktrees map[string]*Clone
	commits   map[string]*CommitInfo
	seq       map[string]int    // commit -> the order it was added in
	branches  map[string]string // branch name -> commit
	remotes   map[string]string // remote-tracking branch ("origin/main") -> commit
}

// repository is s's, made on first use. Lock order: repository.mu, then
// Clone.mu, then Store.mu; no two stores' locks at once.
func (s *Store) repository() *repository {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repo == nil {
		s.repo = &repository{
			worktrees: map[string]*Clone{},
			commits:   map[string]*CommitInfo{},
			seq:       map[string]int{},
			branches:  map[string]string{},
			remotes:   map[string]string{},
		}
	}
	return s.repo
}

// NewClone makes the worktree at dir (an absolute, clean path such as
// "/mem/alice", where nothing is on disk) of s's repository, reaching its
// remotes through net (nil: none can be reached). HEAD is on the unborn
// branch main. Two worktrees of one repository cannot share a dir.
func NewClone(s *Store, dir string, net *Network) (*Clone, error) {
	if !strings.HasPrefix(dir, "/") || path.Clean(dir) != dir {
		return nil, fmt.Errorf("memstore: worktree %q: want an absolute, clean path", dir)
	}
	repo := s.repository()
	repo.mu.Lock()
	defer repo.mu.Unlock()
	if _, ok := repo.worktrees[dir]; ok {
		return nil, fmt.Errorf("memstore: %s is already a worktree of the repository", dir)
	}
	c := &Clone{Store: s, dir: dir, net: net, repo: repo, local: NewLocal(path.Join(dir, ".git", "handoff")), head: refstore.Head{Branch: "main"}, changed: map[string]int64{}}
	repo.worktrees[dir] = c
	return c, nil
}

// Network is the network the clone reaches its remotes through (nil for none).
func (c *Clone) Network() *Network { return c.net }

// Dir is where the worktree is: the path it was made with.
func (c *Clone) Dir() string { return c.dir }

// Bare is false: a Clone is a worktree.
func (c *Clone) Bare() bool { return false }

// Close does nothing: a Clone holds no process.
func (c *Clone) Close() error { return nil }

// WorktreeLocal is the worktree's own notes (refstore.Worktree).
func (c *Clone) WorktreeLocal() refstore.Local { return c.local }

// Get reads the record at ref (refstore.Records), the binding
// refs/worktree/ao/session included, resolved as git resolves the
// symbolic ref: the record of the session it names.
func (c *Clone) Get(ctx context.Context, ref string) (refstore.Entry, error) {
	if ref != refstore.WorktreeSession {
		return c.Store.Get(ctx, ref)
	}
	c.mu.Lock()
	bound := c.binding
	c.mu.Unlock()
	if bound == "" {
		return refstore.Entry{Ref: ref}, fmt.Errorf("%s: %w", ref, refstore.ErrNotFound)
	}
	e, err := c.Store.Get(ctx, bound)
	e.Ref = ref
	return e, err
}

// Head is what the worktree's HEAD says (refstore.Worktree): the branch
// main, unborn, until SetHead.
func (c *Clone) Head(ctx context.Context) (refstore.Head, error) {
	if err := ctx.Err(); err != nil {
		return refstore.Head{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head, nil
}

// SetHead points the worktree's HEAD at h: a branch ("" detached) and a
// commit of the repository ("" unborn), which the branch then holds.
func (c *Clone) SetHead(h refstore.Head) error {
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	if h.Commit != "" && c.repo.commits[h.Commit] == nil {
		return fmt.Errorf("memstore: HEAD at %s: no such commit", h.Commit)
	}
	if h.Branch != "" && h.Commit != "" {
		c.repo.branches[h.Branch] = h.Commit
	}
	c.mu.Lock()
	c.head = h
	c.mu.Unlock()
	return nil
}

// BoundSession is the id of the session the worktree is bound to, "" for
// none (refstore.Worktree; the git store's reads the binding's target
// under refs/ao/sessions/ alike).
func (c *Clone) BoundSession() (string, error) {
	c.mu.Lock()
	bound := c.binding
	c.mu.Unlock()
	if bound == "" {
		return "", nil
	}
	parts, err := refstore.SplitRef(bound, refstore.SessionPrefix, 1)
	if err != nil {
		return "", err
	}
	return parts[0], nil
}

// Bind points the worktree's binding at sessionRef (refstore.Worktree):
// a ref name git accepts, as git symbolic-ref requires.
func (c *Clone) Bind(sessionRef string) error {
	if err := refstore.CheckRef(sessionRef); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.binding = sessionRef
	return nil
}

// Unbind removes the binding; none is fine (refstore.Worktree).
func (c *Clone) Unbind(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.binding = ""
	return nil
}

// UnbindFrom removes the binding only while it resolves to the record
// blob session: the session ref it names holds that id, as the git
// store's no-deref delete with session for the old value requires
// (refstore.Worktree). Bound elsewhere, to a session whose record has
// moved on or is gone, or not at all: false, and no error.
func (c *Clone) UnbindFrom(ctx context.Context, msg, session string) (bool, error) {
	if session == "" {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	// Store.mu is taken while c.mu is held, nowhere the other way round.
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.binding == "" {
		return false, nil
	}
	c.Store.mu.RLock()
	cur := c.Store.refs[c.binding]
	c.Store.mu.RUnlock()
	if cur != session {
		return false, nil
	}
	c.binding = ""
	return true, nil
}

// MarkChanged records that the file at path (slash-separated, relative
// to the worktree) differs from HEAD and was last changed at: an edit, a
// new file, a deletion alike.
func (c *Clone) MarkChanged(path string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changed[path] = at.UnixNano()
}

// MarkClean forgets every change: the worktree is HEAD's again (a commit
// of everything, a reset).
func (c *Clone) MarkClean() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changed = map[string]int64{}
}

// WorktreeChangedSince reports whether a path marked changed (MarkChanged)
// outside the directories skip names ("dir/", matched as a prefix, as the
// git store matches them) changed after since, Unix ns (refstore.Worktree).
func (c *Clone) WorktreeChangedSince(ctx context.Context, since int64, skip ...string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, at := range c.changed {
		skipped := false
		for _, d := range skip {
			if strings.HasPrefix(p, d) {
				skipped = true
			}
		}
		if !skipped && at > since {
			return true, nil
		}
	}
	return false, nil
}

// WorktreeDigest names the worktree's changes: the paths marked changed
// with when each changed, so that a second change of a changed path
// changes it too; a clean worktree has the digest of nothing, as the git
// store's (refstore.Worktree).
func (c *Clone) WorktreeDigest(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	paths := make([]string, 0, len(c.changed))
	for p := range c.changed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%d\x00", p, c.changed[p])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// AddWorktree makes a linked worktree of the repository at path with
// branch checked out (refstore.Worktree), as git worktree add does: path
// absolute and not a worktree already, branch one the repository has
// (SetBranch, SetHead) and checked out in no other worktree.
func (c *Clone) AddWorktree(ctx context.Context, dir, branch string) error {
	if dir == "" || !strings.HasPrefix(dir, "/") {
		return fmt.Errorf("re-creating worktree %q: the path must be absolute", dir)
	}
	if branch == "" || strings.HasPrefix(branch, "-") {
		return fmt.Errorf("re-creating worktree %s: %w: branch %q", dir, refstore.ErrBadName, branch)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir = path.Clean(dir)
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	if _, ok := c.repo.worktrees[dir]; ok {
		return fmt.Errorf("re-creating worktree %s: it already exists", dir)
	}
	commit, ok := c.repo.branches[branch]
	if !ok {
		return fmt.Errorf("re-creating worktree %s: invalid reference: %s", dir, branch)
	}
	for _, d := range sortedKeys(c.repo.worktrees) {
		w := c.repo.worktrees[d]
		w.mu.Lock()
		b := w.head.Branch
		w.mu.Unlock()
		if b == branch {
			return fmt.Errorf("re-creating worktree %s: %q is already checked out at %s", dir, branch, d)
		}
	}
	c.repo.worktrees[dir] = &Clone{Store: c.Store, dir: dir, net: c.net, repo: c.repo, local: NewLocal(path.Join(dir, ".git", "handoff")),
		head: refstore.Head{Branch: branch, Commit: commit}, changed: map[string]int64{}}
	return nil
}

// RemoveWorktree forgets the worktree at dir, as if its directory had
// been deleted (git then prunes it): OpenWorktree no longer finds it. It
// reports whether there was one.
func (c *Clone) RemoveWorktree(dir string) bool {
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	_, ok := c.repo.worktrees[dir]
	delete(c.repo.worktrees, dir)
	return ok
}

// OpenWorktree opens the worktree of the repository at dir
// (refstore.Worktree): c itself for its own dir, another worktree of the
// repository (NewClone on the same Store, AddWorktree), nil for any other
// dir or one removed. done does nothing.
func (c *Clone) OpenWorktree(ctx context.Context, dir string) (refstore.Clone, func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, func() {}, err
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	w, ok := c.repo.worktrees[dir]
	if dir == "" || !ok {
		return nil, func() {}, nil
	}
	return w, func() {}, nil
}

// Worktrees lists the dirs of the repository's worktrees, sorted.
func (c *Clone) Worktrees() []string {
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	return sortedKeys(c.repo.worktrees)
}

// CommitInfo is a commit of the repository's made-up history: no tree
// and no object (ReadObject does not find it), what Log, TrailerLog,
// IsAncestor, CommitTime and RemoteTracking read.
type CommitInfo struct {
	ID        string   // "" for AddCommit to make one up from the rest
	Parents   []string // the first parent first
	Author    string
	Subject   string
	When      time.Time // the author date
	Committed time.Time // the committer date; When when zero
	Trailers  []string  // the message's trailers, "Key: value" each
}

// AddCommit adds a commit whose parents the repository has, and returns
// its id: c.ID, or an id of the store's format made from the rest.
func (c *Clone) AddCommit(ci CommitInfo) (string, error) {
	if ci.Committed.IsZero() {
		ci.Committed = ci.When
	}
	ci.Parents = append([]string(nil), ci.Parents...)
	ci.Trailers = append([]string(nil), ci.Trailers...)
	if ci.ID == "" {
		desc := fmt.Sprintf("parents %q\nauthor %q %d\ncommitter %d\n\n%s\n\n%s", ci.Parents, ci.Author, ci.When.UnixNano(), ci.Committed.UnixNano(), ci.Subject, strings.Join(ci.Trailers, "\n"))
		ci.ID = c.typedID("commit", []byte(desc))
	}
	if !refstore.IsID(ci.ID, c.hexLen()) {
		return "", fmt.Errorf("memstore: commit id %q: want %d hex digits", ci.ID, c.hexLen())
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	if _, ok := c.repo.commits[ci.ID]; ok {
		return "", fmt.Errorf("memstore: commit %s exists", ci.ID)
	}
	for _, p := range ci.Parents {
		if c.repo.commits[p] == nil {
			return "", fmt.Errorf("memstore: commit %s: no parent %s", ci.ID, p)
		}
	}
	c.repo.commits[ci.ID] = &ci
	c.repo.seq[ci.ID] = len(c.repo.seq)
	return ci.ID, nil
}

// CommitOnHead adds a commit whose parent is HEAD's commit (none on an
// unborn branch) and moves HEAD, and its branch, to it.
func (c *Clone) CommitOnHead(ci CommitInfo) (string, error) {
	c.mu.Lock()
	h := c.head
	c.mu.Unlock()
	ci.Parents = nil
	if h.Commit != "" {
		ci.Parents = []string{h.Commit}
	}
	id, err := c.AddCommit(ci)
	if err != nil {
		return "", err
	}
	return id, c.SetHead(refstore.Head{Branch: h.Branch, Commit: id})
}

// SetBranch points the repository's branch name at commit ("" deletes it).
func (c *Clone) SetBranch(name, commit string) error {
	return c.setTip(c.repo.branches, name, commit)
}

// SetRemoteBranch points the remote-tracking branch name
// (refs/remotes/<name>, as "origin/main") at commit ("" deletes it).
func (c *Clone) SetRemoteBranch(name, commit string) error {
	return c.setTip(c.repo.remotes, name, commit)
}

func (c *Clone) setTip(tips map[string]string, name, commit string) error {
	if err := refstore.CheckRef("refs/heads/" + name); err != nil {
		return err
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	if commit == "" {
		delete(tips, name)
		return nil
	}
	if c.repo.commits[commit] == nil {
		return fmt.Errorf("memstore: %s at %s: no such commit", name, commit)
	}
	tips[name] = commit
	return nil
}

// resolve is the commit name names: HEAD, a commit id, a branch (short,
// or under refs/heads/), a remote-tracking branch (short, or under
// refs/remotes/). The caller holds c.repo.mu.
func (c *Clone) resolve(name string) (string, error) {
	if name == "HEAD" {
		c.mu.Lock()
		id := c.head.Commit
		c.mu.Unlock()
		if id == "" {
			return "", fmt.Errorf("HEAD: %w (an unborn branch)", refstore.ErrNotFound)
		}
		return id, nil
	}
	if c.repo.commits[name] != nil {
		return name, nil
	}
	for _, tips := range []struct {
		prefix string
		tips   map[string]string
	}{{"refs/heads/", c.repo.branches}, {"refs/remotes/", c.repo.remotes}} {
		if id, ok := tips.tips[strings.TrimPrefix(name, tips.prefix)]; ok {
			return id, nil
		}
	}
	return "", fmt.Errorf("%s: %w (no such revision)", name, refstore.ErrNotFound)
}

// ancestors is every commit reachable from id, id included. The caller
// holds c.repo.mu.
func (c *Clone) ancestors(id string) map[string]bool {
	seen := map[string]bool{}
	for todo := []string{id}; len(todo) > 0; {
		cur := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[cur] || c.repo.commits[cur] == nil {
			continue
		}
		seen[cur] = true
		todo = append(todo, c.repo.commits[cur].Parents...)
	}
	return seen
}

func (c *Clone) commitOf(ci *CommitInfo) refstore.Commit {
	return refstore.Commit{ID: ci.ID, Subject: ci.Subject, Author: ci.Author, When: seconds(ci.When)}
}

// seconds is t as git keeps it: whole seconds.
func seconds(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.Unix(t.Unix(), 0).In(t.Location())
}

// Log lists up to limit commits on the first-parent line of from not
// reachable from since, newest first, and how many there are (-1 when
// unknown), as the git store's (refstore.Worktree).
func (c *Clone) Log(ctx context.Context, from, since string, limit int) ([]refstore.Commit, int, error) {
	if from == "" || since == from {
		return nil, 0, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	tip, err := c.resolve(from)
	if err != nil {
		return nil, 0, err
	}
	var excluded map[string]bool
	if since != "" {
		base, err := c.resolve(since)
		if err != nil {
			return nil, 0, err
		}
		excluded = c.ancestors(base)
	}
	var line []refstore.Commit
	for cur := tip; cur != "" && !excluded[cur]; {
		ci := c.repo.commits[cur]
		line = append(line, c.commitOf(ci))
		cur = ""
		if len(ci.Parents) > 0 {
			cur = ci.Parents[0]
		}
	}
	total := len(line)
	if total > limit {
		line = line[:max(limit, 0)]
		if since == "" {
			total = -1
		}
	}
	if len(line) == 0 {
		line = nil
	}
	return line, total, nil
}

// IsAncestor reports whether commit a is an ancestor of commit b, or b
// itself (refstore.Worktree).
func (c *Clone) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	ia, err := c.resolve(a)
	if err != nil {
		return false, err
	}
	ib, err := c.resolve(b)
	if err != nil {
		return false, err
	}
	return c.ancestors(ib)[ia], nil
}

// CommitTime is a commit's committer date, in whole seconds, UTC
// (refstore.Worktree).
func (c *Clone) CommitTime(ctx context.Context, id string) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	ic, err := c.resolve(id)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(c.repo.commits[ic].Committed.Unix(), 0).UTC(), nil
}

// RemoteTracking names the first remote-tracking branch, in ref order,
// that contains commit (refs/remotes/<name>), "" for none
// (refstore.Worktree).
func (c *Clone) RemoteTracking(ctx context.Context, commit string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	id, err := c.resolve(commit)
	if err != nil {
		return "", err
	}
	for _, name := range sortedKeys(c.repo.remotes) {
		if c.ancestors(c.repo.remotes[name])[id] {
			return "refs/remotes/" + name, nil
		}
	}
	return "", nil
}

// TrailerLog lists up to limit commits reachable from branch (HEAD when
// ""), newest committer date first, each with its values of trailer key
// (matched without case, as git matches it); a branch that does not
// exist yields nothing (refstore.Worktree).
func (c *Clone) TrailerLog(ctx context.Context, branch, key string, limit int) ([]refstore.TrailerCommit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	from := "HEAD"
	if branch != "" {
		id, ok := c.repo.branches[branch]
		if !ok {
			return nil, nil
		}
		from = id
	}
	tip, err := c.resolve(from)
	if err != nil {
		return nil, nil
	}
	if strings.ContainsAny(key, ",:)%\n") {
		return nil, fmt.Errorf("%w: trailer key %q", refstore.ErrBadName, key)
	}
	// git log's walk: the newest committer date first, of the commits
	// reached so far (ties in the order they were added).
	var out []refstore.TrailerCommit
	seen := map[string]bool{tip: true}
	queue := []string{tip}
	for len(queue) > 0 && len(out) < limit {
		sort.SliceStable(queue, func(i, j int) bool {
			a, b := c.repo.commits[queue[i]], c.repo.commits[queue[j]]
			if !a.Committed.Equal(b.Committed) {
				return a.Committed.After(b.Committed)
			}
			return c.repo.seq[a.ID] > c.repo.seq[b.ID]
		})
		ci := c.repo.commits[queue[0]]
		queue = queue[1:]
		tc := refstore.TrailerCommit{Commit: c.commitOf(ci), Committed: seconds(ci.Committed)}
		for _, t := range ci.Trailers {
			k, v, ok := strings.Cut(t, ":")
			if ok && strings.EqualFold(strings.TrimSpace(k), key) {
				if v = strings.TrimSpace(v); v != "" {
					tc.Values = append(tc.Values, v)
				}
			}
		}
		out = append(out, tc)
		for _, p := range ci.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return out, nil
}

// ErrNoSnapshots is what a Clone says when asked to take or apply a
// snapshot: there are no files to keep or restore in memory.
var ErrNoSnapshots = errors.New("memstore: no snapshots in memory (no files to keep)")

// TakeSnapshot takes no snapshot (refstore.Snapshots): a worktree with
// nothing changed is refstore.ErrClean, as the git store's; any other an
// error wrapping ErrNoSnapshots.
func (c *Clone) TakeSnapshot(ctx context.Context, id string) (refstore.Snapshot, error) {
	if _, err := refstore.SnapshotRef(id); err != nil {
		return refstore.Snapshot{}, err
	}
	if err := ctx.Err(); err != nil {
		return refstore.Snapshot{}, err
	}
	c.mu.Lock()
	clean := len(c.changed) == 0
	c.mu.Unlock()
	if clean {
		return refstore.Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, refstore.ErrClean)
	}
	return refstore.Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, ErrNoSnapshots)
}

// FindSnapshot finds none (refstore.Snapshots): refstore.ErrNotFound.
func (c *Clone) FindSnapshot(ctx context.Context, id string) (refstore.Snapshot, error) {
	if _, err := refstore.SnapshotRef(id); err != nil {
		return refstore.Snapshot{}, err
	}
	return refstore.Snapshot{}, fmt.Errorf("snapshot of session %q: %w", id, refstore.ErrNotFound)
}

// ApplySnapshot applies nothing (refstore.Snapshots): ErrNoSnapshots.
func (c *Clone) ApplySnapshot(ctx context.Context, snap refstore.Snapshot) (refstore.Applied, error) {
	return refstore.Applied{}, fmt.Errorf("applying snapshot %s: %w", snap.Commit, ErrNoSnapshots)
}

// SnapshotPresent is false: no snapshot is ever in a worktree here
// (refstore.Snapshots).
func (c *Clone) SnapshotPresent(ctx context.Context, snap refstore.Snapshot) (bool, error) {
	return false, ctx.Err()
}

// SnapshotRefs lists the refs under prefix with their ids, as the git
// store lists them (refstore.Snapshots): none, unless a test put some.
func (c *Clone) SnapshotRefs(ctx context.Context, prefix string) (map[string]string, error) {
	ids, err := c.RefIDs(ctx, prefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		out[id.Ref] = id.OID
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// HasWorktree reports whether a worktree of the repository is at dir
// (refstore.Worktree).
func (c *Clone) HasWorktree(dir string) bool {
	c.repo.mu.Lock()
	defer c.repo.mu.Unlock()
	_, ok := c.repo.worktrees[path.Clean(dir)]
	return ok
}

// Nonce is n bytes of a sequence of this repository's own, the same in
// every run that makes the same calls: the in-memory twin's unique ids
// replay (refstore.Noncer).
func (c *Clone) Nonce(n int) []byte {
	c.repo.mu.Lock()
	c.repo.nonces++
	i := c.repo.nonces
	c.repo.mu.Unlock()
	var out []byte
	for block := uint64(0); len(out) < n; block++ {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s %d %d", c.dir, i, block))
		out = append(out, sum[:]...)
	}
	return out[:n]
}
