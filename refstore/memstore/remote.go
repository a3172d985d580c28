package memstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/git-handoff/git-handoff/refstore"
)

// The remotes in memory. A Network holds repositories by URL, each a
// *Store standing for a bare repository on a server; a Clone reaches
// them by the remote names its configuration gives (remote.<name>.url),
// or by URL, and fetches and pushes as git does: fetch maps the remote's
// refs onto tracking refs by refspec (pruning with prune), push swaps
// each ref under a lease (git push --force-with-lease) and moves the
// tracking refs the remote's fetch refspecs (and PushOptions.Track) map,
// a rejected push is the *refstore.PushError git's porcelain output
// makes, and the objects a ref needs (a blob, a tree and all it holds)
// travel with it. Every operation is one step under the remote's lock,
// as one git process against one server, and a Faults func can fail it
// before it reaches the remote or lose its answer after.

// Network is the remote repositories of a simulation, by URL.
type Network struct {
	mu     sync.Mutex
	repos  map[string]*Store
	faults Faults
}

// NewNetwork returns a network with no repository on it.
func NewNetwork() *Network { return &Network{repos: map[string]*Store{}} }

// NewRepository makes an empty repository of format at url.
func (n *Network) NewRepository(url, format string) (*Store, error) {
	s, err := New(format)
	if err != nil {
		return nil, err
	}
	if err := n.Attach(url, s); err != nil {
		return nil, err
	}
	return s, nil
}

// Attach puts the repository s on the network at url.
func (n *Network) Attach(url string, s *Store) error {
	if url == "" {
		return errors.New("memstore: a repository needs a URL")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.repos[url]; ok {
		return fmt.Errorf("memstore: there is a repository at %s already", url)
	}
	n.repos[url] = s
	return nil
}

// Repository is the repository at url, nil for none.
func (n *Network) Repository(url string) *Store {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.repos[url]
}

// URLs lists the repositories' URLs, sorted.
func (n *Network) URLs() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return sortedKeys(n.repos)
}

// NewClone makes a clone of the repository at url, as git clone would
// leave it for our refs: a new repository of the same object format,
// with the remote "origin" at url and none of the remote's refs under
// refs/ao/ (a clone fetches branches and tags only), its worktree at dir.
func (n *Network) NewClone(url, dir string) (*Clone, error) {
	remote := n.Repository(url)
	if remote == nil {
		return nil, fmt.Errorf("memstore: no repository at %s", url)
	}
	s, err := New(remote.ObjectFormat())
	if err != nil {
		return nil, err
	}
	c, err := NewClone(s, dir, n)
	if err != nil {
		return nil, err
	}
	return c, c.AddRemote("origin", url)
}

// Phase says when a Faults func is asked about an operation.
type Phase int

const (
	// Before: the operation has not reached the remote. An error fails
	// it with nothing done, as an unreachable server would.
	Before Phase = iota
	// After: the remote has done its part (a push landed; a fetch's or a
	// listing's answer was made) and the answer is on its way back. An
	// error loses it: the caller gets the error and nothing of the
	// answer (no tracking ref moves, no fetched ref is written), while
	// what the remote did stays done.
	After
)

func (p Phase) String() string {
	if p == Before {
		return "before"
	}
	return "after"
}

// Op is one remote operation, as a Faults func sees it.
type Op struct {
	Name   string // "fetch", "push", "push-matching" or "ls-remote" (RemoteIDs, UpToDate)
	Phase  Phase
	Clone  string   // the Dir of the clone that asks
	Remote string   // the remote as the caller named it
	URL    string   // the repository it reaches
	Refs   []string // the refspecs (fetch, ls-remote), the refs pushed (push), the prefixes (push-matching), in the caller's order
}

// Faults decides, before and after each remote operation, whether it
// fails: nil lets it go on; an error is what the caller gets (wrapped;
// for a push, as a *refstore.PushError without rejected refs, as git
// reports a push that lost its connection). It is called on the caller's
// goroutine, with no lock of the network or a store held, and must not
// use the network itself.
type Faults func(Op) error

// ErrStalled is a fault for an operation that never got an answer: it
// wraps context.DeadlineExceeded, as a caller's deadline would end it.
var ErrStalled = fmt.Errorf("memstore: the remote did not answer: %w", context.DeadlineExceeded)

// ErrNoRemote is a remote that is neither a configured remote of the
// clone with a repository at its URL nor the URL of one.
var ErrNoRemote = errors.New("does not appear to be a git repository")

