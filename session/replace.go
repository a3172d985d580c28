package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
)

// Context modes: what a replacement carries over from the session it replaces.
const (
	ContextSummary = "summary" // build the handoff package
	ContextNone    = "none"    // record the lineage only
)

// Reasons for a replacement with a name of their own; any other text is
// kept as given.
var Reasons = []string{"stuck", "crashed", "confused", "manual"}

// CommitTrailer is the commit trailer naming the session that made a commit
// (the hooks package writes it).
const CommitTrailer = "Handoff-Session"

// ReplaceOptions are what a replacement was asked.
type ReplaceOptions struct {
	OldID    string
	NewID    string // "" = make one
	Reason   string // "" = manual
	Harness  string // "" = the old session's
	Model    string // "" = the old one's when the harness stays, else none
	Context  string // ContextSummary (default) or ContextNone
	Terminal []byte // raw terminal output of the old session, optional
	// Transcript is the end of the old agent's transcript, bounded and
	// redacted (the workflow reads it where the agent keeps it).
	Transcript string
	Host       string

	// Transfer, when set, adds its updates to the replacement's one ref
	// transaction and may change both records: the pull request the old
	// session owns moves to the new one this way. It is called again, with
	// fresh records, after a lost swap.
	Transfer func(ctx context.Context, old Record, next, prev *Record) ([]refstore.Update, error)
	// DecideCarry decides the claim of the baton the old session left
	// (carried to the new one) where claims are decided, before the
	// replacement's transaction records it; an error leaves the baton
	// where it is, not carried, with a notice. nil: the transaction alone
	// decides (found by the simulation: a carry decided only here let a
	// start in another clone claim the same baton at the remote).
	DecideCarry func(ctx context.Context, up refstore.Update) error
	// PackageExtra is more Markdown for the handoff package (pull request
	// facts: failing checks, unresolved review threads).
	PackageExtra string
}

// ReplaceResult is what a replacement did.
type ReplaceResult struct {
	Old     Stored
	New     Stored
	Package string        // the handoff package; "" in none mode
	Carried *baton.Stored // the old session's baton, now claimed by the new one
	Bound   string        // the worktree now bound to the new session, if any
	// Redacted is what was taken out of the reason and the package before
	// they were written.
	Redacted []redact.Hit
	Notices  []string
}

// NewID makes a short id, unique across clones in practice; creation
// still refuses an id that exists.
func NewID() string { return baton.NewID("s") }

// Replace records, in one ref transaction, that a new session replaces
// opts.OldID: the old one becomes replaced (replacedBy, handoffAt), the new
// one is created (supersedes, handoffReason, handoffAt, handoffContextMode,
// and in summary mode the handoff package as its first instruction), and the
// old session's unclaimed baton is claimed by the new one. Of any number of
// concurrent replacements of one session exactly one wins; the others get a
// *ReplacedError naming the winner. The worktree binding then moves to the
// new session when the old one's worktree is bound to it.
func Replace(ctx context.Context, st refstore.Clone, opts ReplaceOptions, now time.Time) (ReplaceResult, error) {
	opts, err := replaceDefaults(opts)
	if err != nil {
		return ReplaceResult{}, err
	}
	// The reason is free text ("any text", says --reason), kept in the new
	// record and quoted by its package: a credential in it goes no further.
	var reasonHits []redact.Hit
	opts.Reason, reasonHits = redact.Text(opts.Reason)
	newRef, err := refstore.SessionRef(opts.NewID)
	if err != nil {
		return ReplaceResult{}, fmt.Errorf("session id %q: %w", opts.NewID, err)
	}
	var term terminalExcerpt
	if len(opts.Terminal) > 0 {
		term.text, term.truncated = brief.TerminalExcerpt(opts.Terminal)
	}
	for attempt := 0; ; attempt++ {
		r, err := decideReplace(ctx, st, opts, term, now)
		if err != nil {
			return ReplaceResult{}, err
		}
		prevUp, err := Written(ctx, st, r.prev, r.old)
		if err != nil {
			return ReplaceResult{}, err
		}
		nextUp, err := Written(ctx, st, r.next, Stored{})
		if err != nil {
			return ReplaceResult{}, err
		}
		// Apply moves refs in this order and a kill can stop it after any
		// of them: the successor, its carried baton and the PR moves come
		// first and the old session is marked replaced last. A prefix then
		// leaves at worst a new session beside an old one still active; the
		// other way round the old one would be replacedBy a session that
		// does not exist, and replace and restore of it refused for good.
		ups := append(append([]refstore.Update{nextUp}, r.ups...), prevUp)
		err = st.Apply(ctx, fmt.Sprintf("handoff: %s replaces %s (%s)", opts.NewID, r.old.ID, brief.OneLine(opts.Reason)), ups...)
		if err == nil {
			res := r.applied(ctx, st, prevUp, nextUp, newRef)
			if n := redact.Describe(reasonHits); n != "" {
				res.Redacted = redact.Merge(reasonHits, res.Redacted)
				res.Notices = append(res.Notices, n+" (the reason)")
			}
			return res, nil
		}
		var ce *refstore.ConflictError
		if !errors.As(err, &ce) {
			return ReplaceResult{}, err
		}
		if ce.Ref == newRef {
			return ReplaceResult{}, &ExistsError{ID: opts.NewID}
		}
		if attempt == 4 {
			return ReplaceResult{}, err
		}
		// The old record or its baton moved: decide again from fresh values.
		// If another replacement won, checkReplace names it.
	}
}

