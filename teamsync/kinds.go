package teamsync

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// recordKind is how one kind of record, Go type T, is read, ordered and
// described. Records are decoded by their domain package's own decoder:
// one definition per kind. Its order is its rules (rules.go): the order
// and the reason a conflict is given are one definition.
type recordKind[T any] struct {
	read    func(e refstore.Entry) (T, error) // e read as a record that belongs at e.Ref
	causeOf func(rec T) refstore.Cause
	rules   []rule[T]
	// ordered says, for two versions without rev, whether the rules'
	// answer follows from what happened rather than from a tie-break.
	ordered func(a, b T) bool
	// undoes says whether keeping w over l, a version w is not known to
	// have seen, overrules one of the kind's own rules (a claim undone, an
	// ended session revived, two ownership histories diverging).
	undoes func(w, l T) bool
	words  func(rec T) string
	// retiresAt says whether rec, final (a dismissal: since before the
	// retention's cutoff), leaves the live refs, and where it goes
	// (retire.go).
	retiresAt func(rec T, final final, needed map[string]bool) (retirement, bool)
	// archivedAt is where rec's record is archived once retired ("" for a
	// kind the archive does not keep).
	archivedAt func(rec T) (string, error)
}

// kind is one kind of record as the code that does not care which kind
// (plan, sync, the arbiter) holds it: where its refs are, and its
// recordKind behind an interface. A version of a kind is made only by its
// kind's decode, so its rec is always the kind's own type.
type kind struct {
	prefix string
	joiner
}

// joiner is a *recordKind[T], the rules of the versions' own type T.
type joiner interface {
	decode(e refstore.Entry) (any, error)
	// cause is rec's rev and prev (the joins use causeOf; a writer of
	// versions, as the laws test is, asks this).
	cause(rec any) refstore.Cause
	decide(d *decision, look lookup)
	describe(v *version) string
	why(w, l *version) string
	retires(v *version, undo time.Time, needed map[string]bool) (retirement, bool)
	archivePath(v *version) string
}

// recOf is v's record as its kind's type T.
func recOf[T any](v *version) T { return v.rec.(T) }

func (k *recordKind[T]) decode(e refstore.Entry) (any, error) { return k.read(e) }
func (k *recordKind[T]) cause(rec any) refstore.Cause         { return k.causeOf(rec.(T)) }
func (k *recordKind[T]) describe(v *version) string           { return k.words(recOf[T](v)) }
func (k *recordKind[T]) decide(d *decision, look lookup)      { joinKey(k, d, look) }

// why says which rule keeps w over l ("" when the two are equal records).
func (k *recordKind[T]) why(w, l *version) string {
	_, why := decideBy(k.rules, recOf[T](w), recOf[T](l))
	return why
}

// archivePath is where v's record is archived once retired; "" for none.
func (k *recordKind[T]) archivePath(v *version) string {
	p, err := k.archivedAt(recOf[T](v))
	if err != nil {
		return ""
	}
	return p
}

// retires says whether v retires now (what can be undone: once final
// before undo), and where it goes.
func (k *recordKind[T]) retires(v *version, undo time.Time, needed map[string]bool) (retirement, bool) {
	return k.retiresAt(recOf[T](v), final{undo: undo}, needed)
}

var kinds = []kind{
	{refstore.HandoffsPrefix, batons},
	{refstore.ObjectivePrefix, objectives},
	{refstore.SessionPrefix, sessions},
	{refstore.PRPrefix, prs},
	{refstore.LeasePrefix, leases},
}

func kindOf(ref string) *kind {
	for i := range kinds {
		if strings.HasPrefix(ref, kinds[i].prefix) {
			return &kinds[i]
		}
	}
	return nil
}

var batons = &recordKind[baton.Baton]{
	read: func(e refstore.Entry) (baton.Baton, error) {
		s, err := baton.Decode(e)
		return s.Baton, err
	},
	causeOf:    func(b baton.Baton) refstore.Cause { return b.Cause },
	rules:      batonRules,
	ordered:    orderedBaton,
	retiresAt:  retiresBaton,
	archivedAt: func(b baton.Baton) (string, error) { return archive.BatonPath(b.ID) },
	undoes:     func(w, l baton.Baton) bool { return w.ID == l.ID && batonRank(&w) < batonRank(&l) },
	words: func(b baton.Baton) string {
		switch {
		case b.Claimed:
			return fmt.Sprintf("baton %s claimed by session %s", b.ID, b.ClaimedBySession)
		case b.Deleted != nil:
			return fmt.Sprintf("baton %s (%s)", b.ID, b.Deleted.Reason)
		}
		return fmt.Sprintf("baton %s (waiting)", b.ID)
	},
}

var objectives = &recordKind[baton.Objective]{
	read:       baton.DecodeObjective,
	causeOf:    func(o baton.Objective) refstore.Cause { return o.Cause },
	rules:      objectiveRules,
	ordered:    orderedObjective,
	retiresAt:  retiresObjective,
	archivedAt: func(baton.Objective) (string, error) { return "", nil },
	undoes:     func(w, l baton.Objective) bool { return false },
	words: func(o baton.Objective) string {
		if o.Text == "" {
			return "objective (cleared)"
		}
		return fmt.Sprintf("objective %q", truncate(o.Text, 40))
	},
}

var sessions = &recordKind[session.Record]{
	read: func(e refstore.Entry) (session.Record, error) {
		s, err := session.Decode(e)
		return s.Record, err
	},
	causeOf:    func(s session.Record) refstore.Cause { return s.Cause },
	rules:      sessionRules,
	ordered:    orderedSession,
	retiresAt:  retiresSession,
	archivedAt: func(s session.Record) (string, error) { return archive.SessionPath(s.ID) },
	undoes:     func(w, l session.Record) bool { return sessionRank(&w) < sessionRank(&l) },
	words: func(s session.Record) string {
		if s.ReplacedBy != "" {
			return fmt.Sprintf("session %s (%s, replaced by %s)", s.ID, s.Status, s.ReplacedBy)
		}
		return fmt.Sprintf("session %s (%s)", s.ID, s.Status)
	},
}

var prs = &recordKind[prown.Record]{
	read: func(e refstore.Entry) (prown.Record, error) {
		r, err := prown.Decode(e)
		return r.Record, err
	},
	causeOf:    func(p prown.Record) refstore.Cause { return p.Cause },
	rules:      prRules,
	ordered:    orderedPR,
	retiresAt:  retiresPR,
	archivedAt: prArchivePath,
	undoes:     func(w, l prown.Record) bool { return l.Merged() && !w.Merged() || !orderedPR(w, l) },
	words: func(p prown.Record) string {
		if p.Merged() {
			return fmt.Sprintf("pull request %s#%d owned by session %s (merged)", p.Repo, p.Number, p.OwnerSession)
		}
		return fmt.Sprintf("pull request %s#%d owned by session %s", p.Repo, p.Number, p.OwnerSession)
	},
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
