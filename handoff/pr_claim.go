package handoff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRClaimOptions are what `pr claim` was asked.
type PRClaimOptions struct {
	Number     int    // 0 = the open pull request of the current branch
	Session    string // "" = GIT_HANDOFF_SESSION, else this worktree's
	NoTakeover bool
	Assign     bool   // assign the pull request to the token's user
	Label      string // add this label; "" = none
	NoComment  bool   // leave the ownership comment alone
	// Leases is where the pull request's lease (pr:N) is decided: the
	// claiming session takes it before the swap, and another session
	// holding it refuses the claim (*lease.HeldError); once the claim
	// stands, the lease is taken over or confirmed in one swap with the
	// ownership record (prLeasing.after). nil takes none.
	Leases lease.Board
}

// PRClaimResult is what a claim did, in git and then on GitHub.
type PRClaimResult struct {
	Number int // the pull request, also when the claim failed
	prown.ClaimResult
	GitHub PRGitHub
	// Lease is what was done to the lease pr:N (taken, already the
	// session's, taken over); nil when none was taken.
	Lease *lease.Outcome
}

// PRGitHub says what was done on GitHub after the swap in git.
type PRGitHub struct {
	// Comment is created, updated (edited, or already up to date), none (no
	// comment of ours to edit), skipped or failed.
	Comment   string
	CommentID int64  // 0 when none was written or found
	Assigned  string // the login assigned, else ""
	Labeled   string // the label added, else ""
	// Errors are GitHub's failures after the swap, which stands: git is
	// the source of truth, and running the same workflow again finishes
	// the GitHub side.
	Errors []error
}

// The values of PRGitHub.Comment.
const (
	CommentCreated = "created"
	CommentUpdated = "updated"
	CommentNone    = "none"
	CommentSkipped = "skipped"
	CommentFailed  = "failed"
)

// PRClaim makes a session the owner of a pull request: it reads the pull
// request from the host (a closed one is refused with prdata.ErrNotOpen, a
// merged one also marks its owner merged), swaps the ownership record in
// git, and only then writes the ownership comment, the assignee and the
// label. Failures on GitHub after the swap are in the result's
// GitHub.Errors, not the error: the claim stands.
//
// Without a token it refuses before anything changes (*prdata.AuthError with
// NoToken) unless it writes nothing to GitHub.
func PRClaim(ctx context.Context, st refstore.Clone, gh PRHost, opts PRClaimOptions, clock Clock) (PRClaimResult, error) {
	res := PRClaimResult{Number: opts.Number, GitHub: PRGitHub{Comment: CommentSkipped}}
	session, err := SessionID(st, opts.Session)
	if err != nil {
		return res, err
	}
	if session == "" {
		return res, fmt.Errorf("claiming a pull request: %w", ErrNoSession)
	}
	writes := !opts.NoComment || opts.Assign || opts.Label != ""
	if writes && !gh.HasToken() {
		return res, &prdata.AuthError{Op: "claiming a pull request (it writes to GitHub)", NoToken: true}
	}
	repo := gh.Repo().FullName()

	// 1. The pull request, as GitHub has it now.
	pr, doing, err := prToClaim(ctx, st, gh, opts.Number, &res.Number)
	if err != nil {
		return res, err
	}
	if !pr.Open() {
		if pr.Merged {
			res.Notices = markMerged(ctx, st, repo, res.Number, clock())
		}
		return res, fmt.Errorf("%s: #%d is %s: %w", doing, res.Number, pr.State, prdata.ErrNotOpen)
	}

	// 2. The lease: one session works on the pull request.
	pl := prLeasing{st: st, b: opts.Leases, session: session, key: lease.Key{Kind: lease.KindPR, Value: strconv.Itoa(res.Number)}, clock: clock}
	owner := ""
	if rec, err := prown.Read(ctx, st, repo, res.Number); err == nil {
		owner = rec.OwnerSession
	}
	if err := pl.before(ctx, owner); err != nil {
		return res, fmt.Errorf("%s: %w", doing, err)
	}

	// 3. The swap in git: the source of truth.
	notices := res.Notices
	claim, err := prown.Claim(ctx, st, prown.ClaimOptions{
		Repo: repo, Number: res.Number, URL: pr.URL, Session: session, NoTakeover: opts.NoTakeover,
	}, clock())
	res.ClaimResult = claim
	res.Notices = append(notices, claim.Notices...)
	if err != nil {
		res.Notices = append(res.Notices, pl.undo(ctx)...)
		return res, fmt.Errorf("%s: %w", doing, err)
	}
	res.Notices = append(res.Notices, pl.after(ctx, repo, res.Number, owner)...)
	res.Lease = pl.outcome

	// 4. GitHub, only now.
	res.GitHub = onGitHub(ctx, gh, opts, res.Number, pr, claim.Record.Record)
	return res, nil
}

