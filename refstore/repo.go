package refstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Head is what HEAD says about this worktree.
type Head struct {
	Branch string // short name; "" when detached or in a bare repository without one
	Commit string // "" on an unborn branch
}

// Head reads HEAD of this worktree as git resolves it, on any ref
// backend: the branch it names, as the rev-parse of Open said (a Store is
// for one command, which does not switch branches) or else git
// symbolic-ref, and the commit as it is now, through the Store's cat-file.
func (s *Store) Head(ctx context.Context) (Head, error) {
	var h Head
	if s.layout.head.known {
		if name := s.layout.head.name; name != "HEAD" { // "HEAD": detached
			h.Branch = strings.TrimPrefix(name, "refs/heads/")
		}
	} else {
		out, err := Git(ctx, s.workDir, false, nil, "symbolic-ref", "-q", "HEAD")
		switch {
		case err == nil:
			h.Branch = strings.TrimPrefix(strings.TrimSpace(string(out)), "refs/heads/")
		case noSuchKey(err):
			// Detached.
		default:
			return Head{}, fmt.Errorf("reading HEAD: %w", err)
		}
	}
	b, err := s.catFile(ctx)
	if err != nil {
		return Head{}, err
	}
	e, err := b.read("HEAD^{commit}")
	switch {
	case err == nil:
		h.Commit = e.OID
	case !errors.Is(err, ErrNotFound):
		return Head{}, fmt.Errorf("reading HEAD: %w", err)
	}
	return h, nil
}

// Commit is one commit, as a brief lists it.
type Commit struct {
	ID      string    `json:"id"`
	Subject string    `json:"subject"`
	Author  string    `json:"author"`
	When    time.Time `json:"when"`
}

// Log lists up to limit commits on the first-parent line of "from" that are
// not reachable from "since" (all of that line when since is ""), newest
// first. total counts every such commit even beyond limit (-1 when unknown).
//
// First parent on every path: a brief describes the branch's own line, and a
// merge of a side branch is one entry there, not all of its commits crowding
// out the branch's history in a small budget.
//
// Without since it is one git log of limit+1 commits: the whole line when
// it is no longer than limit (total is then its length), else total is -1.
func (s *Store) Log(ctx context.Context, from, since string, limit int) (commits []Commit, total int, err error) {
	if from == "" {
		return nil, 0, nil
	}
	if since == from {
		return nil, 0, nil
	}
	if since == "" {
		if a := s.takeLogAhead(from, limit); a != nil {
			select {
			case <-a.done:
				return parseLog(a.out, a.err, limit)
			case <-ctx.Done():
				return nil, 0, ctx.Err()
			}
		}
	}
	rng, n := from, limit+1
	if since != "" {
		rng, n = since+".."+from, limit
		out, err := Git(ctx, s.workDir, false, nil, "rev-list", "--first-parent", "--count", rng)
		if err != nil {
			return nil, 0, err
		}
		fmt.Sscan(string(out), &total)
		if total == 0 {
			return nil, 0, nil
		}
	}
	out, err := Git(ctx, s.workDir, false, nil, logArgs(rng, n)...)
	if since == "" {
		return parseLog(out, err, limit)
	}
	if err != nil {
		return nil, 0, err
	}
	commits = parseCommits(out)
	return commits, total, nil
}

// logArgs is the git log of n commits of rng that Log reads.
func logArgs(rng string, n int) []string {
	return []string{"log", "--first-parent", "-z", "--no-color", fmt.Sprintf("-n%d", n), "--format=%H%x1f%an%x1f%aI%x1f%s", rng, "--"}
}

// parseLog is Log's answer without since, from git log's output of limit+1
// commits.
func parseLog(out []byte, err error, limit int) ([]Commit, int, error) {
	if err != nil {
		return nil, 0, err
	}
	commits := parseCommits(out)
	total := len(commits)
	if total > limit {
		commits, total = commits[:limit], -1
	}
	return commits, total, nil
}

// parseCommits reads logArgs's output.
func parseCommits(out []byte) (commits []Commit) {
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.SplitN(rec, "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		when, _ := time.Parse(time.RFC3339, f[2])
		commits = append(commits, Commit{ID: f[0], Author: f[1], When: when, Subject: f[3]})
	}
	return commits
}

// logAhead is a git log LogAhead started, for the Log that asks it.
type logAhead struct {
	from  string
	limit int
	done  chan struct{}
	out   []byte
	err   error
}

// LogAhead starts, in the background, the git log that Log(ctx, from, "",
// limit) reads, for a command that will ask it after reads of its own (a
// brief's recent commits): the two then run at once. A Store keeps one;
// Log takes it when asked the same, else asks git itself.
func (s *Store) LogAhead(from string, limit int) {
	if from == "" {
		return
	}
	a := &logAhead{from: from, limit: limit, done: make(chan struct{})}
	dir := s.workDir
	go func() {
		defer close(a.done)
		a.out, a.err = Git(context.Background(), dir, false, nil, logArgs(from, limit+1)...)
	}()
	s.mu.Lock()
	s.logAhead = a
	s.mu.Unlock()
}

// takeLogAhead returns the log LogAhead started when it is the one asked
// (nil otherwise), and forgets it.
func (s *Store) takeLogAhead(from string, limit int) *logAhead {
	s.mu.Lock()
	a := s.logAhead
	s.logAhead = nil
	s.mu.Unlock()
	if a == nil || a.from != from || a.limit != limit {
		return nil
	}
	return a
}

