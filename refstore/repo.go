package refstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Head is what HEAD says about this worktree.
type Head struct {
	Branch string // short name; "" when detached or in a bare repository without one
	Commit string // "" on an unborn branch
}

// Head reads HEAD of this worktree: the per-worktree HEAD file, then the
// branch it names through the same loose-then-packed lookup as records
// (go-git would scan all of packed-refs for the branch).
func (s *Store) Head(ctx context.Context) (Head, error) {
	if s.refs == nil {
		return s.headCLI(ctx)
	}
	b, err := os.ReadFile(filepath.Join(s.gitDir, "HEAD"))
	if errors.Is(err, os.ErrNotExist) {
		return Head{}, nil
	}
	if err != nil {
		return Head{}, fmt.Errorf("reading HEAD: %w", err)
	}
	line := strings.TrimSpace(string(b))
	target, symbolic := strings.CutPrefix(line, "ref:")
	if !symbolic {
		if !isHexID(line) {
			return Head{}, fmt.Errorf("reading HEAD: unexpected %q", line)
		}
		return Head{Commit: line}, nil
	}
	target = strings.TrimSpace(target)
	h := Head{Branch: strings.TrimPrefix(target, "refs/heads/")}
	id, err := s.refs.resolve(target)
	switch {
	case err == nil:
		h.Commit = id
	case !errors.Is(err, ErrNotFound):
		return Head{}, fmt.Errorf("reading %s: %w", target, err)
	}
	return h, nil
}