// PRLeaseNote is the note of a lease pr:N taken with the pull request's
// ownership.
const PRLeaseNote = "with the ownership of the pull request (pr claim)"

// prLeasing holds the lease of the pull request a session claims (pr:N)
// for it, at board b (nil: none is taken). It is taken before the swap:
// another session holding it refuses the claim (*lease.HeldError, exit 5)
// when it took it by `lease take`. One that holds it with the ownership
// (PRLeaseNote: its own pr claim, even one whose swap has not landed yet)
// or owns the pull request leaves the claim to ownership's rules, as
// before leases (--no-takeover), and a claim that stands takes the lease
// over (a break, in the log, then a take). A lease that cannot be decided
// otherwise (the arbiter unreachable) is a notice: ownership is decided
// in git whatever the leases.
type prLeasing struct {
	st      refstore.Clone
	b       lease.Board
	session string
	key     lease.Key
	clock   Clock
	taken   bool // taken anew by this claim: released if the swap fails
	later   bool // held by the owner: taken once the claim stands
	notice  string
	outcome *lease.Outcome
}

func (p *prLeasing) take(ctx context.Context, over func() bool, reason string, carry func() ([]refstore.Update, error)) error {
	// The take's own notices (decided in this clone only, a session
	// without a record) are left out: the outcome says where.
	lr, err := LeaseTake(ctx, p.st, p.b, LeaseOptions{Keys: []string{p.key.String()}, Session: p.session, Note: PRLeaseNote, Over: over, Reason: reason, Carry: carry}, p.clock)
	if err != nil {
		return err
	}
	for _, o := range lr.Leases {
		if o.Key == p.key {
			p.outcome, p.taken = &o, p.taken || o.Action != lease.Mine
		}
	}
	return nil
}

// before takes the lease, or refuses the claim; owner is the pull
// request's owner now ("" none).
func (p *prLeasing) before(ctx context.Context, owner string) error {
	if p.b == nil {
		return nil
	}
	err := p.take(ctx, nil, "", nil)
	var held *lease.HeldError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &held):
		p.notice = fmt.Sprintf("the lease %s was not taken (%v): take it with `git handoff lease take %s`", p.key, err, p.key)
		return nil
	case held.By.Note == PRLeaseNote || owner != "" && owner != p.session && held.By.Session == owner:
		p.later = true
		return nil
	}
	return fmt.Errorf("%w (once its holder is gone, `git handoff lease break %s --reason R` frees it)", err, p.key)
}

// after runs once the claim stands: the lease goes to the claim's
// session, in one swap with the claim's ownership record (carried to the
// board, Carrier), while this session still owns the pull request here
// and the join sync applies keeps its record over the board's. A
// takeover takes the lease of the owner before it that way; a lease
// taken (or held) before the swap is confirmed that way.
//
// Why the record rides along: ownership is written in this clone and
// reaches the others by sync, but the lease is decided at the arbiter at
// once. A takeover that asked only this clone's record could, with a
// stale copy, take the lease from a claim that owns the pull request by
// now (claims in two clones: B swaps, C swaps after seeing it, C takes
// the lease, then B takes it back: owner C, lease B). With every claim's
// record at the board in the swap that moves the lease, the swap of a
// claim another has won over fails there (lease.ErrNotCarried), and of
// claims racing, the lease ends with the one whose record the join
// keeps. A board's record that wins over ours also gives back a lease
// taken before the swap: the pull request is another's.
func (p *prLeasing) after(ctx context.Context, repo string, n int, owner string) []string {
	if p.b == nil {
		return nil
	}
	carry := p.carry(ctx, repo, n)
	switch {
	case p.later:
		from := "the pull request over"
		if owner != "" {
			from += " from session " + owner
		}
		owns := func() bool {
			rec, err := prown.Read(ctx, p.st, repo, n)
			return err == nil && rec.OwnerSession == p.session
		}
		err := p.take(ctx, owns, "pr claim took "+from, carry)
		switch {
		case err == nil, errors.Is(err, lease.ErrNotOver):
		case errors.Is(err, lease.ErrNotCarried):
			p.notice = fmt.Sprintf("the lease %s stays with its holder: %s holds a claim of the pull request that wins over this one (the next `git handoff sync` brings it here)", p.key, p.b.Where())
		default:
			p.notice = fmt.Sprintf("the lease %s was not taken over (%v): `git handoff lease take %s`", p.key, err, p.key)
		}
	case p.outcome != nil && carry != nil:
		before := *p.outcome
		err := p.take(ctx, nil, "", carry)
		switch {
		case err == nil:
			// What the claim did to the lease is what it did before the
			// swap (taken, taken over when expired); the confirmation
			// only names the version the board holds now.
			before.Lease = p.outcome.Lease
			p.outcome = &before
		case errors.Is(err, lease.ErrNotCarried):
			p.notice = fmt.Sprintf("the lease %s was given back: %s holds a claim of the pull request that wins over this one (the next `git handoff sync` brings it here)", p.key, p.b.Where())
			if _, rerr := lease.Release(ctx, p.st, p.b, p.session, []lease.Key{p.key}, "another claim of the pull request won at "+p.b.Where(), lease.Clock(p.clock)); rerr != nil {
				p.notice += fmt.Sprintf("; releasing it failed (%v): `git handoff lease release %s`", rerr, p.key)
			}
			p.outcome = nil
		default:
			p.notice = fmt.Sprintf("the lease %s was not confirmed with the ownership at %s (%v): `git handoff pr claim` again settles it", p.key, p.b.Where(), err)
		}
	}
	if p.notice != "" {
		return []string{p.notice}
	}
	return nil
}

