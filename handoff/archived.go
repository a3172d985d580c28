package handoff

import (
	"context"
	"errors"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// SessionFind is SessionShow for every session this clone can answer
// for: a live one as SessionShow shows it, else the one the archive holds
// (session.Find), marked Archived, with its recorded status and its line
// (session.LineGraph follows links into the archive too). What the CLI's
// `session show` and the status page call.
func SessionFind(ctx context.Context, st refstore.Clone, id string) (SessionShowResult, error) {
	res, err := SessionShow(ctx, st, id)
	if !errors.Is(err, refstore.ErrNotFound) {
		return res, err
	}
	cur, ferr := session.Find(ctx, st, id)
	if ferr != nil {
		return SessionShowResult{}, ferr
	}
	if cur.Archived == "" {
		// Made live between the two reads: show it as such.
		return SessionShow(ctx, st, id)
	}
	res = SessionShowResult{Session: cur, Lineage: id, Status: cur.Status}
	if g, err := session.LineGraph(ctx, st, id); err == nil {
		res.Lineage = lineage.Summary(g, id)
	}
	return res, nil
}

// SessionListArchived lists the archived sessions that have no live
// record here (session.EachArchived), newest month first, each marked
// Archived, with notices for the records that could not be read: what
// `session ls --archived` adds after the live ones. With since set, only
// those that ended (or last changed) on or after it: what `session ls
// --all` adds, the sessions that ended within the retention age, which
// retire at once.
func SessionListArchived(ctx context.Context, st refstore.Clone, since time.Time) ([]session.Stored, []string, error) {
	var (
		out   []session.Stored
		warns []session.Warning
		from  string
	)
	if !since.IsZero() {
		from = archive.Month(since)
	}
	err := session.EachArchived(ctx, st, from, func(s session.Stored) {
		if since.IsZero() || !s.FinalAt().Before(since) {
			out = append(out, s)
		}
	}, &warns)
	if err != nil {
		return nil, nil, err
	}
	var notices []string
	for _, w := range warns {
		notices = append(notices, w.String())
	}
	return out, notices, nil
}