// SetFaults makes f decide every later operation's faults (nil: none).
func (n *Network) SetFaults(f Faults) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.faults = f
}

func (n *Network) fault(op Op) error {
	n.mu.Lock()
	f := n.faults
	n.mu.Unlock()
	if f == nil {
		return nil
	}
	op.Refs = append([]string(nil), op.Refs...)
	return f(op)
}

// AddRemote configures the remote name at url (remote.<name>.url), as
// git remote add does without its default fetch refspec.
func (c *Clone) AddRemote(name, url string) error {
	if name == "" || refstore.CheckRef("refs/remotes/"+name+"/HEAD") != nil {
		return fmt.Errorf("memstore: remote name %q: %w", name, refstore.ErrBadName)
	}
	c.Configure("remote."+name+".url", url)
	return nil
}

// DropStaleLocks removes nothing (refstore.Remote): no fetch here leaves
// a lock behind.
func (c *Clone) DropStaleLocks(prefix string) int { return 0 }

// reach finds the repository remote names: the URL the clone's config
// gives the remote, else remote as a URL.
func (c *Clone) reach(ctx context.Context, remote string) (string, *Store, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	url := remote
	if urls, _ := c.ConfigValues(ctx, "remote."+remote+".url"); len(urls) > 0 {
		url = urls[0]
	}
	var repo *Store
	if c.net != nil {
		repo = c.net.Repository(url)
	}
	if repo == nil || repo == c.Store {
		return url, nil, fmt.Errorf("'%s' %w", remote, ErrNoRemote)
	}
	if repo.format != c.format {
		return url, nil, fmt.Errorf("%s: the remote's object format (%s) is not this repository's (%s)", remote, repo.format, c.format)
	}
	return url, repo, nil
}

// spec is a refspec as git reads one: [+]src[:dst], each side a full
// ref name with at most one '*' (both sides or neither).
type spec struct {
	src, dst string
	glob     bool
}

func parseSpec(r string) (spec, error) {
	src, dst, _ := strings.Cut(strings.TrimPrefix(r, "+"), ":")
	sp := spec{src: src, dst: dst, glob: strings.Contains(src, "*")}
	bad := !strings.HasPrefix(src, "refs/") || dst != "" && !strings.HasPrefix(dst, "refs/") ||
		strings.Count(src, "*") > 1 || strings.Count(dst, "*") > 1 ||
		dst != "" && sp.glob != strings.Contains(dst, "*")
	if bad {
		return spec{}, fmt.Errorf("%w: refspec %q", refstore.ErrBadName, r)
	}
	return sp, nil
}

// match maps name by a pattern side to the other: "" and false unless
// name matches from (a name, or one '*' standing for any bytes).
func match(from, to, name string) (string, bool) {
	pre, post, glob := strings.Cut(from, "*")
	if !glob {
		return to, name == from
	}
	if len(name) < len(pre)+len(post) || !strings.HasPrefix(name, pre) || !strings.HasSuffix(name, post) {
		return "", false
	}
	mid := name[len(pre) : len(name)-len(post)]
	return strings.Replace(to, "*", mid, 1), true
}

// tracking maps a ref pushed to remote onto the tracking ref git moves
// after the push: the first of the remote's fetch refspecs (config, then
// extra ones, as git -c appends them) whose source matches it.
func (c *Clone) tracking(ctx context.Context, remote string, extra []string) func(ref string) string {
	vals, _ := c.ConfigValues(ctx, "remote."+remote+".fetch")
	var specs []spec
	for _, r := range append(vals, extra...) {
		if sp, err := parseSpec(r); err == nil && sp.dst != "" {
			specs = append(specs, sp)
		}
	}
	return func(ref string) string {
		for _, sp := range specs {
			if dst, ok := match(sp.src, sp.dst, ref); ok {
				return dst
			}
		}
		return ""
	}
}

// refsSnapshot copies s's refs.
func refsSnapshot(s *Store) map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return maps.Clone(s.refs)
}

