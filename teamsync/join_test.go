package teamsync

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/session"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
func atp(min int) *time.Time {
	t := at(min)
	return &t
}

func mkBaton(id string, created int) baton.Baton {
	return baton.Baton{Schema: baton.Schema, ID: id, Owner: "dev", Branch: "main", NextSteps: []string{"go on"},
		FailedApproaches: []string{}, OpenQuestions: []string{}, CreatedAt: at(created)}
}

func claimed(b baton.Baton, by string, when int) baton.Baton {
	b.Claimed, b.ClaimedBySession, b.ClaimedAt = true, by, atp(when)
	return b
}

func deleted(b baton.Baton, reason string, when int) baton.Baton {
	b.Deleted = &baton.Deletion{Reason: reason, At: at(when)}
	return b
}

func TestJoinBaton(t *testing.T) {
	h1, h2 := mkBaton("h-1", 0), mkBaton("h-2", 5)
	h1b := mkBaton("h-1b", 0) // same time as h1, larger id
	for _, tc := range []struct {
		name    string
		a, b    baton.Baton
		want    baton.Baton
		ordered bool
	}{
		{"same", h1, h1, h1, true},
		{"claimed beats waiting", h1, claimed(h1, "s-a", 1), claimed(h1, "s-a", 1), true},
		{"cancelled beats waiting", deleted(h1, "cancelled", 1), h1, deleted(h1, "cancelled", 1), true},
		{"dismissed beats waiting", h1, deleted(h1, "dismissed", 1), deleted(h1, "dismissed", 1), true},
		{"claim beats cancel, unordered", deleted(h1, "cancelled", 1), claimed(h1, "s-a", 2), claimed(h1, "s-a", 2), false},
		{"earlier claim wins, unordered", claimed(h1, "s-b", 3), claimed(h1, "s-a", 2), claimed(h1, "s-a", 2), false},
		{"same time: smaller session wins", claimed(h1, "s-b", 2), claimed(h1, "s-a", 2), claimed(h1, "s-a", 2), false},
		{"newer baton beats claimed older", claimed(h1, "s-a", 2), h2, h2, true},
		{"newer baton beats cancelled older", deleted(h1, "cancelled", 9), h2, h2, true},
		{"newer claimed beats older waiting", h1, claimed(h2, "s-a", 6), claimed(h2, "s-a", 6), true},
		{"same createdAt: larger id", h1, h1b, h1b, true},
		{"cancel vs dismiss: earlier wins", deleted(h1, "dismissed", 4), deleted(h1, "cancelled", 3), deleted(h1, "cancelled", 3), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				a, b := tc.a, tc.b
				if swap {
					a, b = b, a
				}
				got := JoinBaton(a, b)
				if !bytes.Equal(canonical(got), canonical(tc.want)) {
					t.Errorf("JoinBaton(swap=%v) = %s, want %s", swap, canonical(got), canonical(tc.want))
				}
				if o := orderedBaton(a, b); o != tc.ordered {
					t.Errorf("ordered(swap=%v) = %v, want %v", swap, o, tc.ordered)
				}
			}
		})
	}
}

func mkSession(status string, updated int) session.Record {
	return session.Record{Schema: session.Schema, ID: "s-1", Owner: "dev", Branch: "main", Status: status, CreatedAt: t0, UpdatedAt: at(updated)}
}

func TestJoinSession(t *testing.T) {
	active, ended := mkSession(session.StatusActive, 9), mkSession(session.StatusEnded, 1)
	replaced := mkSession(session.StatusReplaced, 1)
	replaced.ReplacedBy = "s-2"
	replaced3 := replaced
	replaced3.ReplacedBy = "s-3"
	merged := mkSession(session.StatusMerged, 0)
	namedOnly := mkSession(session.StatusActive, 0) // names a successor, status not yet updated
	namedOnly.ReplacedBy = "s-2"
	later := mkSession(session.StatusActive, 10)
	later.Summary = "more"
	tie := mkSession(session.StatusActive, 9)
	tie.Summary = "other"
	for _, tc := range []struct {
		name    string
		a, b    session.Record
		want    session.Record
		ordered bool
	}{
		{"same", active, active, active, true},
		{"a replaced session stays replaced, however new the other", later, replaced, replaced, true},
		{"ended beats a newer active copy", later, ended, ended, true},
		{"replacedBy alone counts as replaced", later, namedOnly, namedOnly, true},
		{"newer update wins within a state", active, later, later, true},
		{"two successors: unordered, the encoding decides", replaced, replaced3, replaced3, false},
		{"replaced vs merged: unordered", replaced, merged, replaced, false},
		{"same time, different content: unordered", active, tie, tie, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				a, b := tc.a, tc.b
				if swap {
					a, b = b, a
				}
				got := JoinSession(a, b)
				if !bytes.Equal(canonical(got), canonical(tc.want)) {
					t.Errorf("JoinSession(swap=%v) = %s, want %s", swap, canonical(got), canonical(tc.want))
				}
				if o := orderedSession(a, b); o != tc.ordered {
					t.Errorf("ordered(swap=%v) = %v, want %v", swap, o, tc.ordered)
				}
			}
		})
	}
}