// replaceDefaults fills in what opts left out: a new id, the reason
// "manual", the summary context mode. An unknown context mode is refused.
func replaceDefaults(opts ReplaceOptions) (ReplaceOptions, error) {
	if opts.NewID == "" {
		opts.NewID = NewID()
	}
	if opts.Reason = strings.TrimSpace(opts.Reason); opts.Reason == "" {
		opts.Reason = "manual"
	}
	switch opts.Context {
	case "":
		opts.Context = ContextSummary
	case ContextSummary, ContextNone:
	default:
		return opts, fmt.Errorf("unknown context mode %q: use %s or %s", opts.Context, ContextSummary, ContextNone)
	}
	return opts, nil
}

// terminalExcerpt is the end of the old session's terminal output that
// the handoff package quotes.
type terminalExcerpt struct {
	text      string
	truncated bool
}

// replacement is what one attempt at a replacement decided from the
// records it read.
type replacement struct {
	old  Stored
	next Record            // the new session
	prev Record            // the old one, marked replaced
	ups  []refstore.Update // the carried baton's claim, then Transfer's
	res  ReplaceResult
}

// decideReplace reads the old session, checks that it may be replaced by
// opts.NewID, and decides both records and the updates that go with them.
func decideReplace(ctx context.Context, st refstore.Clone, opts ReplaceOptions, term terminalExcerpt, now time.Time) (*replacement, error) {
	old, err := Read(ctx, st, opts.OldID)
	if err != nil {
		return nil, err
	}
	if err := checkReplace(ctx, st, old.Record, opts.NewID); err != nil {
		return nil, err
	}
	at := now
	r := &replacement{old: old, next: successor(old.Record, opts, &at, now)}
	if opts.Context == ContextSummary {
		ups, err := carryContext(ctx, st, old.Record, opts, term, now, &r.next, &r.res)
		if err != nil {
			return nil, err
		}
		r.ups = ups
	}
	r.prev = markedReplaced(old.Record, opts.NewID, &at, now)
	if opts.Transfer != nil {
		more, err := opts.Transfer(ctx, old.Record, &r.next, &r.prev)
		if err != nil {
			return nil, err
		}
		r.ups = append(r.ups, more...)
	}
	return r, nil
}

// successor is the new session's record: old's line, branch, worktree and
// prompt, with the harness and model opts asks for, handed off at *at.
func successor(old Record, opts ReplaceOptions, at *time.Time, now time.Time) Record {
	next := Record{
		ID: opts.NewID, Owner: old.Owner, Branch: old.Branch, Worktree: old.Worktree, Host: opts.Host,
		Harness: old.Harness, Model: old.Model, Status: StatusActive, Prompt: old.Prompt,
		CreatedAt: now, UpdatedAt: now,
		Supersedes: old.ID, HandoffReason: opts.Reason, HandoffAt: at, HandoffContextMode: opts.Context,
	}
	if opts.Harness != "" && canonical(opts.Harness) != canonical(old.Harness) {
		next.Harness, next.Model = opts.Harness, ""
	}
	if opts.Model != "" {
		next.Model = opts.Model
	}
	return next
}

// markedReplaced is the old session's record once newID replaces it at *at.
func markedReplaced(old Record, newID string, at *time.Time, now time.Time) Record {
	prev := old
	prev.Status, prev.ReplacedBy, prev.HandoffAt, prev.UpdatedAt = StatusReplaced, newID, at, now
	if prev.EndedAt == nil {
		prev.EndedAt = at
	}
	return prev
}