// BoundSession reads this worktree's binding (refs/worktree/ao/session) and
// returns the session id it names, or "" when the worktree is not bound.
// git reads it: a per-worktree ref lives where the ref backend keeps it
// (a file in the files backend, the worktree's own tables in reftable).
// Another command may bind or unbind the worktree while a Store lives, so
// only the first question takes the answer Open's rev-parse gave, when that
// named a session whose record exists; every other is asked of git again.
func (s *Store) BoundSession() (string, error) {
	if ref := s.takeBinding(); ref != "" {
		return sessionOfBinding(ref)
	}
	return s.askBinding()
}

// BoundLive is BoundSession for a caller to whom a binding to a record
// that is gone is no binding: the answer of Open's rev-parse, when it is
// the first question and git gave one, is then enough either way.
func (s *Store) BoundLive() (string, error) {
	s.mu.Lock()
	b := s.layout.binding.fresh()
	s.layout.binding = resolved{}
	s.mu.Unlock()
	if !b.known {
		return s.askBinding()
	}
	if b.name == "" {
		return "", nil
	}
	return sessionOfBinding(b.name)
}

// takeBinding returns the session ref Open found bound, once.
func (s *Store) takeBinding() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.layout.binding.fresh()
	s.layout.binding = resolved{}
	return b.name
}

// forgetBinding drops Open's answer once the Store moves the binding.
func (s *Store) forgetBinding() {
	s.mu.Lock()
	s.layout.binding = resolved{}
	s.mu.Unlock()
}

// sessionOfBinding is the session id of the ref a binding names; a ref
// that is not a session's is not a binding at all.
func sessionOfBinding(ref string) (string, error) {
	if ref == WorktreeSession {
		return "", nil // a plain ref, not symbolic: as symbolic-ref -q sees it
	}
	parts, err := SplitRef(ref, SessionPrefix, 1)
	if err != nil {
		return "", err
	}
	return parts[0], nil
}

// askBinding asks git symbolic-ref what the binding names.
func (s *Store) askBinding() (string, error) {
	return BoundSessionOf(context.Background(), s.workDir)
}

// BoundSessionOf is BoundSession of the worktree dir is in, asked of git
// (one symbolic-ref) without a Store.
func BoundSessionOf(ctx context.Context, dir string) (string, error) {
	id := ""
	out, err := Git(ctx, dir, false, nil, "symbolic-ref", "-q", WorktreeSession)
	if err == nil {
		parts, perr := SplitRef(strings.TrimSpace(string(out)), SessionPrefix, 1)
		if perr != nil {
			return "", perr
		}
		id = parts[0]
	} else if !noSuchKey(err) {
		return "", err
	} // else absent, or not a symbolic ref
	return id, nil
}

// BindGuard runs the write of a binding (bind) under whatever must hold
// while a worktree becomes bound: git-handoff's hooks arm the commit hook
// and write the binding under their lock (hooks.BindGuard), so that no
// disarm can come between the two. An error it returns stops the binding.
type BindGuard func(bind func() error) error

// GuardBindings makes every later Bind of s go through g.
func (s *Store) GuardBindings(g BindGuard) { s.bindGuard = g }

// Bind points this worktree's binding at a session ref, through the
// store's BindGuard if it has one, and git symbolic-ref: git's lock, and a
// ref git sees on every backend.
func (s *Store) Bind(sessionRef string) error {
	if s.bare {
		return nil // no worktree to bind
	}
	if s.bindGuard != nil {
		return s.bindGuard(func() error { return s.writeBinding(sessionRef) })
	}
	return s.writeBinding(sessionRef)
}

func (s *Store) writeBinding(sessionRef string) error {
	s.forgetBinding()
	return s.pastBindingLock(context.Background(), func() error {
		_, err := Git(context.Background(), s.workDir, false, nil, "symbolic-ref", WorktreeSession, sessionRef)
		return err
	})
}

// UnbindFrom removes this worktree's binding if it still names the session
// whose record is the blob session: one compare-and-swap in git's
// transaction (a no-deref delete whose old value is what the binding
// resolves to), through the store's update-ref process, so a command that
// just wrote the session's record under msg starts no git for it. It
// reports whether the binding was removed; bound elsewhere or not at all
// is not an error.
func (s *Store) UnbindFrom(ctx context.Context, msg, session string) (bool, error) {
	if s.bare || session == "" {
		return false, nil
	}
	s.forgetBinding()
	var stderr string
	err := s.pastBindingLock(ctx, func() (err error) {
		stderr, err = s.runUpdateRef(ctx, msg, []Update{{Ref: WorktreeSession, Old: session, noDeref: true}})
		return err
	})
	if err == nil {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	// Refused: tell a binding elsewhere (or none) from a failure.
	e, gerr := s.Get(ctx, WorktreeSession)
	if errors.Is(gerr, ErrNotFound) || gerr == nil && e.OID != session {
		return false, nil
	}
	if stderr != "" {
		err = fmt.Errorf("%w: %s", err, stderr) // git's why (a lock in the way?), which the exit status does not say
	}
	return false, err
}

// Unbind removes this worktree's binding; no binding is fine.
func (s *Store) Unbind(ctx context.Context) error {
	s.forgetBinding()
	return s.pastBindingLock(ctx, func() error {
		_, err := Git(ctx, s.workDir, false, nil, "update-ref", "--no-deref", "-d", WorktreeSession)
		return err
	})
}
