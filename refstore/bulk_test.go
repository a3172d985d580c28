package refstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// TestMain lets the race test run this binary as a competing process: with
// REFSTORE_SWAP set it waits for its stdin to close, swaps one ref with
// ApplyEach and exits 0 (won), 5 (lost the swap) or 1.
func TestMain(m *testing.M) {
	if spec := os.Getenv("REFSTORE_SWAP"); spec != "" {
		os.Exit(swapHelper(spec))
	}
	if spec := os.Getenv("REFSTORE_TXN"); spec != "" {
		os.Exit(txnHelper(spec))
	}
	os.Exit(m.Run())
}

func swapHelper(spec string) int {
	// spec: dir ref new old
	f := strings.Split(spec, "\x1f")
	if len(f) != 4 {
		return 1
	}
	io.Copy(io.Discard, os.Stdin)
	ctx := context.Background()
	st, err := refstore.Open(ctx, f[0], refstore.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	err = st.ApplyEach(ctx, "race", refstore.Update{Ref: f[1], New: f[2], Old: f[3]})
	switch {
	case err == nil:
		return 0
	case errors.Is(err, refstore.ErrConflict):
		return 5
	default:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
}

// Each update stands alone: a lost swap leaves the others applied, packed
// refs are swapped from their packed value, and deletes and foreign refs
// still reach git.
func TestApplyEachIndependentSwaps(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st := open(t, dir, refstore.Options{})
	ids := make([]string, 4)
	for i := range ids {
		ids[i] = gittestHashObject(t, dir, fmt.Sprintf(`{"n":%d}`, i))
	}
	put(t, st, "refs/ao/sessions/packed", "", `{"n":0}`)
	put(t, st, "refs/ao/sessions/gone", "", `{"n":0}`)
	gittest.Run(t, dir, "pack-refs", "--all")
	put(t, st, "refs/ao/sessions/taken", "", `{"n":0}`)

	err := st.ApplyEach(ctx, "test",
		refstore.Update{Ref: "refs/ao/sessions/packed", New: ids[1], Old: ids[0]},
		refstore.Update{Ref: "refs/ao/sessions/taken", New: ids[2]}, // must not exist: it does
		refstore.Update{Ref: "refs/ao/objectives/o/b", New: ids[3]},
		refstore.Update{Ref: "refs/ao/sessions/gone", Old: ids[0]},                   // delete of a packed ref
		refstore.Update{Ref: "refs/ao/remotes/origin/sessions/x", New: ids[3]},       // not a record ref: through git
		refstore.Update{Ref: "refs/ao/handoffs/private/too/many/parts", New: ids[3]}, // wrong depth: through git
	)
	var ce *refstore.ConflictError
	if !errors.As(err, &ce) || ce.Ref != "refs/ao/sessions/taken" || ce.Actual != ids[0] {
		t.Fatalf("ApplyEach = %v, want a conflict on refs/ao/sessions/taken", err)
	}
	for ref, want := range map[string]string{
		"refs/ao/sessions/packed":                 ids[1],
		"refs/ao/sessions/taken":                  ids[0],
		"refs/ao/objectives/o/b":                  ids[3],
		"refs/ao/remotes/origin/sessions/x":       ids[3],
		"refs/ao/handoffs/private/too/many/parts": ids[3],
	} {
		if got := gittest.Run(t, dir, "rev-parse", ref); got != want {
			t.Errorf("%s = %s, want %s", ref, got, want)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/ao/sessions/gone").Output(); err == nil {
		t.Errorf("refs/ao/sessions/gone still resolves to %s", out)
	}
	if l := gittest.RefLocks(t, dir); len(l) > 0 {
		t.Errorf("locks left behind: %q", l)
	}
}

// A lock that stays (a killed git) is reported by name and left alone; in
// the files backend, where it locks one ref, the other refs still move.
// reftable's lock (tables.list.lock) holds every ref: none moves.
func TestApplyEachStaleLock(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st := open(t, dir, refstore.Options{})
	id := gittestHashObject(t, dir, `{"n":1}`)
	lock := gittest.RefLock(t, dir, "refs/ao/sessions/stuck")
	os.MkdirAll(filepath.Dir(lock), 0o777)
	os.WriteFile(lock, nil, 0o666)
	err := st.ApplyEach(ctx, "test",
		refstore.Update{Ref: "refs/ao/sessions/stuck", New: id},
		refstore.Update{Ref: "refs/ao/sessions/free", New: id})
	var le *refstore.LockedError
	if !errors.As(err, &le) || le.Path != lock {
		t.Fatalf("ApplyEach = %v, want a LockedError naming %s", err, lock)
	}
	want := id
	if gittest.RefFormat(t, dir) != "files" {
		want = ""
	}
	if got := refState(t, dir, []refstore.Update{{Ref: "refs/ao/sessions/free"}})[0]; got != want {
		t.Errorf("refs/ao/sessions/free = %q, want %q", got, want)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("someone else's lock was removed: %v", err)
	}
}

// The in-process writer against git's own writers and a concurrent
// pack-refs, in separate processes released together: for every create and
// every swap exactly one writer wins, the ref holds its value and the
// reflog has its one entry.
func TestApplyEachRace(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const rounds, ours, gits = 15, 3, 2
	ids := make([]string, ours+gits)
	for i := range ids {
		ids[i] = gittestHashObject(t, dir, fmt.Sprintf(`{"writer":%d}`, i))
	}
	base := gittestHashObject(t, dir, `{"writer":"base"}`)
	for round := 0; round < rounds; round++ {
		ref := fmt.Sprintf("refs/ao/sessions/race-%d", round)
		// Phase one: all create; phase two: all swap from base.
		for phase, old := range []string{"", base} {
			if phase == 1 {
				gittest.Run(t, dir, "update-ref", "--create-reflog", ref, base)
				gittest.Run(t, dir, "pack-refs", "--all")
			}
			var cmds []*exec.Cmd
			for i := 0; i < ours; i++ {
				c := exec.Command(self, "-test.run=^$")
				c.Env = append(os.Environ(), "REFSTORE_SWAP="+strings.Join([]string{dir, ref, ids[i], old}, "\x1f"))
				cmds = append(cmds, c)
			}
			for i := ours; i < ours+gits; i++ {
				o := old
				if o == "" {
					o = strings.Repeat("0", len(ids[i]))
				}
				c := exec.Command("sh", "-c", `read x; printf 'update %s %s %s\n' "$1" "$2" "$3" | git update-ref --create-reflog -m race --stdin 2>/dev/null || exit 5`, "sh", ref, ids[i], o)
				cmds = append(cmds, c)
			}
			// Every process blocks reading its stdin until the pipes close
			// together: the writers start their swaps at the same moment.
			packer := exec.Command("sh", "-c", `read x; git pack-refs --all`)
			var gates []io.Closer
			for _, c := range append(cmds, packer) {
				c.Dir = dir
				w, err := c.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				gates = append(gates, w)
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
			}
			for _, g := range gates {
				g.Close()
			}
			winners := []int{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i, c := range cmds {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := c.Wait()
					mu.Lock()
					defer mu.Unlock()
					var ee *exec.ExitError
					switch {
					case err == nil:
						winners = append(winners, i)
					case errors.As(err, &ee) && ee.ExitCode() == 5:
					default:
						t.Errorf("round %d writer %d: %v", round, i, err)
					}
				}()
			}
			wg.Wait()
			packer.Wait()
			if len(winners) != 1 {
				t.Fatalf("round %d phase %d: %d winners (%v), want exactly one", round, phase, len(winners), winners)
			}
			if got := gittest.Run(t, dir, "rev-parse", ref); got != ids[winners[0]] {
				t.Fatalf("round %d phase %d: %s = %s, want the winner's %s", round, phase, ref, got, ids[winners[0]])
			}
			if phase == 0 {
				// git reflog walks commits and prints nothing for blob
				// refs: git resolves <ref>@{N} instead.
				if log := gittest.ReflogOIDs(t, dir, ref); len(log) != 1 || log[0] != ids[winners[0]] {
					t.Fatalf("round %d: reflog of %s holds %q, want the winner's one entry %s", round, ref, log, ids[winners[0]])
				}
				// Phase two starts from a fresh ref holding base.
				gittest.Run(t, dir, "update-ref", "-d", ref)
			}
		}
	}
}

// In a shared repository git makes its files group-writable; ApplyEach
// leaves such repositories to git, so a teammate can still update the refs.
func TestApplyEachSharedRepositoryGoesThroughGit(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	filesOnly(t, dir, "a file and a directory per ref, each of whose modes git sets")
	gittest.Run(t, dir, "config", "core.sharedRepository", "group")
	ctx := context.Background()
	st := open(t, dir, refstore.Options{})
	id := gittestHashObject(t, dir, `{"n":1}`)
	if err := st.ApplyEach(ctx, "test", refstore.Update{Ref: "refs/ao/objectives/o/b", New: id}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"refs/ao/objectives/o", "refs/ao/objectives/o/b"} {
		fi, err := os.Stat(filepath.Join(dir, ".git", p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o020 == 0 {
			t.Errorf("%s is %v: not group-writable, as git makes it in a shared repository", p, fi.Mode().Perm())
		}
	}
}
