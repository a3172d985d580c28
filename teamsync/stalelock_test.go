package teamsync

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// looseRefLocksOnly skips a test of a lock on one tracking ref: only the
// files backend locks refs one by one (`<ref>.lock` beside the loose
// ref); reftable locks every ref at once with reftable/tables.list.lock.
// A stale tables.list.lock is another scenario, which these tests do not
// cover.
func looseRefLocksOnly(t *testing.T, st *refstore.Store) {
	t.Helper()
	if f := gittest.RefFormat(t, st.Dir()); f != "files" {
		t.Skipf("a lock on one loose tracking ref exists only in the files backend; this repository's refs are %s", f)
	}
}

// A git fetch killed while it held the lock of a tracking ref leaves
// `<ref>.lock` behind, and every later fetch fails on it. The tracking ref
// only caches the remote's copy, so sync removes such a lock once it is
// old enough to be a dead fetch's, says so, and syncs.
func TestSyncGetsPastAStaleTrackingLock(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	looseRefLocksOnly(t, b)
	end(t, a, 1, "from a")
	syncAt(t, a, 2)
	syncAt(t, b, 3)
	end(t, a, 4, "a again")
	syncAt(t, a, 5)
	lock := gittest.RefLock(t, b.Dir(), trackMainRef)
	if err := os.WriteFile(lock, []byte("0123456789012345678901234567890123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lock, old, old)
	res := syncAt(t, b, 6)
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the stale lock is still there: %v", err)
	}
	if got := readBaton(t, b, mainRef); len(got.NextSteps) != 1 || got.NextSteps[0] != "a again" {
		t.Fatalf("b holds %v after sync, want a's newest", got.NextSteps)
	}
	said := false
	for _, w := range res.Warnings {
		said = said || strings.Contains(w, "stale lock")
	}
	if !said {
		t.Fatalf("sync did not say it removed a lock: %q", res.Warnings)
	}
}

// The next sync right after the kill: the lock is young, so sync waits
// until it has stood long enough to be a dead fetch's, then removes it.
func TestSyncGetsPastAFreshDeadFetchLock(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	looseRefLocksOnly(t, b)
	end(t, a, 1, "from a")
	syncAt(t, a, 2)
	syncAt(t, b, 3)
	end(t, a, 4, "a again")
	syncAt(t, a, 5)
	lock := gittest.RefLock(t, b.Dir(), trackMainRef)
	if err := os.WriteFile(lock, []byte("0123456789012345678901234567890123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	syncAt(t, b, 6)
	if got := readBaton(t, b, mainRef); len(got.NextSteps) != 1 || got.NextSteps[0] != "a again" {
		t.Fatalf("b holds %v after sync, want a's newest", got.NextSteps)
	}
}

// A git killed while it committed a reftable transaction leaves
// reftable/tables.list.lock, which stops every ref write of the
// repository, the user's branches too. Only the user can know that no git
// is running, so, as git does, sync leaves it and says which file it is:
// the error is a LockedError naming it, and the records stay as they were.
func TestSyncNamesAStaleReftableLock(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	if f := gittest.RefFormat(t, b.Dir()); f != "reftable" {
		t.Skipf("a lock on every ref at once is reftable's (tables.list.lock); this repository's refs are %s", f)
	}
	end(t, a, 1, "from a")
	syncAt(t, a, 2)
	lock := gittest.RefLock(t, b.Dir(), trackMainRef)
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lock, old, old)
	_, err := Sync(context.Background(), b, Options{Remote: "origin", Now: at(3), Retention: DefaultRetention})
	var le *refstore.LockedError
	if !errors.As(err, &le) || le.Path != lock {
		t.Fatalf("sync with a stale %s: %v, want a LockedError naming it", lock, err)
	}
	if _, serr := os.Stat(lock); serr != nil {
		t.Fatalf("sync removed the repository's lock: %v", serr)
	}
	os.Remove(lock)
	syncAt(t, b, 4)
	if got := readBaton(t, b, mainRef); len(got.NextSteps) != 1 || got.NextSteps[0] != "from a" {
		t.Fatalf("b holds %v once the lock is gone, want a's", got.NextSteps)
	}
}
