package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
)

func TestReplace(t *testing.T) {
	ctx := context.Background()
	st := memRepo(t)
	create(t, st, Record{ID: "app-7", Harness: "claude-code", Model: "opus", Prompt: "fix it", Summary: "half done"})

	res, err := Replace(ctx, st, ReplaceOptions{OldID: "app-7", NewID: "app-12", Reason: "stuck", Harness: "codex"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := Read(ctx, st, "app-7")
	nw, _ := Read(ctx, st, "app-12")
	if old.Status != StatusReplaced || old.ReplacedBy != "app-12" || old.HandoffAt == nil {
		t.Errorf("old: %+v", old.Record)
	}
	if nw.Supersedes != "app-7" || nw.HandoffReason != "stuck" || nw.HandoffContextMode != ContextSummary ||
		nw.Harness != "codex" || nw.Model != "" || nw.Prompt != "fix it" || nw.HandoffPackage != res.Package || nw.Status != StatusActive {
		t.Errorf("new: %+v", nw.Record)
	}
	g, err := LineGraph(ctx, st, "app-12")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
	if got := lineage.Summary(g, "app-12"); got != "app-12 ← app-7 (stuck)" {
		t.Errorf("summary %q", got)
	}

	refusals := []struct {
		name  string
		opts  ReplaceOptions
		check func(error) bool
	}{
		{"replaced session", ReplaceOptions{OldID: "app-7", NewID: "x"}, func(err error) bool {
			var re *ReplacedError
			return errors.As(err, &re) && re.By == "app-12" && re.Live == "app-12"
		}},
		{"existing new id (a cycle)", ReplaceOptions{OldID: "app-12", NewID: "app-7"}, func(err error) bool {
			var ee *ExistsError
			return errors.As(err, &ee)
		}},
		{"itself", ReplaceOptions{OldID: "app-12", NewID: "app-12"}, func(err error) bool {
			return errors.Is(err, refstore.ErrConflict)
		}},
		{"missing", ReplaceOptions{OldID: "nope", NewID: "y"}, func(err error) bool {
			return errors.Is(err, refstore.ErrNotFound)
		}},
		{"bad mode", ReplaceOptions{OldID: "app-12", NewID: "y", Context: "all"}, func(err error) bool { return err != nil }},
	}
	for _, r := range refusals {
		if _, err := Replace(ctx, st, r.opts, t0); !r.check(err) || !(errors.Is(err, refstore.ErrConflict) || r.name == "missing" || r.name == "bad mode") {
			t.Errorf("%s: %v", r.name, err)
		}
	}
	create(t, st, Record{ID: "done", Status: StatusMerged})
	var ro *ReadOnlyError
	if _, err := Replace(ctx, st, ReplaceOptions{OldID: "done"}, t0); !errors.As(err, &ro) || !errors.Is(err, refstore.ErrConflict) {
		t.Errorf("merged: %v", err)
	}
	res, err = Replace(ctx, st, ReplaceOptions{OldID: "app-12", NewID: "app-13", Context: ContextNone}, t0)
	if err != nil || res.Package != "" {
		t.Fatalf("none mode: %v, package %q", err, res.Package)
	}
}

// TestReplaceConcurrent races replacements of one session in process
// (run it with -race): exactly one wins, the others name it. It stays on
// git: each replacement has a store of its own, and git's transaction
// decides between them.
func TestReplaceConcurrent(t *testing.T) {
	ctx := context.Background()
	st := testRepo(t)
	for round := range 3 {
		old := fmt.Sprintf("old-%d", round)
		create(t, st, Record{ID: old, Harness: "codex", Prompt: "race"})
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			own := openAgain(t, st)
			go func() {
				defer wg.Done()
				_, errs[i] = Replace(ctx, own, ReplaceOptions{OldID: old, NewID: fmt.Sprintf("new-%d-%d", round, i)}, t0)
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			if err == nil {
				if winner >= 0 {
					t.Fatalf("two winners: %d and %d", winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("no winner: %v", errs)
		}
		for i, err := range errs {
			var re *ReplacedError
			if i != winner && (!errors.As(err, &re) || re.By != fmt.Sprintf("new-%d-%d", round, winner)) {
				t.Errorf("loser %d: %v", i, err)
			}
		}
	}
	all, _, err := List(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if err := lineage.NewGraph(Nodes(Records(all))).Validate(); err != nil {
		t.Error(err)
	}
}

// TestReplaceTransfer checks that the Transfer hook's updates ride in the
// same transaction: when one of them cannot apply, nothing changes.
func TestReplaceTransfer(t *testing.T) {
	ctx := context.Background()
	st := memRepo(t)
	create(t, st, Record{ID: "a", Harness: "codex", Prompt: "p", PR: &PRPointer{Repo: "o/r", Number: 1}})
	blob, err := st.WriteBlob(ctx, []byte(`{"schema":"test"}`))
	if err != nil {
		t.Fatal(err)
	}
	const ref = "refs/ao/prs/o/r/1"
	wrongOld := blob // the ref does not exist yet, so expecting blob fails
	_, err = Replace(ctx, st, ReplaceOptions{OldID: "a", NewID: "b", Transfer: func(_ context.Context, _ Record, next, prev *Record) ([]refstore.Update, error) {
		next.PR, prev.PR = prev.PR, nil
		return []refstore.Update{{Ref: ref, New: blob, Old: wrongOld}}, nil
	}}, t0)
	if err == nil {
		t.Fatal("replace went through although the transfer could not apply")
	}
	if s, _ := Read(ctx, st, "a"); s.Status != StatusActive || s.PR == nil {
		t.Fatalf("old session changed: %+v", s.Record)
	}
	if _, err := Read(ctx, st, "b"); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("new session exists: %v", err)
	}
	res, err := Replace(ctx, st, ReplaceOptions{OldID: "a", NewID: "b", PackageExtra: "## Pull request #1", Transfer: func(_ context.Context, _ Record, next, prev *Record) ([]refstore.Update, error) {
		next.PR, prev.PR = prev.PR, nil
		return []refstore.Update{{Ref: ref, New: blob}}, nil
	}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if res.New.PR == nil || res.Old.PR != nil || !strings.Contains(res.Package, "## Pull request #1") {
		t.Errorf("pr pointers: new %+v old %+v", res.New.PR, res.Old.PR)
	}
	if id, err := refstore.ResolveID(ctx, st, ref); err != nil || id != blob {
		t.Errorf("transfer ref: %q %v", id, err)
	}
}
