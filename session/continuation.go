package session

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
)

// Continuation is a session carried on in another agent in the same
// worktree (`git handoff continue`): by hand, or because its agent
// reported that it could not go on (a usage limit, a fatal API error).
// It keeps what the continuation replaced, for `continue --undo`.
type Continuation struct {
	From      string `json:"from"`                // the agent that stopped
	FromModel string `json:"fromModel,omitempty"` // its model
	To        string `json:"to"`                  // the agent that took over
	// Why is what the new agent is told first: "claude-code stopped:
	// usage limit, resets 15:00 UTC", or that a person asked for it.
	Why  string    `json:"why"`
	Auto bool      `json:"auto,omitempty"` // decided by a hook, not a person
	By   string    `json:"by"`             // user, host, process
	At   time.Time `json:"at"`
	// Head is where HEAD was: a commit since means the new agent worked.
	Head string `json:"head,omitempty"`
	// Baton is the automatic handoff written for the new agent (claimed by
	// this session at once); "" when a waiting baton kept its place.
	Baton string `json:"baton,omitempty"`
	// PrevClaimed and PrevPackage are what the session held before, put
	// back by an undo.
	PrevClaimed []byte `json:"prevClaimed,omitempty"`
	PrevPackage string `json:"prevPackage,omitempty"`
}

func (k *Continuation) clone() *Continuation {
	c := *k
	for _, p := range []*string{&c.From, &c.FromModel, &c.To, &c.Why, &c.By, &c.Head, &c.Baton, &c.PrevPackage} {
		*p = strings.Clone(*p)
	}
	c.PrevClaimed = bytes.Clone(k.PrevClaimed)
	return &c
}

// Waiting reports whether the continuation of s is recorded and its new
// agent not yet started: it was decided outside tmux, where nothing could
// start it, and no launch was recorded since (a launch stamps the agent's
// Launched.Last later than the continuation).
func (s *Record) Waiting() bool {
	k := s.Continued
	if k == nil || s.Status != StatusActive || s.Runtime != nil || canonical(s.Harness) != k.To {
		return false
	}
	return !s.Launched[k.To].Last.After(k.At)
}

// SwitchPreview is the record a switch as opts asks would write and the
// launch it would plan, with edit applied last as Prepare's would be.
// Nothing is written: no guard, no record, no worktree.
func SwitchPreview(ctx context.Context, st refstore.Clone, opts RelaunchOptions, edit func(*Record), now time.Time) (Record, LaunchPlan, error) {
	h, err := harness.Lookup(opts.Harness)
	if err != nil {
		return Record{}, LaunchPlan{}, err
	}
	cur, err := Read(ctx, st, opts.ID)
	if err != nil {
		return Record{}, LaunchPlan{}, err
	}
	if err := writableLine(ctx, st, cur.Record, "switch"); err != nil {
		return Record{}, LaunchPlan{}, err
	}
	if g := cur.Switching; g != nil && now.Before(g.Until) {
		return Record{}, LaunchPlan{}, &SwitchingError{ID: opts.ID, Guard: *g}
	}
	if opts.Expect != nil {
		if err := opts.Expect(cur.Record); err != nil {
			return Record{}, LaunchPlan{}, err
		}
	}
	r := &relaunching{st: st, opts: opts, doing: "switch", h: h, now: now, edit: edit, worktree: cur.Worktree}
	if r.worktree == "" && !st.Bare() {
		r.worktree = st.Dir()
	}
	next := cur.Record.Clone()
	r.change(&next)
	plan, err := PlanLaunch(next, opts.Briefer)
	return next, plan, err
}