func (s *Store) headCLI(ctx context.Context) (Head, error) {
	var h Head
	if out, err := Git(ctx, s.workDir, false, nil, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		h.Branch = strings.TrimSpace(string(out))
	}
	if out, err := Git(ctx, s.workDir, false, nil, "rev-parse", "-q", "--verify", "HEAD^{commit}"); err == nil {
		h.Commit = strings.TrimSpace(string(out))
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
// out the branch's history in a small budget. The in-process walk and the git
// process must list the same commits, or a brief depends on the reader.
func (s *Store) Log(ctx context.Context, from, since string, limit int) (commits []Commit, total int, err error) {
	if from == "" {
		return nil, 0, nil
	}
	if s.objects != nil && since == "" {
		return s.firstParentLog(from, limit)
	}
	if since == from {
		return nil, 0, nil
	}
	rng := from
	if since != "" {
		rng = since + ".." + from
	}
	out, err := Git(ctx, s.workDir, false, nil, "rev-list", "--first-parent", "--count", rng)
	if err != nil {
		return nil, 0, err
	}
	fmt.Sscan(string(out), &total)
	if total == 0 {
		return nil, 0, nil
	}
	out, err = Git(ctx, s.workDir, false, nil, "log", "--first-parent", "-z", "--no-color", fmt.Sprintf("-n%d", limit), "--format=%H%x1f%an%x1f%aI%x1f%s", rng, "--")
	if err != nil {
		return nil, 0, err
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.SplitN(rec, "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		when, _ := time.Parse(time.RFC3339, f[2])
		commits = append(commits, Commit{ID: f[0], Author: f[1], When: when, Subject: f[3]})
	}
	return commits, total, nil
}

// firstParentLog walks the first-parent line in process: the recent
// history of a branch without paying for a git process.
func (s *Store) firstParentLog(from string, limit int) ([]Commit, int, error) {
	var out []Commit
	id := from
	for len(out) < limit {
		c, err := s.commit(id)
		if err != nil {
			// The pack list may be stale (a fetch or gc since): look again.
			s.reindex()
			c, err = s.commit(id)
		}
		if err != nil {
			if len(out) == 0 {
				return nil, 0, fmt.Errorf("reading commit %s: %w", short(from), err)
			}
			break
		}
		out = append(out, c.Commit)
		if c.parent == "" {
			return out, len(out), nil
		}
		id = c.parent
	}
	return out, -1, nil
}

// parsedCommit is what the log needs of a commit object.
type parsedCommit struct {
	Commit
	parent string // the first parent; "" for a root commit
}

// commit reads and parses commit id.
func (s *Store) commit(id string) (parsedCommit, error) {
	o, err := s.objects.read(id, maxCommit)
	if err != nil {
		return parsedCommit{}, err
	}
	if o.typ != "commit" || o.data == nil {
		return parsedCommit{}, fmt.Errorf("object %s is a %s of %d bytes, not a commit", short(id), o.typ, o.size)
	}
	c, err := parseCommit(o.data)
	c.ID = id
	return c, err
}

// maxCommit is the largest commit the log reads in process (its message
// is most of it); a larger one ends the in-process walk.
const maxCommit = 16 << 20

// parseCommit reads a commit object's headers as git writes them: the
// first "parent" and the "author" (name, then the time and zone after the
// email); and the message's subject.
func parseCommit(data []byte) (parsedCommit, error) {
	var c parsedCommit
	headers, msg, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		headers, msg = data, nil
	}
	for _, line := range bytes.Split(headers, []byte("\n")) {
		key, val, _ := bytes.Cut(line, []byte(" "))
		switch string(key) {
		case "parent":
			if c.parent == "" {
				c.parent = string(val)
			}
		case "author":
			c.Author, c.When = parseSignature(string(val))
		}
	}
	c.Subject = subjectOf(msg)
	return c, nil
}

// subjectOf is the message's subject as `git log --format=%s` gives it:
// blank lines skipped, then the first paragraph's lines, trailing white
// space cut, joined by spaces.
func subjectOf(msg []byte) string {
	var parts []string
	for _, line := range strings.Split(string(msg), "\n") {
		line = strings.TrimRight(line, " \t\r\v\f")
		if line == "" {
			if len(parts) == 0 {
				continue
			}
			break
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, " ")
}

// parseSignature reads "Name <email> 1700000000 +0100": the name, and the
// time in the zone it was written in.
func parseSignature(v string) (string, time.Time) {
	lt := strings.LastIndexByte(v, '<')
	gt := strings.LastIndexByte(v, '>')
	if lt < 0 || gt < lt {
		return strings.TrimSpace(v), time.Time{}
	}
	name := strings.TrimSpace(v[:lt])
	f := strings.Fields(v[gt+1:])
	if len(f) == 0 {
		return name, time.Time{}
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return name, time.Time{}
	}
	when := time.Unix(sec, 0)
	if len(f) > 1 && len(f[1]) == 5 && (f[1][0] == '+' || f[1][0] == '-') {
		hh, err1 := strconv.Atoi(f[1][1:3])
		mm, err2 := strconv.Atoi(f[1][3:5])
		if err1 == nil && err2 == nil {
			off := (hh*60 + mm) * 60
			if f[1][0] == '-' {
				off = -off
			}
			when = when.In(time.FixedZone("", off))
		}
	}
	return name, when
}

// BoundSession reads this worktree's binding (refs/worktree/ao/session) and
// returns the session id it names, or "" when the worktree is not bound. It
// reads the file itself: go-git looks for refs/worktree/* in the common dir.
func (s *Store) BoundSession() (string, error) {
	b, err := os.ReadFile(filepath.Join(s.gitDir, filepath.FromSlash(WorktreeSession)))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	if !ok {
		return "", fmt.Errorf("%s is not a symbolic ref", WorktreeSession)
	}
	parts, err := SplitRef(target, SessionPrefix, 1)
	if err != nil {
		return "", err
	}
	return parts[0], nil
}

// BindGuard runs the write of a binding (bind) under whatever must hold
// while a worktree becomes bound: git-handoff's hooks arm the commit hook
// and write the binding under their lock (hooks.BindGuard), so that no
// disarm can come between the two. An error it returns stops the binding.
type BindGuard func(bind func() error) error

// GuardBindings makes every later Bind of s go through g.
func (s *Store) GuardBindings(g BindGuard) { s.bindGuard = g }

// Bind points this worktree's binding at a session ref, through the
// store's BindGuard if it has one. The binding is a per-worktree symbolic
// ref no other clone or process contends for, so it is written with git's
// lockfile protocol directly (create <ref>.lock exclusively, write, rename)
// rather than by starting a git process.
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
	path := filepath.Join(s.gitDir, filepath.FromSlash(WorktreeSession))
	// In a shared repository the directories and the file get the
	// group's permissions, as git would give them.
	shared := s.sharedPerm(context.Background())
	if err := mkdirShared(shared, s.gitDir, filepath.Dir(path)); err != nil {
		return err
	}
	lock := path + ".lock"
	f, err := lockOnce(lock)
	if err != nil {
		return err
	}
	_, werr := f.WriteString("ref: " + sessionRef + "\n")
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil && shared != 0 {
		werr = adjustShared(shared, lock)
	}
	if werr == nil {
		werr = os.Rename(lock, path)
	}
	if werr != nil {
		os.Remove(lock)
	}
	return werr
}

// lockOnce takes lock if nobody holds it (a binding is per worktree, so a
// held lock means another command is changing it right now: no waiting).
func lockOnce(lock string) (*os.File, error) {
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, os.ErrExist) {
		return nil, &LockedError{Path: lock}
	}
	return f, err
}

// Unbind removes this worktree's binding; no binding is fine. Like Bind it
// goes through git's lock protocol in process: take <ref>.lock, remove the
// ref, drop the lock (a per-worktree ref is never packed, and Bind writes
// no reflog for it).
func (s *Store) Unbind(ctx context.Context) error {
	path := filepath.Join(s.gitDir, filepath.FromSlash(WorktreeSession))
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	lock := path + ".lock"
	f, err := lockOnce(lock)
	if err != nil {
		return err
	}
	f.Close()
	err = os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	// A reflog git may have kept for it goes with the ref, as
	// symbolic-ref --delete removes it.
	if rerr := os.Remove(filepath.Join(s.gitDir, "logs", filepath.FromSlash(WorktreeSession))); err == nil && rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	if lerr := os.Remove(lock); err == nil {
		err = lerr
	}
	return err
}