// forceRefs moves each ref to its id ("" deletes), each on its own, as
// git fetch and git push write tracking refs (no old value checked); a
// ref git could not write (one beside refs under its name) is skipped
// and named in the error. Deletes go first, so that a pruned ref makes
// room for another under its name.
func (s *Store) forceRefs(set map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	refs := sortedKeys(set)
	sort.SliceStable(refs, func(i, j int) bool { return set[refs[i]] == "" && set[refs[j]] != "" })
	var failed []string
	for _, ref := range refs {
		id := set[ref]
		cur, ok := s.refs[ref]
		if id == "" {
			delete(s.refs, ref)
			continue
		}
		if ok && cur == id {
			continue
		}
		if err := s.check([]refstore.Update{{Ref: ref, New: id, Old: cur}}); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", ref, err))
			continue
		}
		s.refs[ref] = id
	}
	if len(failed) > 0 {
		return fmt.Errorf("cannot update %s", strings.Join(failed, ", "))
	}
	return nil
}

// Fetch copies the refs of remote that refspecs' sources match onto
// their destinations here, forced, with the objects they need, as git
// fetch --no-tags does (refstore.Remote); no refspecs fetch the remote's
// configured ones (remote.<name>.fetch). A refspec without '+' is forced
// all the same: git does not ask a blob or a tree to fast-forward, and
// there are no commits in memory. With prune, a destination ref
// that some refspec maps and whose source the remote no longer holds is
// deleted. A refspec naming one ref the remote lacks fails the fetch
// ("couldn't find remote ref"), with nothing written.
func (c *Clone) Fetch(ctx context.Context, remote string, prune bool, refspecs ...string) error {
	fail := func(err error) error { return fmt.Errorf("fetch from %s: %w", remote, err) }
	url, repo, err := c.reach(ctx, remote)
	if err != nil {
		return fail(err)
	}
	if len(refspecs) == 0 {
		// git fetch <remote> alone fetches the remote's own refspecs.
		refspecs, _ = c.ConfigValues(ctx, "remote."+remote+".fetch")
	}
	var specs []spec
	var excluded []string // negative refspecs' sources (git >= 2.29)
	for _, r := range refspecs {
		if neg, ok := strings.CutPrefix(r, "^"); ok {
			if !strings.HasPrefix(neg, "refs/") || strings.Contains(neg, ":") || strings.Count(neg, "*") > 1 {
				return fail(fmt.Errorf("%w: refspec %q", refstore.ErrBadName, r))
			}
			excluded = append(excluded, neg)
			continue
		}
		sp, err := parseSpec(r)
		if err != nil {
			return fail(err)
		}
		specs = append(specs, sp)
	}
	op := Op{Name: "fetch", Clone: c.dir, Remote: remote, URL: url, Refs: refspecs}
	if err := c.net.fault(op); err != nil {
		return fail(err)
	}
	theirs := refsSnapshot(repo)
	for ref := range theirs {
		for _, neg := range excluded {
			if _, ok := match(neg, neg, ref); ok {
				delete(theirs, ref)
			}
		}
	}
	set := map[string]string{}
	var ids []string
	for _, sp := range specs {
		if !sp.glob {
			if _, ok := theirs[sp.src]; !ok {
				return fail(fmt.Errorf("couldn't find remote ref %s", sp.src))
			}
		}
		for _, ref := range sortedKeys(theirs) {
			if _, ok := match(sp.src, sp.src, ref); !ok {
				continue
			}
			ids = append(ids, theirs[ref])
			if sp.dst == "" {
				continue
			}
			dst, _ := match(sp.src, sp.dst, ref)
			if prev, ok := set[dst]; ok && prev != theirs[ref] {
				return fail(fmt.Errorf("cannot fetch both %s and another ref to %s", ref, dst))
			}
			set[dst] = theirs[ref]
		}
	}
	if prune {
		for _, ref := range sortedKeys(refsSnapshot(c.Store)) {
			if _, ok := set[ref]; ok {
				continue
			}
			mapped, kept := false, false
			for _, sp := range specs {
				if sp.dst == "" {
					continue
				}
				if src, ok := match(sp.dst, sp.src, ref); ok {
					mapped = true
					if _, ok := theirs[src]; ok {
						kept = true
					}
				}
			}
			if mapped && !kept {
				set[ref] = ""
			}
		}
	}
	op.Phase = After
	if err := c.net.fault(op); err != nil {
		return fail(err)
	}
	// What this clone holds whole it wants nothing of (asked before the
	// remote's lock is taken: one store's lock at a time).
	held := map[string]bool{}
	c.Store.mu.RLock()
	for _, id := range ids {
		held[id] = c.Store.complete(id)
	}
	c.Store.mu.RUnlock()
	// A ref naming an object the remote lost (its gc racing a push) fails
	// the whole fetch, as upload-pack refuses a want it cannot serve.
	repo.mu.RLock()
	for _, ref := range sortedKeys(theirs) {
		if _, ok := repo.objects[theirs[ref]]; !ok && slices.Contains(ids, theirs[ref]) {
			repo.mu.RUnlock()
			return fail(fmt.Errorf("remote error: upload-pack: not our ref %s", theirs[ref]))
		}
	}
	// One whose object is there with something below it lost (a month's
	// tree, its commit kept) fails it too, as the remote's pack-objects
	// dies on it, unless this clone holds it whole and wants nothing of
	// it.
	for _, id := range ids {
		if held[id] {
			continue
		}
		if lost := repo.missingBelow(id); lost != "" {
			repo.mu.RUnlock()
			return fail(fmt.Errorf("remote: fatal: bad object %s\nfatal: git upload-pack: aborting due to possible repository corruption on the remote side", lost))
		}
	}
	repo.mu.RUnlock()
	p := repo.objectsOf(ids)
	c.Store.mu.Lock()
	c.Store.add(p, ids)
	c.Store.mu.Unlock()
	if err := c.Store.forceRefs(set); err != nil {
		return fail(err)
	}
	return nil
}

