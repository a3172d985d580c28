package main

import (
	"fmt"
	"sort"
	"time"
)

// Op is one command the harness ran, as the ledger keeps it. Start and
// Finish are offsets from the start of the run on the monotonic clock:
// whatever a command wrote, it wrote between the two.
type Op struct {
	Seq     int           `json:"seq"`
	Kind    string        `json:"kind"` // end, claim, start, cancel, list, sync, replace, show, gc, pack-refs
	Clone   string        `json:"clone"`
	Args    []string      `json:"args"`
	Owner   string        `json:"owner,omitempty"`
	Branch  string        `json:"branch,omitempty"`
	Start   time.Duration `json:"start"`
	Finish  time.Duration `json:"finish"`
	Exit    int           `json:"exit"`
	Killed  bool          `json:"killed,omitempty"` // SIGKILLed while it ran: it was told nothing
	Unclear string        `json:"unclear,omitempty"`
	Stderr  string        `json:"stderr,omitempty"`

	// Marker is the unique --next text of an end (whatever its outcome).
	Marker string `json:"marker,omitempty"`
	// Session is the session a claim or start acted for.
	Session string `json:"session,omitempty"`
	// Won: this claim or start was told it claimed Delivered (the markers
	// of the baton it was handed). A claim or start that finished without
	// Won was told it did not get a baton.
	Won       bool     `json:"won,omitempty"`
	Delivered []string `json:"delivered,omitempty"`
	// Cancelled holds the markers a successful cancel took back.
	Cancelled []string `json:"cancelled,omitempty"`
}

// Seen is one baton record found at the end of a run: at a ref's tip in a
// clone or the remote (Tip), or anywhere in the remote's reflog of the
// baton refs (the arbiter's history of every claim it accepted).
type Seen struct {
	Where     string `json:"where"` // "a", "b", "remote", "remote-reflog"
	Tip       bool   `json:"tip"`
	Ref       string `json:"ref"`
	Marker    string `json:"marker"`
	Claimed   bool   `json:"claimed"`
	ClaimedBy string `json:"claimedBy,omitempty"`
	Deleted   bool   `json:"deleted"`
	// ConflictDropped: a clone's reflog shows a join replacing this
	// version as the loser of two concurrent versions, with a conflict
	// reported.
	ConflictDropped bool `json:"conflictDropped,omitempty"`
}

// Figures are what a run found; every one of them should be zero.
type Figures struct {
	Lost int
	// Conflicts: batons that would count as lost, but that a join
	// dropped as the loser of two concurrent versions, said so, and kept
	// reachable (the design's answer for writes that never saw each
	// other). Reported, not judged.
	Conflicts int
	Twice     int
	FalseLost int
	Unclear   int
	Details   []string
}

