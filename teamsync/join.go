// Package teamsync carries batons, objectives, sessions and pull-request
// ownership between clones through a git remote the team already has, and
// makes the remote the arbiter of claims.
//
// Merging is a join: for every key, the version kept is the greatest of the
// versions seen under a total order defined per kind, so every clone reaches
// the same record whatever order it saw the versions in. The join never
// makes a new record: it picks one of the two, so the loser is one blob
// that stays reachable from a reflog.
//
// The order follows cause, not clocks. Every version carries rev, one more
// than the highest rev of its key its writer had seen (refstore.Cause), so
// a version written after seeing another has the higher rev and wins
// whatever the wall clocks say: rev is a Lamport clock, and ordering by it
// first is a total order consistent with what each writer saw. Only among
// versions of one rev (written without seeing each other) do the kinds'
// own rules decide (a claim beats a cancel beats waiting), and the wall
// clock comes last. Two exceptions come before rev because nothing is ever
// written after them: a merged pull request and a replaced or merged
// session. Records written before revs existed have rev 0 and keep the old
// rules among themselves. Whether a decision was such a tie-break between
// concurrent versions, rather than one following the other, is found from
// the prev chain (merge.go) and reported as a conflict.
package teamsync

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// canonical is the record's own encoding, the last tie-break of every kind:
// two records that compare equal are the same record.
func canonical(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func cmpTime(a, b time.Time) int {
	switch {
	case a.Before(b):
		return -1
	case a.After(b):
		return 1
	}
	return 0
}

func cmpString(a, b string) int { return strings.Compare(a, b) }

func cmpRev(a, b refstore.Cause) int {
	switch {
	case a.Rev < b.Rev:
		return -1
	case a.Rev > b.Rev:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// batonRank orders the states of one baton: a claim is final and beats a
// tombstone (the claimer already has the notes), which beats waiting.
func batonRank(b *baton.Baton) int {
	switch {
	case b.Claimed:
		return 2
	case b.Deleted != nil:
		return 1
	}
	return 0
}

// CompareBaton is the total order batons of one ref are joined by: rev;
// then a written baton over an automatic one; then, between versions of one rev, the newer baton (createdAt, then id);
// for one id, claimed over cancelled or dismissed over waiting; between
// two claims the earlier claim, then the smaller session id; then the
// encoding.
func CompareBaton(a, b baton.Baton) int {
	c, _ := decideBy(batonRules, a, b)
	return c
}

func claimedAt(b baton.Baton) time.Time {
	if b.ClaimedAt == nil {
		return time.Time{}
	}
	return *b.ClaimedAt
}

// orderedBaton, for two batons without rev, says whether the join of a
// and b follows from what happened (a newer baton, a claim of a waiting
// one) rather than from a tie-break between two things that each
// happened: two claims of one baton, a claim and a cancel, two different
// records with the same id and state.
func orderedBaton(a, b baton.Baton) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || a.ID != b.ID {
		return true
	}
	ra, rb := batonRank(&a), batonRank(&b)
	if ra != rb {
		return ra == 0 || rb == 0
	}
	return bytes.Equal(canonical(a), canonical(b))
}

// JoinBaton returns the version of a baton ref every clone keeps.
func JoinBaton(a, b baton.Baton) baton.Baton {
	if CompareBaton(a, b) >= 0 {
		return a
	}
	return b
}

// sessionRank orders session states: a replaced or merged session stays so
// (a record naming its successor counts as replaced), an ended or terminated
// one is not revived by a concurrent active copy.
func sessionRank(s *session.Record) int {
	switch {
	case s.ReplacedBy != "" || s.Status == session.StatusReplaced || s.Status == session.StatusMerged:
		return 2
	case s.Status == session.StatusEnded || s.Status == session.StatusTerminated:
		return 1
	}
	return 0
}

// CompareSession is the total order session records are joined by: a
// replaced or merged record first (final: nothing is written after it),
// then rev, then state rank (ended over active), updatedAt, the encoding.
// A restore, written after the end it undoes, wins by rev.
func CompareSession(a, b session.Record) int {
	c, _ := decideBy(sessionRules, a, b)
	return c
}

// orderedSession, for two sessions without rev: whether the join follows
// from what happened.
func orderedSession(a, b session.Record) bool {
	ra, rb := sessionRank(&a), sessionRank(&b)
	switch {
	case ra != rb:
		return true
	case ra == 2 && (a.ReplacedBy != b.ReplacedBy || a.Status != b.Status):
		return false // replaced by two different sessions, or replaced vs merged
	case !a.UpdatedAt.Equal(b.UpdatedAt):
		return true
	}
	return bytes.Equal(canonical(a), canonical(b))
}

// JoinSession returns the version of a session record every clone keeps.
func JoinSession(a, b session.Record) session.Record {
	if CompareSession(a, b) >= 0 {
		return a
	}
	return b
}

// CompareObjective orders objectives by rev, then setAt, then content.
func CompareObjective(a, b baton.Objective) int {
	c, _ := decideBy(objectiveRules, a, b)
	return c
}

func orderedObjective(a, b baton.Objective) bool {
	return !a.SetAt.Equal(b.SetAt) || bytes.Equal(canonical(a), canonical(b))
}

// JoinObjective returns the version of an objective every clone keeps.
func JoinObjective(a, b baton.Objective) baton.Objective {
	if CompareObjective(a, b) >= 0 {
		return a
	}
	return b
}

// ComparePR is the total order ownership records are joined by: a merged
// record first (merged is final: nothing is written after it, so an
// unmerged copy is older or concurrent), then rev, then the history (the
// longer one, the later last transfer), claimedAt, then the encoding.
func ComparePR(a, b prown.Record) int {
	c, _ := decideBy(prRules, a, b)
	return c
}

func lastTransfer(p *prown.Record) time.Time {
	if len(p.History) == 0 {
		return time.Time{}
	}
	return p.History[len(p.History)-1].At
}

// orderedPR, for two records without rev: whether one history extends the
// other (ownership follows its history) rather than the two diverging.
func orderedPR(a, b prown.Record) bool {
	if a.Merged() != b.Merged() {
		return true
	}
	short, long := a.History, b.History
	if len(short) > len(long) {
		short, long = long, short
	}
	for i := range short {
		if !bytes.Equal(canonical(short[i]), canonical(long[i])) {
			return false // the histories diverged
		}
	}
	if len(short) != len(long) || !a.ClaimedAt.Equal(b.ClaimedAt) {
		return true
	}
	return bytes.Equal(canonical(a), canonical(b))
}

// JoinPR returns the version of an ownership record every clone keeps.
func JoinPR(a, b prown.Record) prown.Record {
	if ComparePR(a, b) >= 0 {
		return a
	}
	return b
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