// status is one ref of a push, as git push --porcelain reports it.
type status struct {
	ref, old, new string // old: what the remote held
	expect        string // the lease: what the remote must hold
	uptodate      bool
	reason        string // why it was not pushed, "" when it was (or is to be)
}

// Push swaps each update's Ref on remote from Old to New under a lease
// ("" for absent; New "" deletes), as git push --force-with-lease=<ref>:<Old>
// <New>:<Ref> does (refstore.Remote): a ref already holding New is up to
// date whatever Old says; any other whose remote value is not Old is
// rejected as "stale info"; with Atomic one rejection rejects the rest
// ("atomic push failed") and nothing moves. A ref the remote cannot
// write (beside refs under its name) is "remote rejected: failed to
// update ref", or with Atomic every ref "remote rejected: atomic
// transaction failed"; a New this clone lacks fails every ref
// ("remote rejected: unpacker error"). Rejections come back as the
// *refstore.PushError git's porcelain output makes: the remote's refs
// first in ref order, then the new ones in the order given, each with
// git's reason. Then, as git does, every tracking ref that the remote's
// fetch refspecs or opts.Track map a pushed or up-to-date ref to is
// moved (or deleted), also when other refs were rejected.
func (c *Clone) Push(ctx context.Context, remote string, updates []refstore.Update, opts refstore.PushOptions) error {
	if len(updates) == 0 {
		return nil
	}
	seen := map[string]bool{}
	refs := make([]string, len(updates))
	var send []string
	for i, u := range updates {
		if err := refstore.CheckRef(u.Ref); err != nil {
			return err
		}
		for _, id := range []string{u.New, u.Old} {
			if id != "" && !refstore.IsID(id, c.hexLen()) {
				return fmt.Errorf("%w: %s: %q is not an object id", refstore.ErrBadName, u.Ref, id)
			}
		}
		if seen[u.Ref] {
			return fmt.Errorf("%w: %s is pushed twice", refstore.ErrBadName, u.Ref)
		}
		seen[u.Ref] = true
		refs[i] = u.Ref
		if u.New != "" {
			send = append(send, u.New)
		}
	}
	url, repo, err := c.reach(ctx, remote)
	if err != nil {
		return &refstore.PushError{Err: fmt.Errorf("push to %s: %w", remote, err)}
	}
	op := Op{Name: "push", Clone: c.dir, Remote: remote, URL: url, Refs: refs}
	return c.push(ctx, remote, repo, op, opts, send, func(theirs map[string]string) []status {
		sts := make([]status, len(updates))
		for i, u := range updates {
			sts[i] = status{ref: u.Ref, old: theirs[u.Ref], new: u.New, expect: u.Old}
		}
		return sts
	})
}