// carry is what a take of the lease carries to a board that can
// (lease.Carrier): the pull request's ownership record, as this clone
// has it when the take decides. nil for a board that cannot.
func (p *prLeasing) carry(ctx context.Context, repo string, n int) func() ([]refstore.Update, error) {
	c, ok := p.b.(lease.Carrier)
	if !ok {
		return nil
	}
	return func() ([]refstore.Update, error) {
		ref, err := prown.Ref(repo, n)
		if err != nil {
			return nil, err
		}
		up, err := c.Carry(ctx, ref)
		if err != nil {
			return nil, err
		}
		return []refstore.Update{up}, nil
	}
}

// undo releases a lease taken anew for a claim that failed.
func (p *prLeasing) undo(ctx context.Context) []string {
	if !p.taken {
		return nil
	}
	p.outcome = nil
	if _, err := lease.Release(ctx, p.st, p.b, p.session, []lease.Key{p.key}, "the claim of the pull request failed", lease.Clock(p.clock)); err != nil {
		return []string{fmt.Sprintf("the lease %s taken for the claim was not released (%v): `git handoff lease release %s`", p.key, err, p.key)}
	}
	return nil
}

// prToClaim reads the pull request to claim: num, else the open one of
// the current branch (whose number then goes in *number). doing says what
// was being done, for an error. A pull request that is not open is no
// error here: the caller looks at its state.
func prToClaim(ctx context.Context, st refstore.Worktree, gh PRHost, num int, number *int) (pr prdata.PR, doing string, err error) {
	doing = "claiming the pull request of the current branch"
	if num > 0 {
		doing = fmt.Sprintf("claiming #%d", num)
		pr, err = gh.PR(ctx, num)
	} else {
		head, herr := st.Head(ctx)
		if herr != nil {
			return pr, doing, herr
		}
		pr, err = gh.OpenPRForBranch(ctx, "", head.Branch)
		if pr.Number > 0 {
			*number = pr.Number
			doing = fmt.Sprintf("claiming #%d (branch %s)", pr.Number, head.Branch)
		}
	}
	if err != nil && !errors.Is(err, prdata.ErrNotOpen) {
		return pr, doing, fmt.Errorf("%s: %w", doing, err)
	}
	return pr, doing, nil
}

// onGitHub writes the claim to GitHub once git has it: the ownership
// comment (of owner) on pull request n, the assignee and the label, as opts ask. Each step is
// idempotent; failures are collected.
func onGitHub(ctx context.Context, gh PRHost, opts PRClaimOptions, n int, pr prdata.PR, owner prown.Record) PRGitHub {
	g := PRGitHub{Comment: CommentSkipped}
	if !opts.NoComment {
		body := prdata.RenderOwnershipComment(prown.Comment(owner))
		id, created, err := gh.UpsertOwnershipComment(ctx, n, body)
		switch {
		case err != nil:
			g.Comment = CommentFailed
			g.Errors = append(g.Errors, err)
		case created:
			g.Comment = CommentCreated
		default:
			g.Comment = CommentUpdated
		}
		g.CommentID = id
	}
	if opts.Assign {
		login, err := gh.Login(ctx)
		if err == nil && !slices.ContainsFunc(pr.Assignees, func(a string) bool { return strings.EqualFold(a, login) }) {
			err = gh.Assign(ctx, n, login)
		}
		if err != nil {
			g.Errors = append(g.Errors, err)
		} else {
			g.Assigned = login
		}
	}
	if opts.Label != "" {
		var err error
		if !slices.Contains(pr.Labels, opts.Label) {
			err = gh.AddLabel(ctx, n, opts.Label)
		}
		if err != nil {
			g.Errors = append(g.Errors, err)
		} else {
			g.Labeled = opts.Label
		}
	}
	return g
}
