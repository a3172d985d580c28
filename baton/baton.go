// Package baton holds the single-use notes one session leaves for the next:
// the record, who may see it, and writing, claiming and cancelling it through
// refstore by compare-and-swap.
package baton

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Schema is the version tag of a baton record.
const Schema = "handoff/v1"

// Baton is the record stored at refs/ao/handoffs/{private,shared}/<owner>/<branch>.
// A cancelled or dismissed baton is kept as a tombstone (Deleted set) so the
// reflog keeps its story and a teammate's fetch cannot bring it back.
type Baton struct {
	Schema           string     `json:"schema"`
	ID               string     `json:"id"`
	Owner            string     `json:"owner"`
	Branch           string     `json:"branch"`
	Shared           bool       `json:"shared"`
	NextSteps        []string   `json:"nextSteps"`
	FailedApproaches []string   `json:"failedApproaches"`
	OpenQuestions    []string   `json:"openQuestions"`
	Harness          string     `json:"harness,omitempty"`
	SessionID        string     `json:"sessionId,omitempty"`
	CreatedAt        time.Time  `json:"createdAt"`
	Head             string     `json:"head,omitempty"`
	Claimed          bool       `json:"claimed"`
	ClaimedAt        *time.Time `json:"claimedAt,omitempty"`
	ClaimedBySession string     `json:"claimedBySession,omitempty"`
	Deleted          *Deletion  `json:"deleted,omitempty"`
	// Auto is set on a baton git-handoff wrote itself, for a session that
	// ended without leaving one (the automatic handoff): what that
	// session was doing, by its record and its agent's last words, not
	// notes anyone chose to leave. NextSteps then hold the task it had
	// claimed, or git-handoff's one step.
	Auto *Auto `json:"auto,omitempty"`
	// Reoffered names the session that claimed this baton before and
	// whose agent never took a turn with it (it crashed at start, or its
	// start hook's answer never reached it): the baton waits again.
	Reoffered *Reoffer `json:"reoffered,omitempty"`
	// rev and prev: the version's place among the versions of its
	// ref, which sync orders by (refstore.Cause).
	refstore.Cause
}

// Deletion marks a tombstone: why and when the baton went away.
type Deletion struct {
	Reason string    `json:"reason"` // "cancelled" or "dismissed"
	At     time.Time `json:"at"`
}

// Auto is what git-handoff found of a session that ended without a baton.
type Auto struct {
	Session string `json:"session"`
	// Why is how the session ended: its agent exited, another session
	// started in its worktree, it was replaced.
	Why string `json:"why"`
	// Summary is the session's last summary: its agent's last message,
	// as its end-of-turn hook gave it, or one a person wrote.
	Summary string `json:"summary,omitempty"`
	// Task is the baton the session had claimed, whose next steps,
	// failed approaches and questions it did not hand on itself.
	Task string `json:"task,omitempty"`
	// StartHead is where the session started: its commits are
	// StartHead..Head.
	StartHead string `json:"startHead,omitempty"`
	// Commits are its commits, newest first (at most a few; CommitTotal
	// counts them all), kept here so a teammate without them reads them.
	Commits     []AutoCommit `json:"commits,omitempty"`
	CommitTotal int          `json:"commitTotal,omitempty"`
	// Transcript is the end of the agent's transcript, bounded.
	Transcript string `json:"transcript,omitempty"`
	// Snapshot is the commit recording the session's uncommitted work.
	Snapshot string `json:"snapshot,omitempty"`
	// Continued names the agent that took the session over in the same
	// worktree (`git handoff continue`): the session did not end, it goes
	// on in that agent, which claimed this baton at once. Why then says
	// why it took over.
	Continued string `json:"continued,omitempty"`
}

// AutoCommit is one commit of an automatic handoff's session.
type AutoCommit struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
}

// Reoffer says which session's claim of a baton was released, and when.
type Reoffer struct {
	Session string    `json:"session"`
	At      time.Time `json:"at"`
}

// Marshal returns the record as it is stored (a session keeps the baton it
// claimed in this form).
func Marshal(b *Baton) ([]byte, error) { return json.Marshal(b) }

// Live reports whether the baton is still waiting to be claimed.
func (b *Baton) Live() bool { return !b.Claimed && b.Deleted == nil }

// FinalAt is when the baton became final: claimed or deleted; its
// creation for one that says neither when (an older release's), and for
// one still waiting.
func (b *Baton) FinalAt() time.Time {
	switch {
	case b.Claimed && b.ClaimedAt != nil:
		return *b.ClaimedAt
	case b.Deleted != nil:
		return b.Deleted.At
	}
	return b.CreatedAt
}

// ErrNoSteps is returned for a baton with no non-empty next step.
var ErrNoSteps = errors.New("a baton needs at least one non-empty next step (--next)")

// Draft is what a session says when it ends.
type Draft struct {
	Owner, Branch    string
	Shared           bool
	NextSteps        []string
	FailedApproaches []string
	OpenQuestions    []string
	Harness          string
	SessionID        string
	Head             string
	Auto             *Auto // git-handoff writes this draft itself
	// ID is the baton's id, drawn (NewID) by a caller that names it
	// before the baton is made; "" draws one.
	ID string
}

// New builds a baton from a draft: entries are trimmed, empty ones dropped,
// and at least one next step must remain.
func New(d Draft, now time.Time) (Baton, error) {
	id := d.ID
	if id == "" {
		id = NewID("h")
	}
	b := Baton{
		Schema:           Schema,
		ID:               id,
		Owner:            d.Owner,
		Branch:           d.Branch,
		Shared:           d.Shared,
		NextSteps:        clean(d.NextSteps),
		FailedApproaches: clean(d.FailedApproaches),
		OpenQuestions:    clean(d.OpenQuestions),
		Harness:          d.Harness,
		SessionID:        d.SessionID,
		CreatedAt:        now.UTC(),
		Head:             d.Head,
		Auto:             d.Auto,
	}
	if len(b.NextSteps) == 0 {
		return Baton{}, ErrNoSteps
	}
	if b.Owner == "" || b.Branch == "" {
		return Baton{}, fmt.Errorf("a baton needs an owner and a branch")
	}
	return b, nil
}

func clean(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// normalize gives a decoded record the shape New would have given it, so a
// teammate's record with null lists prints the same as ours.
func (b *Baton) normalize() {
	if b.NextSteps == nil {
		b.NextSteps = []string{}
	}
	if b.FailedApproaches == nil {
		b.FailedApproaches = []string{}
	}
	if b.OpenQuestions == nil {
		b.OpenQuestions = []string{}
	}
}

var idEncoding = base32.NewEncoding("abcdefghijkmnpqrstuvwxyz23456789").WithPadding(base32.NoPadding)

// IDSource is where NewID takes its randomness: crypto/rand, except in the
// deterministic simulation (package sim), which sets a seeded source so
// that one seed gives one run.
var IDSource io.Reader = rand.Reader

// NewID makes a short random id: 50 bits, so ids made in different clones
// do not collide in practice; callers still create with "must not exist".
func NewID(prefix string) string {
	var buf [7]byte
	if _, err := io.ReadFull(IDSource, buf[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return prefix + "-" + idEncoding.EncodeToString(buf[:])[:10]
}

// Newer orders batons of different refs for listing: createdAt, then id.
// (Versions of one ref are ordered by cause, in teamsync.)
func Newer(a, b *Baton) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

// RecordSchema is the schema the record carried (refstore.Versioned).
func (b Baton) RecordSchema() string { return b.Schema }
