package handoff

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// The lease workflows: who asks (the session and its person and agent),
// then the lease package's operation at the board the command chose (the
// arbiter remote, or this clone; teamsync.LeaseBoard).

// LeaseOptions are what a lease command was asked.
type LeaseOptions struct {
	Keys    []string // as typed; canonicalized by lease.ParseKey
	Session string   // "" = GIT_HANDOFF_SESSION, else this worktree's
	TTL     time.Duration
	Note    string
	Reason  string
	All     bool // list: also leases not held
	// Over (take): take the keys over from their holder while it says
	// so, the break's reason Reason (lease.TakeOptions.Over).
	Over func() bool
	// Carry (take): updates swapped with the take, all or none
	// (lease.TakeOptions.Carry).
	Carry func() ([]refstore.Update, error)
}

// LeaseResult is what a lease workflow did.
type LeaseResult struct {
	lease.Result
	Session string
	Offline bool // decided in this clone alone, not at the arbiter
	Notices []string
}

// ParseLeaseKeys canonicalizes keys; a bad one wraps lease.ErrBadKey.
func ParseLeaseKeys(keys []string) ([]lease.Key, error) {
	var out []lease.Key
	seen := map[lease.Key]bool{}
	for _, s := range keys {
		k, err := lease.ParseKey(s)
		if err != nil {
			return nil, err
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// leaseHolder names who takes: the session, its person and agent from its
// record. A session this clone has no record of takes with the person
// git config names (a notice says so); one that is not live cannot take.
func leaseHolder(ctx context.Context, st refstore.Clone, flag string, res *LeaseResult) (lease.Holder, error) {
	id, err := SessionID(st, flag)
	if err != nil {
		return lease.Holder{}, err
	}
	if id == "" {
		return lease.Holder{}, fmt.Errorf("leases are held by a session: %w", ErrNoSession)
	}
	res.Session = id
	s, err := session.Read(ctx, st, id)
	switch {
	case err == nil:
		if !s.Live() {
			return lease.Holder{}, fmt.Errorf("session %s is %s: only a live session can take a lease", id, s.Status)
		}
		return lease.Holder{Session: id, Owner: s.Owner, Agent: s.Harness}, nil
	case errors.Is(err, refstore.ErrNotFound):
		who, err := Resolve(ctx, st, "", "")
		if err != nil {
			return lease.Holder{}, err
		}
		res.Notices = append(res.Notices, fmt.Sprintf("session %s has no record in this clone; the lease names %s as its owner", id, who.Owner))
		return lease.Holder{Session: id, Owner: who.Owner, Agent: HarnessName()}, nil
	default:
		return lease.Holder{}, err
	}
}

// LeaseTake makes the session hold every key, all or none (lease.Take):
// *lease.HeldError names the holder in the way.
func LeaseTake(ctx context.Context, st refstore.Clone, b lease.Board, opts LeaseOptions, clock Clock) (LeaseResult, error) {
	res := LeaseResult{Offline: b.Local()}
	keys, err := ParseLeaseKeys(opts.Keys)
	if err != nil {
		return res, err
	}
	h, err := leaseHolder(ctx, st, opts.Session, &res)
	if err != nil {
		return res, err
	}
	if b.Local() {
		res.Notices = append(res.Notices, "taken in this clone only, not at the arbiter: another clone may take the same key until the next sync settles it")
	}
	r, err := lease.Take(ctx, st, b, lease.TakeOptions{Keys: keys, Holder: h, TTL: opts.TTL, Note: opts.Note, Over: opts.Over, OverReason: opts.Reason, Carry: opts.Carry}, lease.Clock(clock))
	res.Result = r
	return res, err
}

// sessionKeys is what a renewal or release starts from: the keys of
// opts, and the session it acts for, in res.
func sessionKeys(st refstore.Clone, b lease.Board, opts LeaseOptions) (LeaseResult, []lease.Key, error) {
	res := LeaseResult{Offline: b.Local()}
	keys, err := ParseLeaseKeys(opts.Keys)
	if err != nil {
		return res, nil, err
	}
	id, err := SessionID(st, opts.Session)
	if err != nil {
		return res, nil, err
	}
	if id == "" {
		return res, nil, fmt.Errorf("leases are held by a session: %w", ErrNoSession)
	}
	res.Session = id
	return res, keys, nil
}

// LeaseRenew renews the session's leases (opts.Keys; none = all) whose
// renewal is due; with none due it reads nothing but this clone.
func LeaseRenew(ctx context.Context, st refstore.Clone, b lease.Board, opts LeaseOptions, clock Clock) (LeaseResult, error) {
	res, keys, err := sessionKeys(st, b, opts)
	if err != nil {
		return res, err
	}
	r, err := lease.Renew(ctx, st, b, res.Session, keys, lease.Clock(clock))
	res.Result = r
	return res, err
}

// LeaseRelease frees the session's leases on opts.Keys (none = all).
func LeaseRelease(ctx context.Context, st refstore.Clone, b lease.Board, opts LeaseOptions, clock Clock) (LeaseResult, error) {
	res, keys, err := sessionKeys(st, b, opts)
	if err != nil {
		return res, err
	}
	r, err := lease.Release(ctx, st, b, res.Session, keys, opts.Reason, lease.Clock(clock))
	res.Result = r
	return res, err
}

// LeaseBreak frees the one key of opts.Keys whoever holds it, for the
// person git config names, with opts.Reason kept in its history.
func LeaseBreak(ctx context.Context, st refstore.Clone, b lease.Board, opts LeaseOptions, clock Clock) (LeaseResult, error) {
	res := LeaseResult{Offline: b.Local()}
	keys, err := ParseLeaseKeys(opts.Keys)
	if err != nil {
		return res, err
	}
	if len(keys) != 1 {
		return res, fmt.Errorf("%w: break one lease at a time", lease.ErrBadKey)
	}
	who, err := Resolve(ctx, st, "", "")
	if err != nil {
		return res, err
	}
	res.Session, _ = SessionID(st, opts.Session)
	by := who.Owner
	if res.Session != "" {
		by += " (session " + res.Session + ")"
	}
	r, err := lease.Break(ctx, st, b, keys[0], by, opts.Reason, lease.Clock(clock))
	res.Result = r
	return res, err
}

// LeaseViews are the leases as this clone sees them (lease.Views), read
// at the board; when the board cannot be read, this clone's copies, with
// a notice.
type LeaseViews struct {
	Leases  []lease.View
	Session string // the asking session, "" for none
	Where   string
	Notices []string
}

// LeaseList lists the leases held (opts.All: every lease record).
func LeaseList(ctx context.Context, st refstore.Clone, b lease.Board, opts LeaseOptions, clock Clock) (LeaseViews, error) {
	out := LeaseViews{Where: b.Where()}
	out.Session, _ = SessionID(st, opts.Session)
	s, err := b.Snapshot(ctx)
	if err != nil && !b.Local() {
		out.Notices = append(out.Notices, fmt.Sprintf("%v; showing this clone's copy", err))
		b = lease.LocalBoard{St: st}
		out.Where = b.Where()
		s, err = b.Snapshot(ctx)
	}
	if err != nil {
		return out, err
	}
	for _, sk := range s.Skipped {
		out.Notices = append(out.Notices, fmt.Sprintf("skipped %s: %v", sk.Ref, sk.Err))
	}
	out.Leases, err = lease.Views(ctx, st.Local(), s, out.Session, opts.All, clock())
	if err != nil || !opts.All {
		return out, err
	}
	// The leases that ended and retired answer from the board's archive.
	retired, err := lease.Retired(ctx, st, s)
	if err != nil {
		return out, err
	}
	for _, r := range retired {
		out.Leases = append(out.Leases, lease.View{Stored: r, Key: r.ParsedKey(), Archived: true})
	}
	sort.SliceStable(out.Leases, func(i, j int) bool { return out.Leases[i].Ref < out.Leases[j].Ref })
	return out, nil
}

// LeaseShow is one key's lease, held or not, live or retired to the
// archive; refstore.ErrNotFound when it never was taken.
func LeaseShow(ctx context.Context, st refstore.Clone, b lease.Board, opts LeaseOptions, clock Clock) (lease.View, LeaseViews, error) {
	keys, err := ParseLeaseKeys(opts.Keys)
	if err != nil {
		return lease.View{}, LeaseViews{}, err
	}
	if len(keys) != 1 {
		return lease.View{}, LeaseViews{}, fmt.Errorf("%w: show one lease at a time", lease.ErrBadKey)
	}
	opts.All = true
	all, err := LeaseList(ctx, st, b, opts, clock)
	if err != nil {
		return lease.View{}, all, err
	}
	for _, v := range all.Leases {
		if v.Key == keys[0] {
			return v, all, nil
		}
	}
	return lease.View{}, all, fmt.Errorf("%w: no lease of %s", refstore.ErrNotFound, keys[0])
}

// LeasesOfEnded releases every lease an ended session held, at once, so
// nobody waits a TTL for work that stopped.
func LeasesOfEnded(ctx context.Context, st refstore.Clone, b lease.Board, id string, clock Clock) (lease.Result, error) {
	return lease.Release(ctx, st, b, id, nil, "session ended", lease.Clock(clock))
}

// LeasesToSuccessor hands every lease a replaced session held to its
// successor.
func LeasesToSuccessor(ctx context.Context, st refstore.Clone, b lease.Board, from, to string, clock Clock) (lease.Result, error) {
	h := lease.Holder{Session: to}
	if s, err := session.Read(ctx, st, to); err == nil {
		h.Owner, h.Agent = s.Owner, s.Harness
	}
	return lease.HandOver(ctx, st, b, from, h, lease.Clock(clock))
}

// LeaseRenewTurn renews the leases session id holds whose renewal is due,
// for the agents' hooks at the end of every turn: while the session is
// alive its leases never lapse. With none due (the common turn) it reads
// this clone's refs alone and never opens the board (open), so a turn
// pays no fetch and no search for the arbiter.
func LeaseRenewTurn(ctx context.Context, st refstore.Clone, id string, open func(context.Context) (lease.Board, error), clock Clock) (lease.Result, error) {
	if id == "" {
		return lease.Result{}, nil
	}
	b := &lazyBoard{open: open}
	r, err := lease.Renew(ctx, st, b, id, nil, lease.Clock(clock))
	if b.b != nil {
		r.Where = b.b.Where()
	}
	return r, err
}

// lazyBoard opens its board at the first read, so that an operation that
// needs none (a renewal with nothing due) never looks for it.
type lazyBoard struct {
	open func(context.Context) (lease.Board, error)
	b    lease.Board
}

func (l *lazyBoard) Where() string {
	if l.b == nil {
		return "the arbiter"
	}
	return l.b.Where()
}

func (l *lazyBoard) Local() bool { return l.b != nil && l.b.Local() }

func (l *lazyBoard) Snapshot(ctx context.Context) (lease.Snapshot, error) {
	if l.b == nil {
		b, err := l.open(ctx)
		if err != nil {
			return lease.Snapshot{}, err
		}
		l.b = b
	}
	return l.b.Snapshot(ctx)
}

func (l *lazyBoard) Swap(ctx context.Context, msg string, ups []refstore.Update) error {
	if l.b == nil {
		return errors.New("lease board: swap before any read")
	}
	return l.b.Swap(ctx, msg, ups)
}