// PushMatching makes every ref under each of prefixes on remote what it
// is here, as git push --prune --force-with-lease <p>*:<p>* does
// (refstore.Remote): each local ref pushed to its name, each remote ref
// with no local one deleted, every one under a lease on the tracking ref
// the remote's fetch refspecs or opts.Track map it to (absent when there
// is none); refs equal on both sides are up to date. Then as Push.
func (c *Clone) PushMatching(ctx context.Context, remote string, prefixes []string, opts refstore.PushOptions) error {
	for _, p := range prefixes {
		if !strings.HasPrefix(p, refstore.Root) || !strings.HasSuffix(p, "/") {
			return fmt.Errorf("%w: prefix %q", refstore.ErrBadName, p)
		}
	}
	url, repo, err := c.reach(ctx, remote)
	if err != nil {
		return &refstore.PushError{Err: fmt.Errorf("push to %s: %w", remote, err)}
	}
	track := c.tracking(ctx, remote, opts.Track)
	under := func(ref string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(ref, p) {
				return true
			}
		}
		return false
	}
	ours := refsSnapshot(c.Store)
	var send []string
	for _, ref := range sortedKeys(ours) {
		if under(ref) {
			send = append(send, ours[ref])
		}
	}
	op := Op{Name: "push-matching", Clone: c.dir, Remote: remote, URL: url, Refs: prefixes}
	return c.push(ctx, remote, repo, op, opts, send, func(theirs map[string]string) []status {
		var sts []status
		for _, ref := range sortedKeys(ours) {
			if under(ref) {
				sts = append(sts, status{ref: ref, old: theirs[ref], new: ours[ref]})
			}
		}
		for _, ref := range sortedKeys(theirs) {
			if _, ok := ours[ref]; !ok && under(ref) {
				sts = append(sts, status{ref: ref, old: theirs[ref]})
			}
		}
		for i := range sts {
			if tr := track(sts[i].ref); tr != "" {
				sts[i].expect = ours[tr]
			}
		}
		return sts
	})
}

// push is one git push: the objects send reaches are read from this
// clone, then plan lists the refs to push against the remote's refs,
// and the push decides, sends the objects and swaps the refs in one step
// under the remote's lock (nothing comes between git's reading of the
// remote's refs and its update of them); then the tracking refs move.
func (c *Clone) push(ctx context.Context, remote string, repo *Store, op Op, opts refstore.PushOptions, send []string, plan func(theirs map[string]string) []status) error {
	fail := func(err error) error {
		var pe *refstore.PushError
		if errors.As(err, &pe) {
			return err // a fault that says what the server did
		}
		return &refstore.PushError{Err: fmt.Errorf("push to %s: %w", remote, err)}
	}
	if err := c.net.fault(op); err != nil {
		return fail(err)
	}
	pack := c.Store.objectsOf(send)
	pe := &refstore.PushError{Reasons: map[string]string{}}

	repo.mu.Lock()
	sts := plan(repo.refs)
	// The remote's refs as git lists their statuses: those it had, in
	// ref order, then the new ones in the order given.
	sort.SliceStable(sts, func(i, j int) bool {
		hi, hj := sts[i].old != "", sts[j].old != ""
		if hi != hj {
			return hi
		}
		return hi && sts[i].ref < sts[j].ref
	})
	pending := func(st status) bool { return st.reason == "" && !st.uptodate }
	rejected := false
	for i := range sts {
		st := &sts[i]
		switch {
		case st.new != "" && st.old == st.new:
			st.uptodate = true
		case st.old != st.expect:
			st.reason = "rejected: stale info"
			rejected = true
		}
	}
	if rejected && opts.Atomic {
		for i := range sts {
			if pending(sts[i]) {
				sts[i].reason = "rejected: atomic push failed"
			}
		}
	}
	// git sends no object the remote advertises, or that one reaches:
	// it takes the remote to hold them, also one it lost (its gc racing
	// a push), which such a push cannot bring back.
	c.Store.mu.RLock()
	has := map[string]bool{}
	for _, id := range repo.refs {
		c.Store.closure(id, has)
	}
	c.Store.mu.RUnlock()
	missing := false
	for _, st := range sts {
		if _, ok := pack.data[st.new]; pending(st) && st.new != "" && !ok && !has[st.new] {
			missing = true // git pack-objects fails on it, and the remote's unpack
		}
	}
	for i := range sts {
		if missing && pending(sts[i]) {
			sts[i].reason = "remote rejected: unpacker error"
		}
	}
	var sent []string
	for _, st := range sts {
		if pending(st) && st.new != "" {
			sent = append(sent, st.new)
		}
	}
	for id := range has {
		delete(pack.data, id)
	}
	repo.add(pack, sent)
	// git's receive-pack checks what a push brings against every ref it
	// has (rev-list --not --all): one naming an object it lost fails the
	// check, and with it every update but a deletion.
	broken := ""
	for _, ref := range sortedKeys(repo.refs) {
		if !repo.complete(repo.refs[ref]) {
			broken = ref
			break
		}
	}
	before := maps.Clone(repo.refs)
	failed := false
	for i := range sts {
		st := &sts[i]
		if !pending(*st) {
			continue
		}
		if st.new == "" {
			delete(repo.refs, st.ref)
			continue
		}
		if broken != "" || !repo.complete(st.new) {
			// What the push did not send, taken to be there, is not
			// (git's receive-pack checks that every object a new value
			// reaches is there).
			st.reason = "remote rejected: missing necessary objects"
			bad := st.new // git names what it walked from: the value, then --all's refs
			if repo.complete(st.new) {
				bad = broken
			}
			if msg := "fatal: bad object " + bad; !slices.Contains(pe.Remote, msg) {
				pe.Remote = append(pe.Remote, msg)
			}
			failed = true
			continue
		}
		if in := repo.inTheWay(st.ref); in != "" {
			st.reason = "remote rejected: refname conflict"
			pe.Remote = append(pe.Remote, fmt.Sprintf("error: cannot lock ref '%s': '%s' exists; cannot create '%s'", st.ref, in, st.ref))
			failed = true
			continue
		}
		repo.refs[st.ref] = st.new
	}
	if failed && opts.Atomic {
		repo.refs = before
		for i := range sts {
			if sts[i].reason == "" && !sts[i].uptodate || sts[i].reason == "remote rejected: refname conflict" {
				sts[i].reason = "remote rejected: atomic transaction failed"
			}
		}
	}
	repo.mu.Unlock()

	op.Phase = After
	if err := c.net.fault(op); err != nil {
		return fail(err) // the push landed; its answer, and the tracking refs' move, did not
	}
	track := c.tracking(ctx, remote, opts.Track)
	set := map[string]string{}
	for _, st := range sts {
		if st.reason != "" {
			pe.Rejected = append(pe.Rejected, st.ref)
			pe.Reasons[st.ref] = st.reason
			continue
		}
		if tr := track(st.ref); tr != "" {
			set[tr] = st.new
		}
	}
	c.Store.forceRefs(set) // a tracking ref git cannot move, it says so on stderr and goes on
	if len(pe.Rejected) > 0 {
		pe.Err = fmt.Errorf("push to %s: failed to push some refs", remote)
		return pe
	}
	return nil
}

