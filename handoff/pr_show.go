package handoff

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRShowOptions are what `pr show` was asked.
type PRShowOptions struct {
	// Repo is owner/name; "" when the repository's remote is not on
	// GitHub: the records here are searched by number alone.
	Repo    string
	Number  int    // 0 = the pull request Session owns
	Session string // "" = GIT_HANDOFF_SESSION, else this worktree's
}

// AmbiguousPRError says that, with no GitHub repository to tell them
// apart, records of several repositories here have the number asked for.
type AmbiguousPRError struct {
	Number int
	Repos  []string
}

func (e *AmbiguousPRError) Error() string {
	return fmt.Sprintf("pull request #%d is recorded here for %d repositories (%s), and this repository's remote does not say which one it is",
		e.Number, len(e.Repos), strings.Join(e.Repos, ", "))
}

// NoPRError says that no pull request was named and the session owns none.
type NoPRError struct{ Session string }

func (e *NoPRError) Error() string {
	return fmt.Sprintf("name a pull request: the current session (%q) owns none", e.Session)
}

// PRShow reads the ownership record of a pull request, from git alone. On
// error the record still names the pull request looked for, if it got that
// far.
func PRShow(ctx context.Context, st refstore.Clone, opts PRShowOptions) (prown.Stored, error) {
	n, repo := opts.Number, opts.Repo
	if n == 0 {
		id, err := SessionID(st, opts.Session)
		if err != nil {
			return prown.Stored{}, err
		}
		p, err := sessionPR(ctx, st, id)
		if err != nil {
			return prown.Stored{}, fmt.Errorf("finding the pull request of session %q: %w", id, err)
		}
		if p == nil {
			return prown.Stored{}, &NoPRError{Session: id}
		}
		n = p.Number
		if repo == "" {
			repo = p.Repo // the session's pointer names its repository
		}
	}
	if repo == "" {
		return prByNumber(ctx, st, n)
	}
	rec, err := prown.Find(ctx, st, repo, n)
	if err != nil {
		return prown.Stored{Record: prown.Record{Repo: repo, Number: n}}, fmt.Errorf("showing #%d: %w", n, err)
	}
	return rec, nil
}

// prByNumber finds the one ownership record here with number n, whatever
// its repository: what pr show can answer when the remote does not name
// the GitHub repository.
func prByNumber(ctx context.Context, st refstore.Clone, n int) (prown.Stored, error) {
	all, _, err := prown.List(ctx, st)
	if err != nil {
		return prown.Stored{Record: prown.Record{Number: n}}, fmt.Errorf("showing #%d: %w", n, err)
	}
	var found []prown.Stored
	for _, r := range all {
		if r.Number == n {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		if found, err = archivedByNumber(ctx, st, n); err != nil {
			return prown.Stored{Record: prown.Record{Number: n}}, fmt.Errorf("showing #%d: %w", n, err)
		}
	}
	switch len(found) {
	case 0:
		return prown.Stored{Record: prown.Record{Number: n}}, fmt.Errorf("showing #%d: no record of pull request #%d here: %w", n, n, refstore.ErrNotFound)
	case 1:
		return found[0], nil
	}
	e := &AmbiguousPRError{Number: n}
	for _, r := range found {
		e.Repos = append(e.Repos, r.Repo)
	}
	return prown.Stored{Record: prown.Record{Number: n}}, fmt.Errorf("showing #%d: %w", n, e)
}

// archivedByNumber finds the archived ownership records of pull requests
// numbered n, whatever their repository: a merged pull request's record
// retires at the next sync, and `pr show N` outside a GitHub remote must
// still answer for it. One git ls-tree per archive month.
func archivedByNumber(ctx context.Context, st refstore.Clone, n int) ([]prown.Stored, error) {
	all, err := archive.List(ctx, st, archive.PRsDir)
	if err != nil {
		return nil, err
	}
	var out []prown.Stored
	for _, f := range all {
		// prs/<owner>/<name>/<number>, each part encoded (archive.PRPath)
		parts := strings.Split(f.Path, "/")
		if len(parts) != 4 || parts[3] != strconv.Itoa(n) {
			continue
		}
		owner, oerr := refstore.DecodeComponent(parts[1])
		name, nerr := refstore.DecodeComponent(parts[2])
		if oerr != nil || nerr != nil {
			continue
		}
		rec, err := prown.Find(ctx, st, owner+"/"+name, n)
		if err != nil {
			continue // unreadable: the others may still answer
		}
		if !slices.ContainsFunc(out, func(r prown.Stored) bool { return strings.EqualFold(r.Repo, rec.Repo) }) {
			out = append(out, rec)
		}
	}
	return out, nil
}