// carryContext is summary mode: the old session's unclaimed baton is
// claimed by the new one (the update returned), and the handoff package is
// built and set as the new session's first instruction.
func carryContext(ctx context.Context, st refstore.Clone, old Record, opts ReplaceOptions, term terminalExcerpt, now time.Time, next *Record, res *ReplaceResult) ([]refstore.Update, error) {
	var ups []refstore.Update
	carried, warns, err := unclaimedBaton(ctx, st, old)
	if err != nil {
		return nil, err
	}
	res.Notices = append(res.Notices, warns...)
	in := brief.PackageInput{Old: predecessor(old), NewID: opts.NewID, Reason: opts.Reason, Terminal: term.text, Truncated: term.truncated, Transcript: opts.Transcript, Extra: opts.PackageExtra, Now: now}
	if carried != nil && carried.Auto != nil && in.Transcript == "" {
		in.Transcript = carried.Auto.Transcript
	}
	if carried == nil && len(old.ClaimedHandoff) > 0 {
		continueClaimedTask(old, &in, next, res)
	}
	if carried != nil {
		claimed, up, err := baton.Claimed(ctx, st, *carried, opts.NewID, now)
		if err != nil {
			return nil, err
		}
		decided := error(nil)
		if opts.DecideCarry != nil {
			decided = opts.DecideCarry(ctx, up)
		}
		if decided != nil {
			// Not the new session's: the baton stays where it is.
			res.Notices = append(res.Notices, fmt.Sprintf("baton %s, left by session %s, was not carried: %v", carried.ID, old.ID, decided))
		} else {
			ups = append(ups, up)
			res.Carried = &claimed
			in.Baton = &carried.Baton
			next.ClaimedHandoff, _ = baton.Marshal(&claimed.Baton)
		}
	}
	in.Commits, in.Total, err = sessionCommits(ctx, st, old)
	if err != nil {
		res.Notices = append(res.Notices, "commits left out of the handoff package: "+err.Error())
	}
	// It quotes the old session's summary, task and terminal:
	// a credential in any of them goes no further than here.
	res.Package, res.Redacted = redact.Text(brief.BuildPackage(in))
	next.HandoffPackage = res.Package
	if n := redact.Describe(res.Redacted); n != "" {
		res.Notices = append(res.Notices, n+" (the handoff package)")
	}
	return ups, nil
}

// continueClaimedTask carries the baton the old session had claimed, when
// it left none unclaimed.
func continueClaimedTask(old Record, in *brief.PackageInput, next *Record, res *ReplaceResult) {
	// Its task goes on in the new session: shown in the
	// package, and kept as the baton it works from, so that
	// a relaunch or the next replacement carries it too.
	var task baton.Baton
	if err := json.Unmarshal(old.ClaimedHandoff, &task); err != nil {
		res.Notices = append(res.Notices, fmt.Sprintf("the baton session %s had claimed could not be read back: %v", old.ID, err))
	} else {
		in.Task = &task
		next.ClaimedHandoff = old.ClaimedHandoff
	}
}

// applied is the result once the transaction is applied; the worktree
// binding then moves to the new session when it was the old one's.
func (r *replacement) applied(ctx context.Context, st refstore.Clone, prevUp, nextUp refstore.Update, newRef string) ReplaceResult {
	res := r.res
	r.next.Schema, r.prev.Schema = Schema, Schema
	res.Old = Stored{Record: r.prev, Ref: prevUp.Ref, OID: prevUp.New}
	res.New = Stored{Record: r.next, Ref: newRef, OID: nextUp.New}
	bound, notice := moveBinding(ctx, st, r.old.Record, newRef)
	res.Bound = bound
	if notice != "" {
		res.Notices = append(res.Notices, notice)
	}
	return res
}

// ExistsError refuses to create a session whose id is taken.
type ExistsError struct{ ID string }

func (e *ExistsError) Error() string { return fmt.Sprintf("session %q already exists", e.ID) }
func (e *ExistsError) Unwrap() []error {
	return []error{ErrExists, refstore.ErrConflict}
}