// complete reports whether s has id and every object it reaches. The
// caller holds s.mu.
func (s *Store) complete(id string) bool {
	_, ok := s.objects[id]
	return ok && s.missingBelow(id) == ""
}

// missingBelow is an object id reaches that s lacks (id itself not
// counted), "" when there is none; a commit or tree that cannot be read
// for what it names stands for what is missing below it. The caller
// holds s.mu.
func (s *Store) missingBelow(id string) string {
	if _, ok := s.objects[id]; !ok {
		return ""
	}
	var below []string
	switch s.typeOf(id) {
	case "commit":
		tree, ok := s.peel(id)
		if !ok {
			return id
		}
		below = append(below, tree)
	case "tree":
		entries, err := s.treeOf(id, s.objects[id])
		if err != nil {
			return id
		}
		for _, e := range entries {
			if e.mode != "160000" {
				below = append(below, e.oid)
			}
		}
	}
	for _, b := range below {
		if _, ok := s.objects[b]; !ok {
			return b
		}
		if lost := s.missingBelow(b); lost != "" {
			return lost
		}
	}
	return ""
}

// Below is the tree commit id names ("" and false for any other object):
// what a gc that raced a push may lose while it keeps the commit.
func (s *Store) Below(id string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.typeOf(id) != "commit" {
		return "", false
	}
	return s.peel(id)
}

// LoseObject drops object id from s as a git gc --prune=now racing a push
// can: the refs naming it stay, naming an object s no longer has, and a
// fetch of one fails ("not our ref") until a push brings it back.
func (s *Store) LoseObject(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, id)
	delete(s.types, id)
}

