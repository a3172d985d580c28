// Package session holds the session records at refs/ao/sessions/<id> and
// what changes them: create, end, terminate, replace (with its handoff
// package), switch of agent, restore and launch. The graph of who replaced
// whom is package lineage.
package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/refstore"
)

// Schema is the version tag of a session record.
const Schema = "session/v1"

// Statuses a session moves through. replaced and merged are final.
const (
	StatusActive     = "active"
	StatusEnded      = "ended"
	StatusTerminated = "terminated"
	StatusReplaced   = "replaced"
	StatusMerged     = "merged"
)

// Record is the record at refs/ao/sessions/<id>.
type Record struct {
	Schema   string `json:"schema"`
	ID       string `json:"id"`
	Owner    string `json:"owner"`
	Branch   string `json:"branch"`
	Worktree string `json:"worktree,omitempty"`
	Host     string `json:"host,omitempty"`
	Harness  string `json:"harness,omitempty"`
	Model    string `json:"model,omitempty"`
	Status   string `json:"status"`
	Prompt   string `json:"prompt,omitempty"`
	// StartHead is the commit HEAD was at when the session started: what
	// the session did is measured from it (the agents' Stop hooks ask).
	StartHead string `json:"startHead,omitempty"`
	Summary   string `json:"summary,omitempty"`
	// TurnAt is when its agent last ended a turn (its end-of-turn hook
	// fired): the agent acted on what it was given. nil for a session no
	// such hook has seen, which a person's or an agent without those hooks
	// always is.
	TurnAt    *time.Time `json:"turnAt,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	EndedAt   *time.Time `json:"endedAt,omitempty"`
	// EndReason says why a session ended without `end` (EndAgentExit,
	// EndStartedHere); "" otherwise. A conversation its agent resumes
	// after EndAgentExit goes on in this session (Revive).
	EndReason          string              `json:"endReason,omitempty"`
	Supersedes         string              `json:"supersedes,omitempty"`
	ReplacedBy         string              `json:"replacedBy,omitempty"`
	HandoffReason      string              `json:"handoffReason,omitempty"`
	HandoffAt          *time.Time          `json:"handoffAt,omitempty"`
	HandoffContextMode string              `json:"handoffContextMode,omitempty"`
	HandoffPackage     string              `json:"handoffPackage,omitempty"`
	Launched           map[string]Launched `json:"launched,omitempty"`
	Switching          *Switching          `json:"switching,omitempty"`
	ClaimedHandoff     json.RawMessage     `json:"claimedHandoff,omitempty"`
	PR                 *PRPointer          `json:"pr,omitempty"`
	// Runtime is where the agent runs when git-handoff started it (a tmux
	// session); nil when it runs wherever its user started it.
	Runtime *Runtime `json:"runtime,omitempty"`
	// Continued is the last continuation of this session in another agent
	// (`git handoff continue`, by hand or on a limit): what it replaced,
	// so that it can be undone, and why.
	Continued *Continuation `json:"continued,omitempty"`
	// rev and prev: the version's place among the versions of this
	// record, which sync orders by (refstore.Cause). Not to be confused
	// with Supersedes above, the session this one replaced.
	refstore.Cause
}

// Launched is what one harness did for this session. Each harness keeps its
// own native id: one agent's id is never handed to another.
type Launched struct {
	NativeID string    `json:"nativeId,omitempty"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
}