// Account computes the figures from a ledger and what was seen at the end.
//
// A baton is written by an end that reported success (exit 0, not killed);
// only those can be lost. Such a baton, with marker m, is:
//
//   - delivered: a claim or start was told it won, with m among the notes;
//   - cancelled: a cancel reported taking m back;
//   - waiting: m is unclaimed and not deleted at the tip of its ref in clone
//     a, clone b or the remote after the final sync (anyone can still
//     claim it);
//   - dropped in a reported conflict (counted apart, as Conflicts): a
//     clone's reflog shows a join replacing it as the loser of two
//     concurrent versions;
//   - superseded: another end of the same owner and branch that did not
//     finish before this one started (so it may have been written after
//     it) has a baton that is itself delivered, cancelled or waiting, or was
//     claimed. An end strictly later in time that loses the join to this
//     older one does not supersede it: this one is then waiting or
//     delivered, and the later one has nothing after it, so it is lost.
//
// A baton that is none of these is lost. So is one neither delivered nor
// cancelled that was seen claimed (at a tip, or in the remote's reflog):
// its notes reached nobody, and no later end makes that right. Ends that
// were killed or failed are never lost, but their batons count as
// supersedes when they were seen.
//
// Twice: a marker delivered to two or more different sessions (the same
// session told twice, as a re-run after a crash may be, is once).
//
// False-lost claims: a session whose last answer (from a claim or start
// that was not killed) was "no baton for you" — claim exit 5, 6 or an
// error, start without claimed — while the remote's reflog or a tip at the
// end names it as the claimer.
//
// Unclear: every op whose Unclear reason is set (see classify).
func Account(ops []Op, seen []Seen) Figures {
	var f Figures
	delivered := map[string]map[string]bool{} // marker -> sessions told they won it
	cancelled := map[string]bool{}
	for _, op := range ops {
		if op.Unclear != "" {
			f.Unclear++
			f.detail("unclear: #%d %s on %s exit %d: %s", op.Seq, op.Kind, op.Clone, op.Exit, op.Unclear)
		}
		if op.Killed {
			continue
		}
		if op.Won {
			for _, m := range op.Delivered {
				if delivered[m] == nil {
					delivered[m] = map[string]bool{}
				}
				delivered[m][op.Session] = true
			}
		}
		if op.Kind == "cancel" && op.Exit == 0 {
			for _, m := range op.Cancelled {
				cancelled[m] = true
			}
		}
	}
	waiting := map[string]bool{}
	conflictDropped := map[string]bool{}
	claimedBy := map[string]map[string]bool{} // marker -> claimer sessions on record
	claimers := map[string]string{}           // session -> a marker it is recorded as claiming
	for _, s := range seen {
		if s.Marker == "" {
			continue
		}
		if s.ConflictDropped {
			conflictDropped[s.Marker] = true
			continue
		}
		if s.Tip && !s.Claimed && !s.Deleted {
			waiting[s.Marker] = true
		}
		if s.Claimed {
			if claimedBy[s.Marker] == nil {
				claimedBy[s.Marker] = map[string]bool{}
			}
			claimedBy[s.Marker][s.ClaimedBy] = true
			claimers[s.ClaimedBy] = s.Marker
		}
	}
	resolved := func(m string) bool {
		return len(delivered[m]) > 0 || cancelled[m] || waiting[m] || len(claimedBy[m]) > 0
	}

	type key struct{ owner, branch string }
	ends := map[key][]Op{}
	for _, op := range ops {
		if op.Kind == "end" && op.Marker != "" {
			k := key{op.Owner, op.Branch}
			ends[k] = append(ends[k], op)
		}
	}
	for _, op := range ops {
		if op.Kind != "end" || op.Marker == "" || op.Killed || op.Exit != 0 {
			continue
		}
		m := op.Marker
		if len(delivered[m]) > 0 || cancelled[m] {
			continue
		}
		if len(claimedBy[m]) > 0 {
			f.Lost++
			f.detail("lost: %s (end #%d on %s, %s/%s) was claimed by %s, and no claim was told it won it", m, op.Seq, op.Clone, op.Owner, op.Branch, setList(claimedBy[m]))
			continue
		}
		if resolved(m) {
			continue
		}
		superseded := false
		var kept *Op // the latest older end that outlived this one, if any
		for _, o := range ends[key{op.Owner, op.Branch}] {
			if o.Seq == op.Seq || !resolved(o.Marker) {
				continue
			}
			if o.Finish > op.Start {
				superseded = true
				break
			}
			if kept == nil || o.Start > kept.Start {
				kept = &o
			}
		}
		if !superseded && conflictDropped[m] {
			f.Conflicts++
			f.detail("conflict: %s (end #%d on %s, %s/%s) lost a join to a concurrent baton, which was reported; it stays reachable in the reflog", m, op.Seq, op.Clone, op.Owner, op.Branch)
			continue
		}
		if !superseded {
			f.Lost++
			why := ""
			if kept != nil {
				why = fmt.Sprintf("; the older %s (end #%d on %s) outlived it", kept.Marker, kept.Seq, kept.Clone)
			}
			f.detail("lost: %s (end #%d on %s, %s/%s, at %v..%v) was neither delivered, cancelled, waiting anywhere, nor followed by an end that was%s", m, op.Seq, op.Clone, op.Owner, op.Branch, op.Start.Round(time.Millisecond), op.Finish.Round(time.Millisecond), why)
		}
	}

	var markers []string
	for m := range delivered {
		markers = append(markers, m)
	}
	sort.Strings(markers)
	for _, m := range markers {
		if len(delivered[m]) > 1 {
			f.Twice++
			f.detail("twice: %s delivered to sessions %s", m, setList(delivered[m]))
		}
	}

	// A session's answer is the last one it was given.
	last := map[string]Op{}
	for _, op := range ops {
		if (op.Kind == "claim" || op.Kind == "start") && op.Session != "" && !op.Killed {
			if p, ok := last[op.Session]; !ok || op.Seq > p.Seq {
				last[op.Session] = op
			}
		}
	}
	var sessions []string
	for s := range last {
		sessions = append(sessions, s)
	}
	sort.Strings(sessions)
	for _, s := range sessions {
		op := last[s]
		m, recorded := claimers[s]
		if recorded && !op.Won {
			f.FalseLost++
			f.detail("false-lost-claim: session %s was told exit %d, no baton (%s #%d on %s), but is recorded as the claimer of %s", s, op.Exit, op.Kind, op.Seq, op.Clone, m)
		}
	}
	return f
}

func (f *Figures) detail(format string, args ...any) {
	f.Details = append(f.Details, fmt.Sprintf(format, args...))
}

func setList(set map[string]bool) string {
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}
