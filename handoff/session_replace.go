package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// SessionReplaceOptions are what `session replace` was asked. Transfer,
// PackageExtra and Host of the embedded options are the workflow's own.
type SessionReplaceOptions struct {
	session.ReplaceOptions
	// ClaimPR moves the old session's pull request to the new one, in the
	// replacement's transaction, and then updates its ownership comment.
	ClaimPR bool
	// Connect reaches GitHub for the pull request's facts (summary mode)
	// and its comment (ClaimPR); only called when the old session owns one.
	Connect Connect
	// NoSnapshot skips the snapshot of the old session's uncommitted work
	// taken by default when its worktree is here and dirty.
	NoSnapshot bool
	// Stop ends the old session's agent under tmux (and its tmux session)
	// once the replacement exists; Grace is its time to exit on SIGTERM.
	Stop  bool
	Grace time.Duration
	// Arbiter decides the claim of the baton the old session left, carried
	// to the new one, where claims are decided (as a start's claim is);
	// nil = Local.
	Arbiter Arbiter
}

// SessionReplaceResult is what a replacement did.
type SessionReplaceResult struct {
	session.ReplaceResult
	// GitHub is what was done to the moved pull request's comment:
	// Comment is skipped (nothing moved), updated or failed.
	GitHub PRGitHub
	// Snapshot is the old session's uncommitted work, kept (snapshot.go).
	Snapshot SnapshotTaken
	// Captured: the terminal excerpt was read from the old agent's tmux
	// pane. Stopped: that agent was ended (Stop).
	Captured, Stopped bool
}

// SessionReplace replaces a session with a new one (session.Replace), with
// the facts of the pull request it owns in the handoff package and, with
// ClaimPR, that pull request moved along. GitHub failing after the swap is
// in GitHub.Errors: the replacement stands.
func SessionReplace(ctx context.Context, st refstore.Clone, opts SessionReplaceOptions, clock Clock) (SessionReplaceResult, error) {
	ro := opts.ReplaceOptions
	ro.Host, _ = os.Hostname()
	ro.Transfer, ro.PackageExtra = nil, ""
	now := clock()
	var notices []string
	prev, err := session.Read(ctx, st, ro.OldID)
	captured := false
	if err == nil && len(ro.Terminal) == 0 && prev.Runtime != nil && ro.Context != session.ContextNone {
		// Without a terminal log given, the pane of an agent under tmux
		// is the log: its recent output, as tmux renders it.
		raw, cerr := captureFor(ctx, prev.Record)
		if cerr != nil {
			notices = append(notices, "the old agent's terminal was not captured: "+cerr.Error())
		} else if len(raw) > 0 {
			ro.Terminal, captured = raw, true
		}
	}
	if err == nil && ro.Context != session.ContextNone {
		var more []string
		ro.Transcript, more = lastWords(ctx, st, prev)
		notices = append(notices, more...)
	}
	if err == nil && prev.PR != nil {
		if ro.Context == session.ContextSummary {
			ro.PackageExtra, notices = PRFacts(ctx, opts.Connect, prev.PR)
		}
		if !opts.ClaimPR {
			notices = append(notices, fmt.Sprintf("%s#%d stays owned by %s; `git handoff pr route %d` leads to its successor (pass --claim-pr to move it)", prev.PR.Repo, prev.PR.Number, prev.ID, prev.PR.Number))
		}
	}
	if err == nil && ro.Context != session.ContextNone {
		ro.PackageExtra += packageLeases(ctx, st, ro.OldID, now)
	}
	if ro.NewID == "" {
		ro.NewID = session.NewID() // named in the package's snapshot section
	}
	taken, snapNotes := relaunchSnapshot(ctx, st, ro.OldID, opts.NoSnapshot)
	notices = append(notices, snapNotes...)
	if taken.Snapshot != nil && ro.Context != session.ContextNone {
		ro.PackageExtra += replaceSnapshotSection(*taken.Snapshot, ro.NewID)
	}
	if opts.ClaimPR {
		ro.Transfer = func(ctx context.Context, old session.Record, next, prev *session.Record) ([]refstore.Update, error) {
			ups, rec, err := prown.TransferUpdates(ctx, st, old.ID, *next, next.HandoffReason, now)
			if err != nil || rec == nil {
				return ups, err
			}
			next.PR, prev.PR = rec.Pointer(), nil
			return ups, nil
		}
	}
	carry := decideCarry(st, arbiter(opts.Arbiter), ro.NewID)
	// The claims lock goes with the call however it ends: a panic through
	// Replace (the simulation's process death) left it held, and the next
	// claim of this repository in the same process waited for ever.
	defer carry.unlocked()
	ro.DecideCarry = carry.decide
	rep, err := session.Replace(ctx, st, ro, now)
	carry.done(ctx, err == nil)
	res := SessionReplaceResult{ReplaceResult: rep, GitHub: PRGitHub{Comment: CommentSkipped}, Snapshot: taken, Captured: captured}
	res.Notices = append(notices, rep.Notices...)
	if err != nil {
		return res, err
	}
	if opts.Stop {
		// Only now: a replacement that failed leaves the old agent running.
		stopped, serr := stopReplaced(ctx, prev.Record, opts.Grace)
		res.Stopped = stopped
		if serr != nil {
			res.Notices = append(res.Notices, "the old agent was not stopped: "+serr.Error())
		}
	}
	if opts.ClaimPR && rep.New.PR != nil {
		if err := tellOwner(ctx, st, opts.Connect, rep.New.PR); err != nil {
			res.GitHub.Comment, res.GitHub.Errors = CommentFailed, []error{err}
		} else {
			res.GitHub.Comment = CommentUpdated
		}
	}
	return res, nil
}

