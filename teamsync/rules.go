package teamsync

import (
	"bytes"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/session"
)

// rule is one step of a kind's total order, with the reason a user is
// given when it is the step that decided: the order and its explanation
// are one definition, so a conflict's "why" cannot drift from the join.
type rule[T any] struct {
	why string // said of the version kept
	cmp func(a, b T) int
}

// decideBy compares a and b by the first rule that tells them apart, and
// says which rule that was ("" when none did: the records are equal).
func decideBy[T any](rules []rule[T], a, b T) (int, string) {
	for _, r := range rules {
		if c := r.cmp(a, b); c != 0 {
			return c, r.why
		}
	}
	return 0, ""
}

const (
	whyRev      = "it was written after seeing more versions of this record than the other (a later revision)"
	whyEncoding = "the two differ only where no rule decides, so a fixed tie-break on their contents chose it (the same on every clone)"
)

// batonRules: rev; then a written baton over an automatic one; then,
// between versions of one rev, the newer baton
// (createdAt, then id); for one id, claimed over cancelled or dismissed
// over waiting; between two claims the earlier claim, then the smaller
// session id; between two removals the earlier; then the encoding.
var batonRules = []rule[baton.Baton]{
	{whyRev, func(a, b baton.Baton) int { return cmpRev(a.Cause, b.Cause) }},
	// A baton someone wrote beats git-handoff's automatic one written
	// concurrently: the automatic one is only for when nobody wrote any.
	{"a baton someone wrote beats one git-handoff wrote on its own", func(a, b baton.Baton) int { return cmpBool(a.Auto == nil, b.Auto == nil) }},
	{"it is the newer baton (created later)", func(a, b baton.Baton) int { return cmpTime(a.CreatedAt, b.CreatedAt) }},
	{"two batons created at the same moment: the greater id is kept", func(a, b baton.Baton) int { return cmpString(a.ID, b.ID) }},
	{"a claimed baton beats a cancelled or dismissed one, which beats one still waiting", func(a, b baton.Baton) int {
		return sign(batonRank(&a) - batonRank(&b))
	}},
	// Two claims of one baton that both landed (a claim --offline, or a
	// remote whose git took two pushes leased on one version: see
	// bench/leaserace.sh) each handed it to its session: said, so that the
	// one that loses the join hears that another has the task too.
	{"two sessions claimed the baton, and each may have been handed it: the earlier claim is kept", func(a, b baton.Baton) int {
		if !a.Claimed || !b.Claimed {
			return 0
		}
		return cmpTime(claimedAt(b), claimedAt(a))
	}},
	{"two sessions claimed the baton at the same moment, and each may have been handed it: the smaller session id is kept", func(a, b baton.Baton) int {
		if !a.Claimed || !b.Claimed {
			return 0
		}
		return cmpString(b.ClaimedBySession, a.ClaimedBySession)
	}},
	{"both removed the baton: the earlier removal wins", func(a, b baton.Baton) int {
		if a.Deleted == nil || b.Deleted == nil {
			return 0
		}
		return cmpTime(b.Deleted.At, a.Deleted.At)
	}},
	{whyEncoding, func(a, b baton.Baton) int { return bytes.Compare(canonical(a), canonical(b)) }},
}

// sessionRules: a replaced or merged record first (final: nothing is
// written after it), then rev, then state rank (ended over active),
// updatedAt, the encoding. A restore, written after the end it undoes,
// wins by rev.
var sessionRules = []rule[session.Record]{
	{"a replaced or merged session is final: nothing is written after it", func(a, b session.Record) int {
		return cmpBool(sessionRank(&a) == 2, sessionRank(&b) == 2)
	}},
	{whyRev, func(a, b session.Record) int { return cmpRev(a.Cause, b.Cause) }},
	{"an ended or terminated session is not revived by a copy that still reads active", func(a, b session.Record) int {
		return sign(sessionRank(&a) - sessionRank(&b))
	}},
	{"it was updated later", func(a, b session.Record) int { return cmpTime(a.UpdatedAt, b.UpdatedAt) }},
	{whyEncoding, func(a, b session.Record) int { return bytes.Compare(canonical(a), canonical(b)) }},
}

// objectiveRules: rev, then the later set, then the encoding.
var objectiveRules = []rule[baton.Objective]{
	{whyRev, func(a, b baton.Objective) int { return cmpRev(a.Cause, b.Cause) }},
	{"it was set later", func(a, b baton.Objective) int { return cmpTime(a.SetAt, b.SetAt) }},
	{whyEncoding, func(a, b baton.Objective) int { return bytes.Compare(canonical(a), canonical(b)) }},
}

// prRules: a merged record first (merged is final: nothing is written
// after it, so an unmerged copy is older or concurrent), then rev, then
// the history (the longer one, the later last transfer), claimedAt, then
// the encoding.
var prRules = []rule[prown.Record]{
	{"a merged pull request stays merged", func(a, b prown.Record) int { return cmpBool(a.Merged(), b.Merged()) }},
	{whyRev, func(a, b prown.Record) int { return cmpRev(a.Cause, b.Cause) }},
	{"its ownership history is longer (more transfers)", func(a, b prown.Record) int { return sign(len(a.History) - len(b.History)) }},
	{"its last transfer of ownership is the later one", func(a, b prown.Record) int { return cmpTime(lastTransfer(&a), lastTransfer(&b)) }},
	{"it was claimed later", func(a, b prown.Record) int { return cmpTime(a.ClaimedAt, b.ClaimedAt) }},
	{whyEncoding, func(a, b prown.Record) int { return bytes.Compare(canonical(a), canonical(b)) }},
}