// inTheWay is a ref that keeps ref from being made: one whose name is a
// directory of ref's, or one under ref's name. The caller holds s.mu.
func (s *Store) inTheWay(ref string) string {
	if _, ok := s.refs[ref]; ok {
		return ""
	}
	for i := strings.IndexByte(ref, '/'); i >= 0; i = next(ref, i) {
		if _, ok := s.refs[ref[:i]]; ok {
			return ref[:i]
		}
	}
	for _, other := range sortedKeys(s.refs) {
		if strings.HasPrefix(other, ref+"/") {
			return other
		}
	}
	return ""
}

// pack is objects read out of a store to give another.
type pack struct {
	data  map[string][]byte
	types map[string]string
}

// objectsOf reads every object ids reach (blobs, trees and all they
// hold) that s has.
func (s *Store) objectsOf(ids []string) pack {
	s.mu.RLock()
	defer s.mu.RUnlock()
	need := map[string]bool{}
	for _, id := range ids {
		s.closure(id, need)
	}
	p := pack{data: make(map[string][]byte, len(need)), types: map[string]string{}}
	for id := range need {
		p.data[id] = s.objects[id] // never modified: shared
		if t, ok := s.types[id]; ok {
			p.types[id] = t
		}
	}
	return p
}

// add stores the objects of p that the ids reach and s lacks. The caller
// holds s.mu.
func (s *Store) add(p pack, ids []string) {
	var walk func(id string)
	walk = func(id string) {
		data, ok := p.data[id]
		if !ok {
			return
		}
		if _, have := s.objects[id]; !have {
			s.objects[id] = data
			if t, ok := p.types[id]; ok {
				s.types[id] = t
			}
		}
		if p.types[id] == "commit" {
			if tree, ok := s.peel(id); ok {
				walk(tree)
			}
		}
		if p.types[id] == "tree" {
			entries, _ := s.treeOf(id, data)
			for _, e := range entries {
				walk(e.oid)
			}
		}
	}
	for _, id := range ids {
		walk(id)
	}
}

// RemoteIDs lists what remote holds under the sources of refspecs
// ("+<src>*:<dst>*" or "+<src>:<dst>"), keyed by the destination each
// maps to, as the git store's does with git ls-remote (refstore.Remote).
func (c *Clone) RemoteIDs(ctx context.Context, remote string, refspecs ...string) (map[string]string, error) {
	specs, err := lsSpecs(refspecs)
	if err != nil {
		return nil, err
	}
	url, repo, err := c.reach(ctx, remote)
	if err != nil {
		return nil, err
	}
	op := Op{Name: "ls-remote", Clone: c.dir, Remote: remote, URL: url, Refs: refspecs}
	if err := c.net.fault(op); err != nil {
		return nil, fmt.Errorf("ls-remote %s: %w", remote, err)
	}
	theirs := refsSnapshot(repo)
	want := map[string]string{}
	for _, ref := range sortedKeys(theirs) {
		for _, sp := range specs {
			if dst, ok := match(sp.src, sp.dst, ref); ok {
				want[dst] = theirs[ref]
				break
			}
		}
	}
	op.Phase = After
	if err := c.net.fault(op); err != nil {
		return nil, fmt.Errorf("ls-remote %s: %w", remote, err)
	}
	return want, nil
}

// lsSpecs reads refspecs as the git store's RemoteIDs and UpToDate take
// them: a '*' only at the end, on both sides or neither.
func lsSpecs(refspecs []string) ([]spec, error) {
	var specs []spec
	for _, r := range refspecs {
		sp, err := parseSpec(r)
		if err == nil && (sp.dst == "" || sp.glob && (!strings.HasSuffix(sp.src, "*") || !strings.HasSuffix(sp.dst, "*"))) {
			err = fmt.Errorf("%w: refspec %q", refstore.ErrBadName, r)
		}
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	return specs, nil
}

// UpToDate reports whether fetching refspecs from remote would change
// nothing here (refstore.Remote): the destinations hold exactly what
// RemoteIDs lists.
func (c *Clone) UpToDate(ctx context.Context, remote string, refspecs ...string) (bool, error) {
	want, err := c.RemoteIDs(ctx, remote, refspecs...)
	if err != nil {
		return false, err
	}
	specs, _ := lsSpecs(refspecs)
	have := map[string]string{}
	for _, sp := range specs {
		prefix := strings.TrimSuffix(strings.TrimSuffix(sp.dst, "*"), "/")
		ids, err := c.RefIDs(ctx, prefix)
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			if _, ok := match(sp.dst, sp.dst, id.Ref); ok {
				have[id.Ref] = id.OID
			}
		}
	}
	return maps.Equal(want, have), nil
}