// Switching guards an agent switch in flight.
type Switching struct {
	By    string    `json:"by"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	To    string    `json:"to,omitempty"`
}

// Runtime names the terminal multiplexer session an agent was started in,
// to find it again from any shell on the same host.
type Runtime struct {
	Kind   string `json:"kind"`   // "tmux"
	Socket string `json:"socket"` // the server's socket path
	Name   string `json:"name"`   // the tmux session
	Host   string `json:"host,omitempty"`
}

// PRPointer names the pull request this session owns.
type PRPointer struct {
	Repo   string `json:"repo"` // owner/name
	Number int    `json:"number"`
	URL    string `json:"url,omitempty"`
}

// Stored is a session with the blob id its ref held when read.
type Stored struct {
	Record
	Ref string `json:"-"`
	OID string `json:"-"`
	// Archived is the month whose archive holds the record (Find), ""
	// for a live record. Ref is then the revision it was read as,
	// "refs/ao/archive/2026-01:sessions/<id>", which no ref write takes.
	Archived string `json:"archived,omitempty"`
}

// Clone returns a copy of s that shares no memory with it.
func (s *Record) Clone() Record {
	c := *s
	for _, p := range []*string{&c.Schema, &c.ID, &c.Owner, &c.Branch, &c.Worktree, &c.Host, &c.Harness, &c.Model,
		&c.Status, &c.Prompt, &c.StartHead, &c.Summary, &c.Supersedes, &c.ReplacedBy, &c.HandoffReason,
		&c.HandoffContextMode, &c.HandoffPackage, &c.Prev} {
		*p = strings.Clone(*p)
	}
	if t := s.EndedAt; t != nil {
		c.EndedAt = new(*t)
	}
	if t := s.HandoffAt; t != nil {
		c.HandoffAt = new(*t)
	}
	if t := s.TurnAt; t != nil {
		c.TurnAt = new(*t)
	}
	if s.Launched != nil {
		c.Launched = make(map[string]Launched, len(s.Launched))
		for h, l := range s.Launched {
			l.NativeID = strings.Clone(l.NativeID)
			c.Launched[strings.Clone(h)] = l
		}
	}
	if g := s.Switching; g != nil {
		c.Switching = &Switching{By: strings.Clone(g.By), Since: g.Since, Until: g.Until, To: strings.Clone(g.To)}
	}
	if s.ClaimedHandoff != nil {
		c.ClaimedHandoff = bytes.Clone(s.ClaimedHandoff)
	}
	if p := s.PR; p != nil {
		c.PR = &PRPointer{Repo: strings.Clone(p.Repo), Number: p.Number, URL: strings.Clone(p.URL)}
	}
	if r := s.Runtime; r != nil {
		c.Runtime = &Runtime{Kind: strings.Clone(r.Kind), Socket: strings.Clone(r.Socket), Name: strings.Clone(r.Name), Host: strings.Clone(r.Host)}
	}
	if k := s.Continued; k != nil {
		c.Continued = k.clone()
	}
	if s.Seen != nil {
		c.Seen = make(map[string]uint64, len(s.Seen))
		for k, v := range s.Seen {
			c.Seen[strings.Clone(k)] = v
		}
	}
	return c
}

// Live reports whether the session may still do work.
func (s *Record) Live() bool { return s.Status == StatusActive }

// FinalAt is when a session that is not live became final: its end, else
// its last change (retirement archives it under that month; listings of
// what ended since a time compare it).
func (s *Record) FinalAt() time.Time {
	if s.EndedAt != nil {
		return *s.EndedAt
	}
	return s.UpdatedAt
}

// Read reads the session record of id (ErrNotFound when none).
func Read(ctx context.Context, st refstore.Records, id string) (Stored, error) {
	ref, err := refstore.SessionRef(id)
	if err != nil {
		return Stored{}, err
	}
	e, err := st.Get(ctx, ref)
	if err != nil {
		if errors.Is(err, refstore.ErrNotFound) {
			return Stored{}, fmt.Errorf("session %q: %w", id, refstore.ErrNotFound)
		}
		return Stored{}, err
	}
	return Decode(e)
}

// Find reads session id for showing it: the live record, else the one
// the archive holds (package archive), marked Archived. Only for reads:
// writers use Read, so that a change is never made to an archived record
// and written back as a live one. Every surface that shows a session, and
// the walk of its line (Line), reads through here. A store other than git's
// has no archive: Find is Read there.
func Find(ctx context.Context, st refstore.Records, id string) (Stored, error) {
	s, err := Read(ctx, st, id)
	gs, ok := st.(archive.Store)
	if !ok || !errors.Is(err, refstore.ErrNotFound) {
		return s, err
	}
	p, perr := archive.SessionPath(id)
	if perr != nil {
		return Stored{}, perr
	}
	e, month, aerr := archive.Find(ctx, gs, p)
	if errors.Is(aerr, refstore.ErrNotFound) {
		return Stored{}, err
	}
	if aerr != nil {
		return Stored{}, fmt.Errorf("session %q in the archive: %w", id, aerr)
	}
	return decodeArchived(e, id, month)
}

// decodeArchived decodes an archived session's blob as the record of the
// live ref it left, which must name id as every live record names its ref.
func decodeArchived(e refstore.Entry, id, month string) (Stored, error) {
	rev := e.Ref
	ref, err := refstore.SessionRef(id)
	if err != nil {
		return Stored{}, err
	}
	e.Ref = ref
	out, err := Decode(e)
	if err != nil {
		return Stored{}, fmt.Errorf("archived in %s: %w", month, err)
	}
	out.Ref, out.Archived = rev, month
	return out, nil
}

// Decode reads one entry as a session record, refusing a record
// that belongs at another ref than e.Ref. Sync decodes with it too.
func Decode(e refstore.Entry) (Stored, error) {
	var s Stored
	if err := decodeInto(e, &s); err != nil {
		return Stored{}, err
	}
	return s, nil
}

// decodeInto is Decode into out, which a listing reuses for every
// record. On an error out is left unspecified.
func decodeInto(e refstore.Entry, out *Stored) error {
	out.Record = Record{}
	if err := refstore.Decode(e, Schema, &out.Record); err != nil {
		return err
	}
	if !namesRef(out.ID, e.Ref) {
		return fmt.Errorf("%w: %s holds session %q, which belongs elsewhere", refstore.ErrInvalidRecord, e.Ref, out.ID)
	}
	out.Ref, out.OID = e.Ref, e.OID
	return nil
}

// namesRef reports whether ref is refstore.SessionRef(id), without
// building it (a listing checks every record).
func namesRef(id, ref string) bool {
	enc, err := refstore.EncodeComponent(id)
	rest, ok := strings.CutPrefix(ref, refstore.SessionPrefix)
	return err == nil && ok && rest == enc
}

// Written builds the swap that stores s in place of what was read (old
// zero value: create, refusing an existing id).
func Written(ctx context.Context, st refstore.Writer, s Record, old Stored) (refstore.Update, error) {
	ref, err := refstore.SessionRef(s.ID)
	if err != nil {
		return refstore.Update{}, err
	}
	s.Schema = Schema
	oid, _, err := refstore.WriteVersion(ctx, st, ref, old.OID, &s.Cause, &s)
	if err != nil {
		return refstore.Update{}, fmt.Errorf("session %q: %w", s.ID, err)
	}
	return refstore.Update{Ref: ref, New: oid, Old: old.OID}, nil
}

// ErrExists is returned when creating a session whose id is taken.
var ErrExists = errors.New("session already exists")

// Create stores a new session, refusing an id that exists.
func Create(ctx context.Context, st refstore.Writer, s Record, msg string) (Stored, error) {
	up, err := Written(ctx, st, s, Stored{})
	if err != nil {
		return Stored{}, err
	}
	if err := st.Apply(ctx, msg, up); err != nil {
		if errors.Is(err, refstore.ErrConflict) {
			return Stored{}, fmt.Errorf("session %q: %w", s.ID, ErrExists)
		}
		return Stored{}, err
	}
	s.Schema = Schema
	return Stored{Record: s, Ref: up.Ref, OID: up.New}, nil
}

// Modify applies fn to the current record of id and swaps it in,
// re-reading and re-applying fn when someone else changed it meanwhile, a
// bounded number of times. fn's error stops it unchanged.
func Modify(ctx context.Context, st refstore.Writer, id, msg string, fn func(*Record) error) (Stored, error) {
	for attempt := 0; ; attempt++ {
		cur, err := Read(ctx, st, id)
		if err != nil {
			return Stored{}, err
		}
		next := cur.Record
		if err := fn(&next); err != nil {
			return Stored{}, err
		}
		up, err := Written(ctx, st, next, cur)
		if err != nil {
			return Stored{}, err
		}
		err = st.Apply(ctx, msg, up)
		if err == nil {
			return Stored{Record: next, Ref: up.Ref, OID: up.New}, nil
		}
		if !errors.Is(err, refstore.ErrConflict) || attempt == 4 {
			return Stored{}, err
		}
	}
}

// ReplacedError refuses to act on a session that was replaced: the work
// lives on in its successor, which it names.
type ReplacedError struct {
	ID, By string
	Live   string // the newest session of the line, when known
}

func (e *ReplacedError) Error() string {
	by := fmt.Sprintf("%q", e.By)
	if e.By == "" {
		by = "an unrecorded session"
	}
	msg := fmt.Sprintf("session %q was already replaced by %s", e.ID, by)
	if e.Live != "" && e.Live != e.By {
		msg += fmt.Sprintf(" (the line now ends at %q)", e.Live)
	}
	return msg
}

func (e *ReplacedError) Unwrap() error { return refstore.ErrConflict }

// ReadOnlyError refuses to change a merged session.
type ReadOnlyError struct{ ID, Doing string }

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("session %q is merged and read-only: cannot %s it", e.ID, e.Doing)
}

func (e *ReadOnlyError) Unwrap() error { return refstore.ErrConflict }

// RefusedError is a lineage change the graph refuses (a fork, a cycle, a
// replaced or merged session). It is a conflict with what is recorded.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string   { return e.Err.Error() }
func (e *RefusedError) Unwrap() []error { return []error{e.Err, refstore.ErrConflict} }

// writable refuses sessions whose record must not change any more.
func writable(s Record, doing string) error {
	switch s.Status {
	case StatusMerged:
		return &ReadOnlyError{ID: s.ID, Doing: doing}
	case StatusReplaced:
		return &ReplacedError{ID: s.ID, By: s.ReplacedBy}
	}
	if s.ReplacedBy != "" {
		return &ReplacedError{ID: s.ID, By: s.ReplacedBy}
	}
	return nil
}

// EndAt marks an active session ended at now and reports whether it was
// active: the one change of status every way of ending a session makes
// (`end`, the agent's session-end hook, its tmux pane seen dead).
func (s *Record) EndAt(now time.Time) bool {
	if s.Status != StatusActive {
		return false
	}
	s.Status, s.EndedAt = StatusEnded, &now
	return true
}

// switchHeld refuses to end or terminate a session while a switch holds its
// guard (one past its expiry no longer counts): the switch stops the old
// agent on purpose, and the session goes on with the new one.
func switchHeld(s Record, now time.Time) error {
	if g := s.Switching; g != nil && now.Before(g.Until) {
		return &SwitchingError{ID: s.ID, Guard: *g}
	}
	return nil
}

// End marks an active session ended because its agent is gone (EndAt),
// without a baton. A session that is not active changes nothing (false);
// a switch in flight refuses with *SwitchingError.
func End(ctx context.Context, st refstore.Writer, id, reason string, now time.Time) (Stored, bool, error) {
	s, err := Modify(ctx, st, id, "handoff: end "+id, func(s *Record) error {
		if s.Status != StatusActive {
			return errUnchanged
		}
		if err := switchHeld(*s, now); err != nil {
			return err
		}
		s.EndAt(now)
		s.EndReason, s.UpdatedAt = reason, now
		return nil
	})
	if errors.Is(err, errUnchanged) {
		cur, err := Read(ctx, st, id)
		return cur, false, err
	}
	return s, err == nil, err
}

// Why a session ended without `end` (Record.EndReason).
const (
	// EndAgentExit: its agent's process ended (its SessionEnd hook, or
	// tmux seeing the agent exit).
	EndAgentExit = "agent exited"
	// EndStartedHere: another session started or was restored in its
	// worktree.
	EndStartedHere = "another session started in its worktree"
)

// Revive makes a session its agent ended by exiting (EndAgentExit) active
// again, for a conversation the agent resumes: the same work goes on, in
// the same session. It returns ok false, changing nothing, for a session
// that ended otherwise (with a baton, replaced, terminated, merged): a
// resumed conversation then gets a session of its own.
func Revive(ctx context.Context, st refstore.Writer, id string, now time.Time) (Stored, bool, error) {
	s, err := Modify(ctx, st, id, "handoff: resumed "+id, func(s *Record) error {
		if s.Status != StatusEnded || s.EndReason != EndAgentExit {
			return errUnchanged
		}
		s.Status, s.EndedAt, s.EndReason, s.UpdatedAt = StatusActive, nil, "", now
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return Stored{}, false, nil
	}
	return s, err == nil, err
}

// Terminate marks a session whose agent is dead: its work can be revived
// with restore or handed on with replace. Terminating a terminated session
// changes nothing; a replaced or merged one is refused, and so is one a
// switch holds (*SwitchingError).
func Terminate(ctx context.Context, st refstore.Writer, id, summary string, now time.Time) (Stored, bool, error) {
	changed := false
	s, err := Modify(ctx, st, id, "handoff: terminate "+id, func(s *Record) error {
		if err := writable(*s, "terminate"); err != nil {
			return err
		}
		changed = s.Status != StatusTerminated || (summary != "" && summary != s.Summary)
		if !changed {
			return errUnchanged
		}
		if err := switchHeld(*s, now); err != nil {
			return err
		}
		if s.Status != StatusTerminated {
			s.Status, s.EndedAt = StatusTerminated, &now
		}
		if summary != "" {
			s.Summary = summary
		}
		s.UpdatedAt = now
		return nil
	})
	if errors.Is(err, errUnchanged) {
		cur, err := Read(ctx, st, id)
		return cur, false, err
	}
	return s, changed, err
}

// Unbind removes the binding of the session's own worktree (s.Worktree,
// when it is a worktree of st's repository) if it still names s as stored
// (s.OID): a session that ended is bound nowhere. It returns the worktree
// it unbound, "" when none was bound to it.
func Unbind(ctx context.Context, st refstore.Worktree, s Stored, msg string) (string, error) {
	wt, done, err := st.OpenWorktree(ctx, s.Worktree)
	defer done()
	if err != nil || wt == nil {
		return "", err
	}
	ok, err := wt.UnbindFrom(ctx, msg, s.OID)
	if !ok || err != nil {
		return "", err
	}
	return wt.Dir(), nil
}

// SetRuntime records where the session's agent now runs (nil: nowhere
// git-handoff knows of).
func SetRuntime(ctx context.Context, st refstore.Writer, id string, rt *Runtime, now time.Time) (Stored, error) {
	return Modify(ctx, st, id, "handoff: runtime of "+id, func(s *Record) error {
		if err := writable(*s, "record the runtime of"); err != nil {
			return err
		}
		s.Runtime, s.UpdatedAt = rt, now
		return nil
	})
}

// SetSummary records the latest summary the agent or orchestrator gave.
func SetSummary(ctx context.Context, st refstore.Writer, id, summary string, now time.Time) (Stored, error) {
	return Modify(ctx, st, id, "handoff: summary of "+id, func(s *Record) error {
		if s.Status == StatusMerged {
			return &ReadOnlyError{ID: s.ID, Doing: "summarise"}
		}
		s.Summary, s.UpdatedAt = CapSummary(summary), now
		return nil
	})
}

// MaxSummary bounds a summary kept in a session record: it heads a
// replacement's package and an automatic handoff, which readers want short.
const MaxSummary = 4096

// CapSummary keeps at most MaxSummary bytes of a summary, trimmed.
func CapSummary(s string) string { return Cap(strings.TrimSpace(s), MaxSummary) }

// Cap keeps the start of s within n bytes, cut at a rune boundary and
// marked as cut.
func Cap(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len(summaryCut)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + summaryCut
}

const summaryCut = " … (cut)"

// RecordTurn notes that the session's agent ended a turn, with its last
// message as the session's summary ("" keeps the summary there is). A
// session that is not active is left as it is: ok is false.
func RecordTurn(ctx context.Context, st refstore.Writer, id, summary string, now time.Time) (Stored, bool, error) {
	summary = CapSummary(summary)
	s, err := Modify(ctx, st, id, "handoff: turn of "+id, func(s *Record) error {
		if !s.Live() || (s.TurnAt != nil && (summary == "" || summary == s.Summary)) {
			return errUnchanged
		}
		if summary != "" {
			s.Summary = summary
		}
		s.TurnAt, s.UpdatedAt = &now, now
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return Stored{}, false, nil
	}
	return s, err == nil, err
}

var errUnchanged = errors.New("unchanged")

// RecordSchema is the schema the record carried (refstore.Versioned).
func (r Record) RecordSchema() string { return r.Schema }
