package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Op is one command the harness ran, as the ledger keeps it. Start and
// Finish are offsets from the start of the run on the monotonic clock:
// whatever a command wrote, it wrote between the two.
type Op struct {
	Seq     int           `json:"seq"`
	Kind    string        `json:"kind"` // end, claim, start, cancel, dismiss, list, sync, replace, show, web-dismiss, mcp-start, mcp-cancel; gc-prune-now (a clone's maintenance, not a command)
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
	// Cancelled holds the markers a successful cancel or dismiss (by the
	// CLI, the status page or the MCP server) took back.
	Cancelled []string `json:"cancelled,omitempty"`
	// BatonID is the id of the baton an end wrote, or of the one an MCP
	// session_start was handed (Won) or cancel_handoff took back: the MCP
	// tools name batons by id only, and Account finds their markers.
	BatonID string `json:"batonId,omitempty"`
	// Notices are the lines of what the command said (its notices, its
	// error) that name a claim: "claimed", "won by". Account checks each
	// against the repositories.
	Notices []string `json:"notices,omitempty"`
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
	// ID is the baton's id.
	ID string `json:"id,omitempty"`
	// History: a version from a clone's own reflog of a baton ref (any
	// claim ever recorded there, even one overwritten before a sync).
	// Used only to check notices; every other figure ignores it.
	History bool `json:"history,omitempty"`
	// Archived: a version retired to an archive month's tree (Ref is
	// "<month ref>:<path>"): never waiting, but claimed there counts as
	// claimed, and deleted as deleted.
	Archived bool `json:"archived,omitempty"`
	// Missing: a ref under refs/ao/, or the worktree's binding, in clone
	// Where names an object the clone does not have (Ref says which).
	Missing bool `json:"missing,omitempty"`
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
	// PruneRaced: the unclear ops whose reason is an object that vanished
	// under git (pruneRaced). Shown, not judged: still counted in Unclear.
	PruneRaced int
	// DismissedDelivered: batons that a dismiss or cancel (CLI, status
	// page, MCP) reported taking back and that a claim or start was told
	// it won.
	DismissedDelivered int
	// FalseNotices: notices that name a claim the repositories do not
	// hold: "another clone claimed baton B first" or "already claimed by
	// session S" for a baton nobody (or not S) claimed, "won by session
	// S" for a session whose claim the remote never accepted.
	FalseNotices int
	// Dangling: refs under refs/ao/, or a worktree binding, naming
	// objects that are missing.
	Dangling int
	// Unkept: batons an end reported written, not lost, that no version
	// at the remote holds at the end, neither at a tip nor in an archive
	// month: superseded, dropped in a reported conflict or retired, what
	// they said lived only in a clone's reflog, which the ref's
	// retirement takes and a prune then empties.
	Unkept  int
	Details []string
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
//     claim it); a version in an archive month (retired) is never waiting,
//     but one claimed there counts as claimed, as at a tip;
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
//
// Dismissed-and-delivered: a marker a dismiss or cancel of any surface
// (Cancelled of an op that exited 0) reported taking back, and that a
// claim or start was told it won.
//
// False notices: see falseNotices. Dangling: every Seen marked Missing.
// commands counts the ops that are git-handoff commands (not the
// maintenance the ledger notes beside them).
func commands(ops []Op) int {
	n := 0
	for _, op := range ops {
		if op.Kind != "gc-prune-now" {
			n++
		}
	}
	return n
}

// pruneOver is a git gc --prune=now in op's clone (an Op of kind
// gc-prune-now in the ledger) that ran while op did, or began before op
// ended and ended after: nil for none.
func pruneOver(ops []Op, op Op) *Op {
	for i, o := range ops {
		if o.Kind == "gc-prune-now" && o.Clone == op.Clone && o.Start < op.Finish && o.Finish > op.Start {
			return &ops[i]
		}
	}
	return nil
}

func Account(ops []Op, seen []Seen) Figures {
	var f Figures
	ops = withMarkers(ops, seen)
	delivered := map[string]map[string]bool{} // marker -> sessions told they won it
	cancelled := map[string]bool{}
	for _, op := range ops {
		if op.Unclear != "" {
			f.Unclear++
			if pruneRaced(op.Unclear) {
				f.PruneRaced++
			}
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
		if op.Exit == 0 {
			for _, m := range op.Cancelled {
				cancelled[m] = true
			}
		}
	}
	waiting := map[string]bool{}
	conflictDropped := map[string]bool{}
	claimedBy := map[string]map[string]bool{} // marker -> claimer sessions on record
	claimers := map[string]string{}           // session -> a marker it is recorded as claiming
	retiredOpen := map[string]string{}        // marker -> where it was archived unclaimed and not deleted
	for _, s := range seen {
		if s.Missing {
			f.Dangling++
			f.detail("dangling: in %s, %s", s.Where, s.Ref)
			continue
		}
		if s.Marker == "" || s.History {
			continue
		}
		if s.ConflictDropped {
			conflictDropped[s.Marker] = true
			continue
		}
		if s.Tip && !s.Claimed && !s.Deleted {
			waiting[s.Marker] = true
		}
		if s.Archived && !s.Claimed && !s.Deleted {
			retiredOpen[s.Marker] = s.Where + " " + s.Ref
		}
		if s.Claimed {
			if claimedBy[s.Marker] == nil {
				claimedBy[s.Marker] = map[string]bool{}
			}
			claimedBy[s.Marker][s.ClaimedBy] = true
			claimers[s.ClaimedBy] = s.Marker
		}
	}
	keptAtRemote := map[string]bool{}
	for _, s := range seen {
		if s.Marker != "" && !s.Missing && (s.Where == "remote" && s.Tip || s.Where == "remote-archive") {
			keptAtRemote[s.Marker] = true
		}
	}
	lostMarkers := map[string]bool{}
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
			lostMarkers[m] = true
			f.detail("lost: %s (end #%d on %s, %s/%s) was claimed by %s, and no claim was told it won it", m, op.Seq, op.Clone, op.Owner, op.Branch, setList(claimedBy[m]))
			continue
		}
		if resolved(m) {
			continue
		}
		superseded := false
		var kept *Op // the latest older end that outlived this one, if any
		for _, o := range ends[key{op.Owner, op.Branch}] {
			// A later end that lost a join to a concurrent baton, which
			// was reported, superseded this one as any later end does
			// (found by a soak: two ends superseded by a third, which lost
			// a reported join, were counted lost).
			if o.Seq == op.Seq || !resolved(o.Marker) && !conflictDropped[o.Marker] {
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
			f.detail("conflict: %s (end #%d on %s, %s/%s) lost a join to a concurrent baton, which was reported; the archive keeps it", m, op.Seq, op.Clone, op.Owner, op.Branch)
			continue
		}
		if !superseded {
			f.Lost++
			lostMarkers[m] = true
			why := ""
			if kept != nil {
				why = fmt.Sprintf("; the older %s (end #%d on %s) outlived it", kept.Marker, kept.Seq, kept.Clone)
			}
			if a := retiredOpen[m]; a != "" {
				why += "; it was retired unclaimed to " + a
			}
			if pr := pruneOver(ops, op); pr != nil {
				// git's documented race: a prune whose walk began before
				// the end moved its refs deletes the objects it wrote.
				why += fmt.Sprintf("; a git gc --prune=now in %s ran over it (#%d, at %v..%v)", pr.Clone, pr.Seq, pr.Start.Round(time.Millisecond), pr.Finish.Round(time.Millisecond))
			}
			f.detail("lost: %s (end #%d on %s, %s/%s, at %v..%v) was neither delivered, cancelled, waiting anywhere, nor followed by an end that was%s", m, op.Seq, op.Clone, op.Owner, op.Branch, op.Start.Round(time.Millisecond), op.Finish.Round(time.Millisecond), why)
		}
	}

	for _, op := range ops {
		if op.Kind != "end" || op.Marker == "" || op.Killed || op.Exit != 0 || lostMarkers[op.Marker] || keptAtRemote[op.Marker] {
			continue
		}
		f.Unkept++
		keptAtRemote[op.Marker] = true // counted once
		f.detail("unkept: %s (end #%d on %s, %s/%s) is in no version at the remote, at a tip or in an archive month: what it said lives only in a clone's reflog", op.Marker, op.Seq, op.Clone, op.Owner, op.Branch)
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

	for _, m := range markers {
		if len(delivered[m]) > 0 && cancelled[m] {
			f.DismissedDelivered++
			f.detail("dismissed-and-delivered: %s was reported taken back (dismissed or cancelled) and delivered to %s", m, setList(delivered[m]))
		}
	}
	falseNotices(&f, ops, seen)

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
		if recorded && !op.Won && !op.Killed {
			f.FalseLost++
			f.detail("false-lost-claim: session %s was told exit %d, no baton (%s #%d on %s), but is recorded as the claimer of %s", s, op.Exit, op.Kind, op.Seq, op.Clone, m)
		}
	}
	return f
}

// withMarkers gives the MCP tools' ops, which name batons by id, the
// markers of those batons (from the ends' ids and the records seen).
func withMarkers(ops []Op, seen []Seen) []Op {
	markerOf := map[string]string{}
	for _, op := range ops {
		if op.Kind == "end" && op.BatonID != "" && op.Marker != "" {
			markerOf[op.BatonID] = op.Marker
		}
	}
	for _, s := range seen {
		if s.ID != "" && s.Marker != "" {
			markerOf[s.ID] = s.Marker
		}
	}
	out := make([]Op, len(ops))
	for i, op := range ops {
		if op.Kind != "end" && op.BatonID != "" && markerOf[op.BatonID] != "" {
			m := markerOf[op.BatonID]
			if op.Won && len(op.Delivered) == 0 {
				op.Delivered = []string{m}
			}
			if op.Kind == "mcp-cancel" && op.Exit == 0 && len(op.Cancelled) == 0 {
				op.Cancelled = []string{m}
			}
		}
		out[i] = op
	}
	return out
}

// The notices that name claims (handoff/claim.go, start.go, baton/store.go).
var (
	anotherClaimedRE = regexp.MustCompile(`another clone claimed baton (\S+) first`)
	claimedByRE      = regexp.MustCompile(`baton (\S+) was already claimed by session (\S+?)[,:;.]?(\s|$)`)
	wonByRE          = regexp.MustCompile(`baton (\S+) was won by session (\S+?),? which`)
)

// falseNotices counts the notices that name a claim nobody holds: "another
// clone claimed baton B first" when no version of B anywhere (a tip, the
// remote's reflog, a clone's reflog) is claimed; "already claimed by
// session S" when none is claimed by S; "won by session S" when the
// remote (tip or reflog) never held B claimed by S.
func falseNotices(f *Figures, ops []Op, seen []Seen) {
	claimedAny := map[string]bool{}
	claimedBy := map[[2]string]bool{}
	remoteBy := map[[2]string]bool{}
	for _, s := range seen {
		if s.ID == "" || !s.Claimed || s.ConflictDropped {
			continue
		}
		claimedAny[s.ID] = true
		claimedBy[[2]string{s.ID, s.ClaimedBy}] = true
		if s.Where == "remote" || s.Where == "remote-reflog" || s.Where == "remote-archive" {
			remoteBy[[2]string{s.ID, s.ClaimedBy}] = true
		}
	}
	for _, op := range ops {
		if op.Killed {
			continue
		}
		for _, n := range op.Notices {
			var why string
			if m := anotherClaimedRE.FindStringSubmatch(n); m != nil && !claimedAny[m[1]] {
				why = "nobody claimed " + m[1]
			} else if m := claimedByRE.FindStringSubmatch(n); m != nil && !claimedBy[[2]string{m[1], m[2]}] {
				why = fmt.Sprintf("%s was never claimed by %s", m[1], m[2])
			} else if m := wonByRE.FindStringSubmatch(n); m != nil && !remoteBy[[2]string{m[1], m[2]}] {
				why = fmt.Sprintf("the remote never accepted a claim of %s by %s", m[1], m[2])
			}
			if why != "" {
				f.FalseNotices++
				f.detail("false-notice: #%d %s on %s said %q: %s", op.Seq, op.Kind, op.Clone, n, why)
			}
		}
	}
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

// pruneWords are what git says (and git-handoff relays) when an object it
// was writing, or counted on finding, vanished meanwhile: the soak's
// `git gc --prune=now`, run beside the writers, deletes objects no ref
// reaches yet (a blob written before its ref, a quarantined push's new
// objects, a thin push's delta base), and empty object directories (under
// a file being created or a quarantine being moved in). git's manual says
// --prune=now is not safe beside concurrent writers. Without -prune none
// of these should appear.
var pruneWords = []string{
	"unable to migrate objects to permanent storage",
	"missing necessary objects",
	"bad pack",
	"unpacker error",
	"unable to create temporary file",
	"unable to write file",
	"missing object",
	"not a tree object",
	"does not point to a valid object",
	"bad object",
}

// pruneRaced says whether an unclear reason is one of pruneWords: the
// soak's own pruning, most likely, rather than git-handoff. Told apart
// so that the other unclear ones stand out.
func pruneRaced(reason string) bool {
	for _, w := range pruneWords {
		if strings.Contains(reason, w) {
			return true
		}
	}
	return false
}