// checkReplace refuses what would break the line: a replaced or merged old
// session, a new id that exists, a cycle or a fork.
func checkReplace(ctx context.Context, st refstore.Records, old Record, newID string) error {
	if old.Status == StatusMerged {
		return &ReadOnlyError{ID: old.ID, Doing: "replace"}
	}
	if old.Status == StatusReplaced || old.ReplacedBy != "" {
		e := &ReplacedError{ID: old.ID, By: old.ReplacedBy}
		if g, err := LineGraph(ctx, st, old.ID); err == nil {
			e.Live = g.Live(old.ID)
		}
		return e
	}
	if _, err := Read(ctx, st, newID); err == nil {
		return &ExistsError{ID: newID}
	} else if !errors.Is(err, refstore.ErrNotFound) {
		return err
	}
	line, err := Line(ctx, st, old.ID)
	if err != nil {
		return err
	}
	g := lineage.NewGraph(Nodes(line))
	if by, ok := g.Successor(old.ID); ok {
		// A replacement under way: it writes the new session before it
		// marks the old one (see Replace), so its successor shows first.
		return &ReplacedError{ID: old.ID, By: by, Live: g.Live(old.ID)}
	}
	if err := g.CheckReplace(old.ID, newID); err != nil {
		return &RefusedError{Err: err}
	}
	return nil
}

// unclaimedBaton finds the baton the old session left that nobody claimed:
// its owner's private baton on its branch, or a shared one, written by it.
func unclaimedBaton(ctx context.Context, st refstore.Records, old Record) (*baton.Stored, []string, error) {
	var notices []string
	if ref, err := refstore.HandoffRef(false, old.Owner, old.Branch); err == nil {
		b, err := baton.Read(ctx, st, ref)
		switch {
		case err == nil:
			if b.Live() && b.SessionID == old.ID {
				return &b, nil, nil
			}
		case errors.Is(err, refstore.ErrNotFound):
		case errors.Is(err, refstore.ErrInvalidRecord), errors.Is(err, refstore.ErrTooLarge):
			notices = append(notices, "skipping "+ref+": "+err.Error())
		default:
			return nil, nil, err
		}
	}
	var found *baton.Stored
	var warns []baton.Warning
	err := baton.Each(ctx, st, refstore.SharedPrefix, func(b baton.Stored) {
		if b.Live() && b.SessionID == old.ID && (found == nil || baton.Newer(&b.Baton, &found.Baton)) {
			c := b
			found = &c
		}
	}, &warns)
	for _, w := range warns {
		notices = append(notices, w.String())
	}
	return found, notices, err
}

// sessionCommits lists the commits the old session made on its branch:
// those whose Handoff-Session trailer names it, and, where commits carry no
// such trailer, those committed since it started. Commits naming another
// session are left out.
func sessionCommits(ctx context.Context, st refstore.Worktree, old Record) ([]refstore.Commit, int, error) {
	log, err := st.TrailerLog(ctx, old.Branch, CommitTrailer, 500)
	if err != nil {
		return nil, 0, err
	}
	var out []refstore.Commit
	total := 0
	for _, c := range log {
		mine := slices.Contains(c.Values, old.ID)
		if !mine && (len(c.Values) > 0 || c.Committed.Before(old.CreatedAt)) {
			continue
		}
		total++
		if len(out) < brief.MaxPackageCommits {
			out = append(out, c.Commit)
		}
	}
	return out, total, nil
}

// moveBinding points the old session's worktree at the new session when it
// was bound to the old one. It returns the worktree it rebound.
func moveBinding(ctx context.Context, st refstore.Worktree, old Record, newRef string) (string, string) {
	wt, done, err := st.OpenWorktree(ctx, old.Worktree)
	defer done()
	if err != nil || wt == nil {
		return "", ""
	}
	bound, err := wt.BoundSession()
	if err != nil || bound != old.ID {
		return "", ""
	}
	if err := wt.Bind(newRef); err != nil {
		return "", fmt.Sprintf("worktree %s is still bound to %s: %v", old.Worktree, old.ID, err)
	}
	return wt.Dir(), ""
}

// predecessor is what the handoff package shows of the replaced session.
func predecessor(r Record) brief.Predecessor {
	p := brief.Predecessor{
		ID: r.ID, Harness: r.Harness, Model: r.Model, Branch: r.Branch, Status: r.Status, Worktree: r.Worktree,
		Prompt: r.Prompt, Summary: r.Summary, UpdatedAt: r.UpdatedAt,
	}
	if r.PR != nil {
		p.PR = &brief.PRLink{Repo: r.PR.Repo, Number: r.PR.Number, URL: r.PR.URL}
	}
	return p
}