func TestJoinObjective(t *testing.T) {
	o := func(text string, set int) baton.Objective {
		return baton.NewObjective("dev", "main", text, "s-1", at(set))
	}
	for _, tc := range []struct {
		name    string
		a, b    baton.Objective
		want    baton.Objective
		ordered bool
	}{
		{"later set wins", o("parse", 1), o("test", 2), o("test", 2), true},
		{"a later clear wins", o("parse", 1), o("", 2), o("", 2), true},
		{"same time: content decides", o("b", 1), o("a", 1), o("b", 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				a, b := tc.a, tc.b
				if swap {
					a, b = b, a
				}
				if got := JoinObjective(a, b); !reflect.DeepEqual(got, tc.want) {
					t.Errorf("JoinObjective = %+v, want %+v", got, tc.want)
				}
				if o := orderedObjective(a, b); o != tc.ordered {
					t.Errorf("ordered = %v, want %v", o, tc.ordered)
				}
			}
		})
	}
}

func mkPR(updated int, hist ...string) prown.Record {
	p := prown.Record{Schema: prown.Schema, Repo: "acme/app", Number: 7, ClaimedAt: at(updated), History: []prown.Transfer{}}
	for i, h := range hist {
		from, to, _ := strings.Cut(h, ">")
		p.History = append(p.History, prown.Transfer{From: from, Session: to, At: at(i)})
		p.OwnerSession = to
	}
	return p
}

func TestJoinPR(t *testing.T) {
	base := mkPR(0, ">s-1")
	moved := mkPR(1, ">s-1", "s-1>s-2")
	skewed := moved
	skewed.History = append([]prown.Transfer{}, moved.History...)
	skewed.History[1].At = at(-100) // clock behind: the history still extends
	fork := mkPR(1, ">s-1", "s-1>s-3")
	touched := mkPR(5, ">s-1")
	merged := base
	merged.MergedAt = atp(3)
	for _, tc := range []struct {
		name    string
		a, b    prown.Record
		want    prown.Record
		ordered bool
	}{
		{"same", base, base, base, true},
		{"ownership follows the longer history", base, moved, moved, true},
		{"even when its clock was behind", base, skewed, skewed, true},
		{"same history: later update", base, touched, touched, true},
		{"diverged histories: unordered", moved, fork, fork, false},
		{"merged stays merged, whatever the history", moved, merged, merged, true},
		{"merged against the same record unmerged", base, merged, merged, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				a, b := tc.a, tc.b
				if swap {
					a, b = b, a
				}
				got := JoinPR(a, b)
				if !bytes.Equal(canonical(got), canonical(tc.want)) {
					t.Errorf("JoinPR = %s, want %s", canonical(got), canonical(tc.want))
				}
				if o := orderedPR(a, b); o != tc.ordered {
					t.Errorf("ordered = %v, want %v", o, tc.ordered)
				}
			}
		})
	}
}

// randomBaton draws from a small space so that collisions of id, time,
// state and claimer are common.
func randomBaton(r *rand.Rand) baton.Baton {
	b := mkBaton([]string{"h-1", "h-2", "h-3"}[r.Intn(3)], r.Intn(3))
	b.NextSteps = []string{[]string{"a", "b"}[r.Intn(2)]}
	switch r.Intn(4) {
	case 1:
		b = claimed(b, []string{"s-a", "s-b", "s-c"}[r.Intn(3)], r.Intn(3))
	case 2:
		b = deleted(b, []string{"cancelled", "dismissed"}[r.Intn(2)], r.Intn(3))
	}
	b.Rev = uint64(r.Intn(3)) // 0: written before revs
	return b
}

