package refstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// AddWorktree re-creates a linked worktree at path with branch checked out,
// as `git worktree add` does. Worktrees whose directories are gone are
// pruned first: their stale entries would make git refuse the branch as
// "already checked out".
func (s *Store) AddWorktree(ctx context.Context, path, branch string) error {
	if path == "" || !filepath.IsAbs(path) {
		return fmt.Errorf("re-creating worktree %q: the path must be absolute", path)
	}
	if branch == "" || strings.HasPrefix(branch, "-") {
		return fmt.Errorf("re-creating worktree %s: %w: branch %q", path, ErrBadName, branch)
	}
	if _, err := Git(ctx, s.workDir, false, nil, "worktree", "prune"); err != nil {
		return fmt.Errorf("re-creating worktree %s: %w", path, err)
	}
	if _, err := Git(ctx, s.workDir, false, nil, "worktree", "add", "--", path, branch); err != nil {
		return fmt.Errorf("re-creating worktree %s: %w", path, err)
	}
	return nil
}

// HasWorktree reports whether dir is there, as a directory (Worktree).
func (s *Store) HasWorktree(dir string) bool { return Exists(dir) }

// Exists reports whether dir exists as a directory.
func Exists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// SameRepository reports whether o is a worktree of the same repository as s.
func (s *Store) SameRepository(o *Store) bool {
	a, errA := filepath.EvalSymlinks(s.commonDir)
	b, errB := filepath.EvalSymlinks(o.commonDir)
	return errA == nil && errB == nil && a == b
}

// TrailerCommit is a commit with the values of one trailer key.
type TrailerCommit struct {
	Commit
	Committed time.Time
	Values    []string // the trailer's values, in message order
}

// TrailerLog lists up to limit commits reachable from the branch (HEAD when
// branch is ""), newest first, each with its values of trailer key. A branch
// that does not exist yields nothing.
func (s *Store) TrailerLog(ctx context.Context, branch, key string, limit int) ([]TrailerCommit, error) {
	from := "HEAD"
	if branch != "" {
		from = "refs/heads/" + branch
	}
	if _, err := Git(ctx, s.workDir, false, nil, "rev-parse", "-q", "--verify", from+"^{commit}"); err != nil {
		return nil, nil
	}
	if strings.ContainsAny(key, ",:)%\n") {
		return nil, fmt.Errorf("%w: trailer key %q", ErrBadName, key)
	}
	format := "--format=%H%x1f%an%x1f%aI%x1f%cI%x1f%s%x1f%(trailers:key=" + key + ",valueonly,separator=%x1e)%x00"
	out, err := Git(ctx, s.workDir, false, nil, "log", "--no-color", fmt.Sprintf("-n%d", limit), format, from, "--")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) {
			return nil, fmt.Errorf("reading commits of %s: %w", from, err)
		}
		return nil, err
	}
	var commits []TrailerCommit
	for _, rec := range strings.Split(string(out), "\x00") {
		rec = strings.TrimLeft(rec, "\n")
		f := strings.SplitN(rec, "\x1f", 6)
		if len(f) != 6 {
			continue
		}
		c := TrailerCommit{Commit: Commit{ID: f[0], Author: f[1], Subject: f[4]}}
		c.When, _ = time.Parse(time.RFC3339, f[2])
		c.Committed, _ = time.Parse(time.RFC3339, f[3])
		for _, v := range strings.Split(strings.TrimSpace(f[5]), "\x1e") {
			if v = strings.TrimSpace(v); v != "" {
				c.Values = append(c.Values, v)
			}
		}
		commits = append(commits, c)
	}
	return commits, nil
}

// OpenWorktree opens the worktree at dir when it is a worktree of s's
// repository: s itself when dir is s's own worktree (done does nothing),
// nil when dir is missing or not one of the repository's worktrees.
func (s *Store) OpenWorktree(ctx context.Context, dir string) (Clone, func(), error) {
	if dir == "" || !Exists(dir) {
		return nil, func() {}, nil
	}
	if !s.bare && sameDir(s.workDir, dir) {
		return s, func() {}, nil
	}
	wt, err := Open(ctx, dir, Options{})
	if err != nil {
		return nil, func() {}, err
	}
	if !wt.SameRepository(s) || wt.bare || !sameDir(wt.workDir, dir) {
		wt.Close()
		return nil, func() {}, nil
	}
	return wt, func() { wt.Close() }, nil
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
