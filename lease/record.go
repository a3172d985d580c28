// Package lease is exclusive, expiring claims on work: an issue, a pull
// request, the files a pathspec covers, or any named thing. One record per
// key at refs/ao/leases/<kind>/<value> (schema "lease/v1"), changed only by
// compare-and-swap where claims are decided (a Board: the arbiter remote,
// else this clone), so that of any number of clones taking one key exactly
// one holds it. Path leases also conflict with every other path lease
// whose pathspec can match a common file (glob.go); the path leases held
// are listed in one guard blob swapped with them (board.go), so that two
// overlapping takes cannot both land.
//
// A lease expires without anyone trusting another machine's clock
// (expiry.go): a holder renews it by writing a new version; a contender
// that saw one version unchanged for the lease's TTL, by its own clock,
// may take it over.
package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Schema is the version tag of a lease record.
const Schema = "lease/v1"

// Prefix is where leases are kept.
const Prefix = refstore.LeasePrefix

// GuardRef names the blob listing the path leases held (board.go). It is
// outside Prefix, and outside every kind sync joins: only lease writes at
// the board move it.
const GuardRef = "refs/ao/leaseguard/paths"

// TTL bounds.
const (
	DefaultTTL = 30 * time.Minute
	MinTTL     = time.Second
	MaxTTL     = 7 * 24 * time.Hour
)

// The states of a lease. Released and broken are final for the version:
// the next take starts a new holding.
const (
	StateHeld     = "held"
	StateReleased = "released"
	StateBroken   = "broken"
)

// maxHistory bounds the events a record keeps (the newest).
const maxHistory = 20

// Record is one version of the lease of one key.
type Record struct {
	Schema string `json:"schema"`
	Key    string `json:"key"`
	State  string `json:"state"`
	// Session is the holding session; once released or broken, the last
	// one that held it.
	Session string `json:"session"`
	Owner   string `json:"owner,omitempty"` // the holder's person (git identity)
	Agent   string `json:"agent,omitempty"` // the holder's agent, "" for a person
	// TTLText is the time to live as a Go duration ("30m0s"): how long a
	// contender must see one version unchanged before taking it over.
	TTLText string    `json:"ttl"`
	Note    string    `json:"note,omitempty"`
	TakenAt time.Time `json:"takenAt"` // by the holder's clock; for people, not for expiry
	// RenewedAt is when this version was written, by the writer's clock;
	// for people only: expiry never compares it with another clock.
	RenewedAt time.Time `json:"renewedAt"`
	// Offline: taken in this clone without asking the arbiter; the next
	// sync settles it against what the arbiter decided meanwhile.
	Offline bool    `json:"offline,omitempty"`
	History []Event `json:"history"`
	refstore.Cause
}

// Event is one change of holder or state.
type Event struct {
	At      time.Time `json:"at"`
	Action  string    `json:"action"` // take, takeover, release, break, handover
	Session string    `json:"session,omitempty"`
	From    string    `json:"from,omitempty"` // the previous holder
	By      string    `json:"by,omitempty"`   // who broke it
	Reason  string    `json:"reason,omitempty"`
}

// Stored is a record with the ref it lives at and the blob id read.
type Stored struct {
	Record
	Ref string `json:"-"`
	OID string `json:"-"`
}

// RecordSchema is the schema the record carried (refstore.Versioned).
func (r Record) RecordSchema() string { return r.Schema }

// TTL is the record's time to live.
func (r Record) TTL() time.Duration {
	d, err := parseTTL(r.TTLText)
	if err != nil {
		return DefaultTTL
	}
	return d
}

// Held reports whether the version says someone holds the key.
func (r Record) Held() bool { return r.State == StateHeld }

// ParseKey of the record's key (valid in any decoded record).
func (r Record) ParsedKey() Key {
	k, _ := ParseKey(r.Key)
	return k
}

func parseTTL(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("time to live %q: %w", s, err)
	}
	return d, CheckTTL(d)
}

// CheckTTL refuses a time to live outside [MinTTL, MaxTTL].
func CheckTTL(d time.Duration) error {
	if d < MinTTL || d > MaxTTL {
		return fmt.Errorf("time to live %s: want between %s and %s", d, MinTTL, MaxTTL)
	}
	return nil
}

// Decode reads one entry as a lease record, refusing one that is not
// whole (an unknown state, a bad time to live, a held lease without a
// holder, a key that is not canonical) or that belongs at another ref.
// Sync decodes with it too: it is the kind's one decoder.
func Decode(e refstore.Entry) (Stored, error) {
	var r Record
	if err := refstore.Decode(e, Schema, &r); err != nil {
		return Stored{}, err
	}
	bad := func(format string, a ...any) (Stored, error) {
		return Stored{}, fmt.Errorf("%w: %s: %s", refstore.ErrInvalidRecord, e.Ref, fmt.Sprintf(format, a...))
	}
	k, err := ParseKey(r.Key)
	if err != nil || k.String() != r.Key {
		return bad("key %q is not canonical", r.Key)
	}
	if ref, err := k.Ref(); err != nil || ref != e.Ref {
		return bad("holds the lease of %s, which belongs elsewhere", r.Key)
	}
	switch r.State {
	case StateHeld, StateReleased, StateBroken:
	default:
		return bad("unknown state %q", r.State)
	}
	if r.Session == "" {
		return bad("no session")
	}
	if _, err := parseTTL(r.TTLText); err != nil {
		return bad("%v", err)
	}
	if len(r.History) > maxHistory {
		return bad("%d history events, at most %d", len(r.History), maxHistory)
	}
	if r.History == nil {
		r.History = []Event{}
	}
	return Stored{Record: r, Ref: e.Ref, OID: e.OID}, nil
}

// Read reads the lease of k; a missing one wraps refstore.ErrNotFound.
func Read(ctx context.Context, st refstore.Records, k Key) (Stored, error) {
	ref, err := k.Ref()
	if err != nil {
		return Stored{}, err
	}
	e, err := st.Get(ctx, ref)
	if err != nil {
		return Stored{}, err
	}
	return Decode(e)
}

// List reads every lease under prefix (Prefix, or a copy of them fetched
// from a remote, whose refs are then mapped back to Prefix), in ref order.
func List(ctx context.Context, st refstore.Records, prefix string) ([]Stored, []refstore.Skipped, error) {
	return refstore.ListDecoded(ctx, st, prefix, func(e refstore.Entry) (Stored, error) {
		e.Ref = Prefix + strings.TrimPrefix(e.Ref, prefix)
		return Decode(e)
	})
}

// withEvent appends ev, keeping the newest maxHistory.
func withEvent(h []Event, ev Event) []Event {
	out := append(append([]Event{}, h...), ev)
	if len(out) > maxHistory {
		out = out[len(out)-maxHistory:]
	}
	return out
}

// oneLine keeps a note or reason to one short line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// errNoHolder guards code paths that need a holder.
var errNoHolder = errors.New("lease: no session")