func randomSession(r *rand.Rand) session.Record {
	s := mkSession([]string{session.StatusActive, session.StatusEnded, session.StatusTerminated, session.StatusReplaced, session.StatusMerged}[r.Intn(5)], r.Intn(3))
	if r.Intn(3) == 0 {
		s.ReplacedBy = []string{"s-2", "s-3"}[r.Intn(2)]
	}
	s.Summary = []string{"", "x", "y"}[r.Intn(3)]
	s.Rev = uint64(r.Intn(3))
	return s
}

func randomObjective(r *rand.Rand) baton.Objective {
	o := baton.NewObjective("dev", "main", []string{"", "a", "b"}[r.Intn(3)], "s-1", at(r.Intn(3)))
	o.Rev = uint64(r.Intn(3))
	return o
}

func randomPR(r *rand.Rand) prown.Record {
	hist := []string{">s-1"}
	for i := r.Intn(3); i > 0; i-- {
		hist = append(hist, []string{"s-1>s-2", "s-2>s-3", "s-1>s-3"}[r.Intn(3)])
	}
	p := mkPR(r.Intn(3), hist...)
	if r.Intn(3) == 0 {
		p.MergedAt = atp(r.Intn(3))
	}
	p.Rev = uint64(r.Intn(3))
	return p
}

// checkLattice checks that join is commutative, associative and idempotent
// and that its order is a total order, on n random triples.
func checkLattice[T any](t *testing.T, gen func(*rand.Rand) T, join func(a, b T) T, cmp func(a, b T) int) {
	t.Helper()
	r := rand.New(rand.NewSource(1))
	eq := func(a, b T) bool { return bytes.Equal(canonical(a), canonical(b)) }
	for i := 0; i < 5000; i++ {
		a, b, c := gen(r), gen(r), gen(r)
		if !eq(join(a, b), join(b, a)) {
			t.Fatalf("not commutative:\n a=%s\n b=%s", canonical(a), canonical(b))
		}
		if !eq(join(join(a, b), c), join(a, join(b, c))) {
			t.Fatalf("not associative:\n a=%s\n b=%s\n c=%s", canonical(a), canonical(b), canonical(c))
		}
		if !eq(join(a, a), a) {
			t.Fatalf("not idempotent: %s", canonical(a))
		}
		if (cmp(a, b) == 0) != eq(a, b) || cmp(a, b) != -cmp(b, a) {
			t.Fatalf("not antisymmetric:\n a=%s\n b=%s", canonical(a), canonical(b))
		}
		if cmp(a, b) >= 0 && cmp(b, c) >= 0 && cmp(a, c) < 0 {
			t.Fatalf("not transitive:\n a=%s\n b=%s\n c=%s", canonical(a), canonical(b), canonical(c))
		}
	}
}

func TestJoinProperties(t *testing.T) {
	t.Run("baton", func(t *testing.T) { checkLattice(t, randomBaton, JoinBaton, CompareBaton) })
	t.Run("session", func(t *testing.T) { checkLattice(t, randomSession, JoinSession, CompareSession) })
	t.Run("objective", func(t *testing.T) { checkLattice(t, randomObjective, JoinObjective, CompareObjective) })
	t.Run("pr", func(t *testing.T) { checkLattice(t, randomPR, JoinPR, ComparePR) })
}

// Any order of arrival gives the same result: fold permutations of a set.
func TestJoinAnyOrder(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		set := make([]baton.Baton, 2+r.Intn(5))
		for j := range set {
			set[j] = randomBaton(r)
		}
		want := set[0]
		for _, b := range set[1:] {
			want = JoinBaton(want, b)
		}
		r.Shuffle(len(set), func(a, b int) { set[a], set[b] = set[b], set[a] })
		got := set[0]
		for _, b := range set[1:] {
			got = JoinBaton(b, got)
		}
		if !bytes.Equal(canonical(got), canonical(want)) {
			t.Fatalf("order changed the result: %s vs %s", canonical(got), canonical(want))
		}
	}
}

func TestDiff(t *testing.T) {
	a, _ := json.Marshal(claimed(mkBaton("h-1", 0), "s-a", 1))
	b, _ := json.Marshal(claimed(mkBaton("h-1", 0), "s-b", 2))
	d := Diff(a, b)
	for _, want := range []string{`-   "claimedBySession": "s-a"`, `+   "claimedBySession": "s-b"`, `    "id": "h-1",`} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
}