// carrying decides the claim of a carried baton at the arbiter, as a
// claim is decided: its objects held and the claim noted as pending before
// the push, so that a process killed before the replacement's transaction
// leaves the claim for the next start to deliver (pending.go).
type carrying struct {
	st      refstore.Clone
	arb     Arbiter
	session string
	unlock  func()
	lock    batonLock // the baton carried
	note    *pendingClaim
	pass    held
	// carried says the last decision put the claim in the replacement's
	// transaction: only then does the transaction record it.
	carried bool
}

func decideCarry(st refstore.Clone, arb Arbiter, session string) *carrying {
	return &carrying{st: st, arb: arb, session: session}
}

// decide is session.ReplaceOptions.DecideCarry. A replacement tries again
// after a lost swap: a claim this session holds at the arbiter already is
// its own.
func (c *carrying) decide(ctx context.Context, up refstore.Update) (err error) {
	defer func() { c.carried = err == nil }()
	decider, local := pinned(ctx, c.st, c.arb, up.Ref)
	if local {
		return nil
	}
	if c.unlock == nil {
		c.unlock = lockClaims(c.st)
	}
	c.release(ctx)
	b, err := baton.Read(ctx, c.st, up.Ref)
	if err != nil {
		return err
	}
	if err := c.lock.lock(ctx, c.st, b.ID); err != nil {
		return err
	}
	if c.pass, err = hold(ctx, c.st, "carry", up.New); err != nil {
		return err
	}
	c.note = &pendingClaim{Baton: b.ID, Ref: up.Ref, Old: up.Old, Claimed: up.New, Session: c.session, Held: c.pass.group}
	if err := notePending(ctx, c.st, c.note); err != nil {
		c.note = nil
		return err
	}
	err = decider.Arbitrate(ctx, c.st, up)
	var ce *baton.ClaimedError
	if errors.As(err, &ce) && ce.Baton.ClaimedBySession == c.session {
		return nil // an earlier attempt's push
	}
	if err != nil && (errors.Is(err, refstore.ErrConflict) || nothingLanded(err)) {
		c.release(ctx) // decided elsewhere, or never pushed: nothing pending
	}
	return err
}

// release drops the pending note and the hold of a carry not to record.
func (c *carrying) release(ctx context.Context) {
	if c.note != nil {
		dropPending(ctx, c.st, c.note)
		c.note = nil
	}
}

// done settles the carry once the replacement's transaction ran: recorded
// with the claim in it, the note goes; otherwise a claim the arbiter may
// hold stays noted for the next start. A replacement whose claim push got
// no answer goes on without the baton, and its transaction records no
// claim: that push may land yet, so the note stays (found by the widened
// simulation, seed 64: the note went with the transaction, a late push
// landed, and the baton was claimed by a session told it had none).
func (c *carrying) done(ctx context.Context, recorded bool) {
	if recorded && c.carried {
		c.release(ctx)
	}
	c.unlocked()
}

// unlocked releases the locks the carry took (the claims lock, the
// baton's), if it holds them.
func (c *carrying) unlocked() {
	c.lock.unlock()
	if c.unlock != nil {
		c.unlock()
		c.unlock = nil
	}
}

// tellOwner writes the ownership comment of the pull request p after its
// ownership moved in git.
func tellOwner(ctx context.Context, st refstore.Records, connect Connect, p *session.PRPointer) error {
	rec, err := prown.Read(ctx, st, p.Repo, p.Number)
	if err != nil {
		return err
	}
	if connect == nil {
		return fmt.Errorf("no GitHub connection")
	}
	gh, err := connect(ctx)
	if err != nil {
		return err
	}
	_, _, err = gh.UpsertOwnershipComment(ctx, p.Number, prdata.RenderOwnershipComment(prown.Comment(rec.Record)))
	return err
}

// lastWords is what the replaced session's agent said last, from its
// transcript, credentials taken out, with notices of what was not found
// or was redacted.
func lastWords(ctx context.Context, st refstore.Clone, prev session.Stored) (string, []string) {
	var notices []string
	quote, n := transcriptQuote(prev.Harness, noteOf(ctx, st, &prev.Record).Transcript)
	if n != "" {
		notices = append(notices, n)
	}
	text, hits := scrubText(quote)
	if n := redactedNotice(hits); n != "" {
		notices = append(notices, n)
	}
	return text, notices
}
