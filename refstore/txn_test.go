package refstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// txnHelper is the child process of the kill tests: it applies the updates
// in spec ({"dir":…,"updates":[…]}) as one transaction and exits 0, 5 on a
// lost swap, 1 otherwise. The kill comes from inside: the fault injection
// variable or the reference-transaction hook.
func txnHelper(spec string) int {
	var in struct {
		Dir     string
		Updates []refstore.Update
	}
	if err := json.Unmarshal([]byte(spec), &in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	st, err := refstore.Open(ctx, in.Dir, refstore.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	if os.Getenv("REFSTORE_TXN_GATE") != "" {
		io.Copy(io.Discard, os.Stdin)
	}
	if os.Getenv("REFSTORE_TXN_EACH") != "" {
		err = st.ApplyEach(ctx, "handoff: sync test", in.Updates...)
	} else {
		err = st.Apply(ctx, "handoff: txn test", in.Updates...)
	}
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

// txnShape is one of the multi-ref transactions the workflows write, with
// the refs as they stand before it (ref → body; "" = absent) and after
// (body "" = deleted).
type txnShape struct {
	name   string
	before map[string]string
	after  []struct{ ref, body string } // in the order the workflow applies them
}

// The update lists of end, start, replace and a recorded claim, in the order those workflows
// now give them to Apply.
var txnShapes = []txnShape{
	{"end", map[string]string{
		"refs/ao/sessions/s1":            `{"schema":"session/v1","id":"s1","status":"active"}`,
		"refs/ao/objectives/dev/main":    `{"schema":"objective/v1","text":"old"}`,
		"refs/ao/handoffs/private/dev/x": `{"schema":"handoff/v1","unrelated":true}`,
	}, []struct{ ref, body string }{
		{"refs/ao/handoffs/private/dev/main", `{"schema":"handoff/v1","next":"one"}`},
		{"refs/ao/objectives/dev/main", `{"schema":"objective/v1","text":"cleared"}`},
		{"refs/ao/sessions/s1", `{"schema":"session/v1","id":"s1","status":"ended"}`},
	}},
	{"start", map[string]string{
		"refs/ao/handoffs/private/dev/main": `{"schema":"handoff/v1","next":"one"}`,
	}, []struct{ ref, body string }{
		{"refs/ao/objectives/dev/main", `{"schema":"objective/v1","text":"new"}`},
		{"refs/ao/sessions/s2", `{"schema":"session/v1","id":"s2","status":"active"}`},
		{"refs/ao/handoffs/private/dev/main", `{"schema":"handoff/v1","next":"one","claimedBySession":"s2"}`},
	}},
	{"replace", map[string]string{
		"refs/ao/sessions/s2":               `{"schema":"session/v1","id":"s2","status":"active"}`,
		"refs/ao/handoffs/private/dev/main": `{"schema":"handoff/v1","next":"two"}`,
		"refs/ao/prs/gh/repo/7":             `{"schema":"pr/v1","owner":"s2"}`,
	}, []struct{ ref, body string }{
		{"refs/ao/sessions/s3", `{"schema":"session/v1","id":"s3","supersedes":"s2"}`},
		{"refs/ao/handoffs/private/dev/main", `{"schema":"handoff/v1","next":"two","claimedBySession":"s3"}`},
		{"refs/ao/prs/gh/repo/7", `{"schema":"pr/v1","owner":"s3"}`},
		{"refs/ao/sessions/s2", `{"schema":"session/v1","id":"s2","status":"replaced","replacedBy":"s3"}`},
	}},
	// A claim recorded after the arbiter took it: the baton, the holds
	// that kept its objects from gc deleted (their locks stay empty in
	// git's files backend), the session (handoff's recordClaim).
	{"claim", map[string]string{
		"refs/ao/handoffs/private/dev/main": `{"schema":"handoff/v1","next":"three"}`,
		"refs/ao/inflight/host/7-start/0":   `{"schema":"handoff/v1","next":"three","claimedBySession":"s4"}`,
		"refs/ao/inflight/host/7-start/1":   `{"schema":"session/v1","id":"s4","status":"active"}`,
	}, []struct{ ref, body string }{
		{"refs/ao/handoffs/private/dev/main", `{"schema":"handoff/v1","next":"three","claimedBySession":"s4"}`},
		{"refs/ao/inflight/host/7-start/0", ""},
		{"refs/ao/inflight/host/7-start/1", ""},
		{"refs/ao/sessions/s4", `{"schema":"session/v1","id":"s4","status":"active","claimed":"three"}`},
	}},
}

// setUpShape writes the shape's starting refs with git and returns the
// updates of its transaction.
func setUpShape(t *testing.T, dir string, sh txnShape) []refstore.Update {
	t.Helper()
	for ref, body := range sh.before {
		gittest.Run(t, dir, "update-ref", "--create-reflog", ref, gittestHashObject(t, dir, body))
	}
	var ups []refstore.Update
	for _, a := range sh.after {
		u := refstore.Update{Ref: a.ref}
		if a.body != "" {
			u.New = gittestHashObject(t, dir, a.body)
		}
		if body, ok := sh.before[a.ref]; ok {
			u.Old = gittestHashObject(t, dir, body)
		}
		ups = append(ups, u)
	}
	return ups
}

// deletes reports whether ups deletes a ref.
func deletes(ups []refstore.Update) bool {
	for _, u := range ups {
		if u.New == "" {
			return true
		}
	}
	return false
}

// runTxnChild runs the transaction in a child process with env added and
// reports whether it was killed.
func runTxnChild(t *testing.T, dir string, ups []refstore.Update, env ...string) bool {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(map[string]any{"dir": dir, "updates": ups})
	c := exec.Command(self, "-test.run=^$")
	c.Env = append(append(os.Environ(), "REFSTORE_TXN="+string(spec)), env...)
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	if err != nil {
		t.Fatalf("transaction child: %v\n%s", err, out)
	}
	return false
}

// refState reads every ref of ups: its id, or "" when absent.
func refState(t *testing.T, dir string, ups []refstore.Update) []string {
	t.Helper()
	var out []string
	for _, u := range ups {
		id, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", u.Ref).Output()
		if err != nil {
			out = append(out, "")
			continue
		}
		out = append(out, strings.TrimSpace(string(id)))
	}
	return out
}

// leftovers lists the ref backend's lock files (gittest.RefLocks) and
// journals under handoff/txn (an empty slot is a free one, not a journal).
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	found := gittest.RefLocks(t, dir)
	filepath.WalkDir(filepath.Join(dir, ".git", "handoff", "txn"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 0 {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// checkSettled asserts the transaction stands whole: every ref at its new
// value (rolled) or every ref at its old one, nothing left over, fsck clean.
func checkSettled(t *testing.T, dir string, ups []refstore.Update, rolled bool) {
	t.Helper()
	got := refState(t, dir, ups)
	for i, u := range ups {
		want := u.Old
		if rolled {
			want = u.New
		}
		if got[i] != want {
			t.Errorf("%s = %q, want %q (rolled forward: %v): the transaction is torn", u.Ref, got[i], want, rolled)
		}
		if rolled && u.New != "" { // a deleted ref's reflog goes with it
			// One reflog entry for the move, as the writer would have
			// made: an entry to New whose predecessor held Old (none
			// when Old is "": the move created the ref).
			log := gittest.ReflogOIDs(t, dir, u.Ref)
			n := 0
			for i, id := range log {
				prev := ""
				if i > 0 {
					prev = log[i-1]
				}
				if id == u.New && prev == u.Old {
					n++
				}
			}
			if n != 1 {
				t.Errorf("reflog of %s has %d entries for the move from %q to %s, want 1: %q", u.Ref, n, u.Old, u.New, log)
			}
		}
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
	gittest.Run(t, dir, "fsck", "--no-progress", "--no-dangling")
}

// followUp is the next command: it reads every ref of the transaction with
// st, writes a new value on each from what it read, and must get through
// (re-deciding on a lost swap) without a lock in its way.
func followUp(t *testing.T, dir string, st *refstore.Store, ups []refstore.Update) {
	t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		var next []refstore.Update
		for i, u := range ups {
			cur, err := refstore.ResolveID(ctx, st, u.Ref)
			if err != nil && !errors.Is(err, refstore.ErrNotFound) {
				t.Fatalf("next command reading %s: %v", u.Ref, err)
			}
			next = append(next, refstore.Update{Ref: u.Ref, Old: cur, New: gittestHashObject(t, dir, fmt.Sprintf(`{"next":%d,"a":%d}`, i, attempt))})
		}
		err := st.Apply(ctx, "handoff: next command", next...)
		if err == nil {
			break
		}
		var le *refstore.LockedError
		if errors.As(err, &le) || !errors.Is(err, refstore.ErrConflict) || attempt == 2 {
			t.Fatalf("next command: %v", err)
		}
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind after the next command: %v", l)
	}
}

// tear leaves what a `git update-ref --stdin` killed between its renames
// leaves of a journaled transaction: the journal in a slot no live writer
// holds, the first kill refs moved (with their reflog entries), a lock
// for each of the others, as git fills it.
func tear(t *testing.T, dir string, ups []refstore.Update, kill int) {
	t.Helper()
	var rec []map[string]string
	for _, u := range ups {
		m := map[string]string{"ref": u.Ref}
		if u.Old != "" {
			m["old"] = u.Old
		}
		if u.New != "" {
			m["new"] = u.New
		}
		rec = append(rec, m)
	}
	data, _ := json.Marshal(map[string]any{"schema": "txn/v1", "msg": "handoff: txn test", "updates": rec})
	jdir := filepath.Join(dir, ".git", "handoff", "txn")
	os.MkdirAll(jdir, 0o777)
	if err := os.WriteFile(filepath.Join(jdir, "slot-0.journal"), data, 0o666); err != nil {
		t.Fatal(err)
	}
	for i, u := range ups {
		if i < kill && u.New == "" {
			// git removes a deletion's lock last, after every ref moved:
			// a git killed after the deletion leaves its lock.
			gittest.Run(t, dir, "update-ref", "-m", "handoff: txn test", "-d", u.Ref, u.Old)
			lock := filepath.Join(dir, ".git", filepath.FromSlash(u.Ref)+".lock")
			if err := os.WriteFile(lock, nil, 0o666); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if i < kill {
			old := u.Old
			if old == "" {
				old = strings.Repeat("0", len(u.New))
			}
			gittest.Run(t, dir, "update-ref", "--create-reflog", "-m", "handoff: txn test", u.Ref, u.New, old)
			continue
		}
		// What git writes in a lock it holds: the new id, nothing for a
		// deletion.
		var held []byte
		if u.New != "" {
			held = []byte(u.New + "\n")
		}
		lock := filepath.Join(dir, ".git", filepath.FromSlash(u.Ref)+".lock")
		os.MkdirAll(filepath.Dir(lock), 0o777)
		if err := os.WriteFile(lock, held, 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// A git killed between the renames of a transaction (end, start
// and replace shaped) leaves a prefix applied; the next Open rolls it
// forward, or drops it when nothing had moved. Either way no ref is left
// half-applied, no lock stays, fsck is clean and the next command works.
func TestTxnKilledBetweenRenames(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	for _, sh := range txnShapes {
		for kill := 0; kill <= len(sh.after); kill++ {
			t.Run(fmt.Sprintf("%s/after-%d", sh.name, kill), func(t *testing.T) {
				dir := gittest.Init(t)
				filesOnly(t, dir, "a transaction torn between its renames (some refs moved, a <ref>.lock for each of the others; reftable commits one tables.list rename)")
				ups := setUpShape(t, dir, sh)
				// A store opened before the crash: its Open settled
				// nothing, so it meets the leftovers in its way.
				stale := open(t, dir, refstore.Options{})
				tear(t, dir, ups, kill)
				torn := refState(t, dir, ups)
				for i, u := range ups {
					want := u.Old
					if i < kill {
						want = u.New
					}
					if torn[i] != want {
						t.Fatalf("after the kill %s = %q, want %q", u.Ref, torn[i], want)
					}
				}
				if kill < len(ups) && len(leftovers(t, dir)) == 0 {
					t.Fatal("the kill left no lock: not the crash under test")
				}
				if kill == 2 {
					// The stale store's next write goes through the lock
					// the writer left, helped by its journal.
					followUpOne(t, dir, stale, ups, kill)
					checkSettledRefs(t, dir, ups)
					followUp(t, dir, open(t, dir, refstore.Options{}), ups)
					return
				}
				// Otherwise the next Open settles it; odd kill points
				// through the CLI read path.
				st := open(t, dir, refstore.Options{})
				if len(st.Recovered()) == 0 {
					t.Errorf("Open settled nothing")
				}
				checkSettled(t, dir, ups, kill > 0)
				followUp(t, dir, st, ups)
			})
		}
	}
}

// followUpOne writes the first ref still locked by the killed writer from a
// store opened before the crash: Apply must not call the lock "in the
// way" (its journal explains it). The roll-forward then makes the write a
// lost swap, which the caller re-decides.
func followUpOne(t *testing.T, dir string, st *refstore.Store, ups []refstore.Update, kill int) {
	t.Helper()
	ctx := context.Background()
	u := ups[kill]
	cur, _ := refstore.ResolveID(ctx, st, u.Ref)
	err := st.Apply(ctx, "handoff: next", refstore.Update{Ref: u.Ref, Old: cur, New: gittestHashObject(t, dir, `{"other":1}`)})
	var le *refstore.LockedError
	if errors.As(err, &le) {
		t.Fatalf("next write: %v", err)
	}
	if err != nil && !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("next write: %v", err)
	}
	if err == nil {
		t.Fatalf("next write swapped %s from %s although the killed transaction had started moving its refs", u.Ref, cur)
	}
}

// checkSettledRefs asserts every ref of ups holds its new value (the
// roll-forward happened), no lock or journal is left and fsck is clean.
func checkSettledRefs(t *testing.T, dir string, ups []refstore.Update) {
	t.Helper()
	checkSettled(t, dir, ups, true)
}

// For the transactions git writes (a reference-transaction hook makes
// refstore leave them to update-ref), a hook that kills git and its caller
// at "prepared" leaves every lock taken and no ref moved: the next Open
// drops the locks, and the next command is not told a lock is in its way.
func TestTxnKilledAtPrepared(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	for _, sh := range txnShapes {
		for path, opts := range readPaths {
			t.Run(sh.name+"/"+path, func(t *testing.T) {
				dir := gittest.Init(t)
				filesOnly(t, dir, "one lock per ref left by a git killed at prepared (reftable holds tables.list.lock only)")
				ups := setUpShape(t, dir, sh)
				hook := filepath.Join(dir, ".git", "hooks", "reference-transaction")
				os.MkdirAll(filepath.Dir(hook), 0o777)
				os.WriteFile(hook, []byte(`#!/bin/sh
cat >/dev/null
[ "$1" = prepared ] && [ -n "$REFSTORE_KILL_AT_PREPARED" ] || exit 0
caller=$(sed 's/.*) //' /proc/$PPID/stat | cut -d' ' -f2)
kill -9 "$caller" "$PPID"
`), 0o777)
				if !runTxnChild(t, dir, ups, "REFSTORE_KILL_AT_PREPARED=1") {
					t.Fatal("the writer was not killed by the hook")
				}
				// A transaction that deletes holds packed-refs.lock from
				// its prepare: git's, which stops every ref write, and
				// the user's to remove (BackendLock).
				packedLock := filepath.Join(dir, ".git", "packed-refs.lock")
				want := len(ups)
				if deletes(ups) {
					want++
				}
				locks := 0
				for _, l := range leftovers(t, dir) {
					if strings.HasSuffix(l, ".lock") {
						locks++
					}
				}
				if locks != want {
					t.Fatalf("the kill left %d locks, want %d: not the crash under test", locks, want)
				}
				// Both read paths settle it (the CLI one for repositories
				// go-git cannot open).
				st := open(t, dir, opts)
				if deletes(ups) {
					if l := leftovers(t, dir); len(l) != 1 || l[0] != packedLock {
						t.Fatalf("after Open settled the killed transaction, left: %v; want only git's %s", l, packedLock)
					}
					// What the notice tells the user, done.
					if err := os.Remove(packedLock); err != nil {
						t.Fatal(err)
					}
				}
				checkSettled(t, dir, ups, false)
				followUp(t, dir, st, ups)
			})
		}
	}
}

// A journal is the writer's only while it lives: a journal whose writer
// still holds its flock is never settled by anyone else.
func TestTxnLiveJournalLeftAlone(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	filesOnly(t, dir, "the transaction journal (refstore keeps one only where a transaction can be torn)")
	ups := setUpShape(t, dir, txnShapes[0])
	jdir := filepath.Join(dir, ".git", "handoff", "txn")
	os.MkdirAll(jdir, 0o777)
	rec, _ := json.Marshal(map[string]any{"schema": "txn/v1", "msg": "live", "updates": []map[string]string{
		{"ref": ups[0].Ref, "new": ups[0].New}, {"ref": ups[2].Ref, "old": ups[2].Old, "new": ups[2].New},
	}})
	path := filepath.Join(jdir, "live.json")
	os.WriteFile(path, rec, 0o666)
	lock := filepath.Join(dir, ".git", filepath.FromSlash(ups[2].Ref)+".lock")
	os.WriteFile(lock, []byte(ups[2].New+"\n"), 0o666)
	gittest.Run(t, dir, "update-ref", ups[0].Ref, ups[0].New)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	open(t, dir, refstore.Options{})
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a live writer's lock was touched: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("a live writer's journal was touched: %v", err)
	}
	// Once it is gone, the same journal is rolled forward.
	f.Close()
	st := open(t, dir, refstore.Options{})
	if got := refState(t, dir, ups); got[2] != ups[2].New {
		t.Fatalf("%s = %s after the writer died, want %s (%v)", ups[2].Ref, got[2], ups[2].New, st.Recovered())
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("journal still there")
	}
}

// Multi-ref transactions in separate processes, in process and through
// git, taking the same two refs in opposite orders, released together:
// exactly one wins each round, both refs hold the winner's values (never a
// mix) and no lock is left.
func TestTxnRace(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const rounds, ours, gits = 10, 3, 2
	for round := range rounds {
		a, b := fmt.Sprintf("refs/ao/sessions/a-%d", round), fmt.Sprintf("refs/ao/objectives/o/b-%d", round)
		ids := make([][2]string, ours+gits)
		var cmds []*exec.Cmd
		for i := range ids {
			ids[i] = [2]string{gittestHashObject(t, dir, fmt.Sprintf(`{"a":%d}`, i)), gittestHashObject(t, dir, fmt.Sprintf(`{"b":%d}`, i))}
			ups := []refstore.Update{{Ref: a, New: ids[i][0]}, {Ref: b, New: ids[i][1]}}
			if i%2 == 1 {
				ups[0], ups[1] = ups[1], ups[0]
			}
			var c *exec.Cmd
			if i < ours {
				spec, _ := json.Marshal(map[string]any{"dir": dir, "updates": ups})
				c = exec.Command(self, "-test.run=^$")
				c.Env = append(os.Environ(), "REFSTORE_TXN="+string(spec), "REFSTORE_TXN_GATE=1")
			} else {
				var in strings.Builder
				in.WriteString("start\n")
				for _, u := range ups {
					fmt.Fprintf(&in, "create %s %s\n", u.Ref, u.New)
				}
				in.WriteString("prepare\ncommit\n")
				c = exec.Command("sh", "-c", `read x; printf '%s' "$1" | git update-ref --create-reflog -m race --stdin 2>/dev/null || exit 5`, "sh", in.String())
			}
			c.Dir = dir
			cmds = append(cmds, c)
		}
		var gates []io.Closer
		for _, c := range cmds {
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
		var winners []int
		for i, c := range cmds {
			err := c.Wait()
			var ee *exec.ExitError
			switch {
			case err == nil:
				winners = append(winners, i)
			case errors.As(err, &ee) && ee.ExitCode() == 5:
			default:
				t.Errorf("round %d writer %d: %v", round, i, err)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: winners %v, want exactly one", round, winners)
		}
		w := winners[0]
		if got := refState(t, dir, []refstore.Update{{Ref: a}, {Ref: b}}); got[0] != ids[w][0] || got[1] != ids[w][1] {
			t.Fatalf("round %d: refs hold %v, want the winner's %v", round, got, ids[w])
		}
		if l := leftovers(t, dir); len(l) > 0 {
			t.Fatalf("round %d: left behind %v", round, l)
		}
	}
}

// ApplyEach (sync's writer) from a store opened before the crash is not
// stopped by the killed transaction's lock either.
func TestTxnKilledApplyEachStale(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	filesOnly(t, dir, "a transaction torn between its renames (some refs moved, a <ref>.lock for each of the others; reftable commits one tables.list rename)")
	ups := setUpShape(t, dir, txnShapes[0])
	stale := open(t, dir, refstore.Options{})
	tear(t, dir, ups, 1)
	ctx := context.Background()
	u := ups[1]
	cur, _ := refstore.ResolveID(ctx, stale, u.Ref)
	err := stale.ApplyEach(ctx, "handoff: sync", refstore.Update{Ref: u.Ref, Old: cur, New: gittestHashObject(t, dir, `{"sync":1}`)})
	var le *refstore.LockedError
	if errors.As(err, &le) || !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("ApplyEach = %v, want a lost swap (the transaction was rolled forward first)", err)
	}
	checkSettled(t, dir, ups, true)
}

// A sync killed while its independent swaps hold their locks (written,
// not renamed) leaves locks only its journal can prove ours: the next Open
// settles every one, each ref ends at its old or its new value, and
// nothing is left in the way of the next write.
func TestApplyEachKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	filesOnly(t, dir, "the transaction journal (refstore keeps one only where a transaction can be torn)")
	var ups []refstore.Update
	for i := 0; i < 12; i++ {
		ups = append(ups, refstore.Update{Ref: fmt.Sprintf("refs/ao/sessions/s%02d", i), New: gittestHashObject(t, dir, fmt.Sprintf(`{"n":%d}`, i))})
	}
	tear(t, dir, ups, 5)
	if len(leftovers(t, dir)) == 0 {
		t.Fatal("the kill left no lock: not the crash under test")
	}
	st := open(t, dir, refstore.Options{})
	if len(st.Recovered()) == 0 {
		t.Error("Open settled nothing")
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("left behind after the next Open: %v (it said %q)", l, st.Recovered())
	}
	for i, id := range refState(t, dir, ups) {
		if id != "" && id != ups[i].New {
			t.Fatalf("%s = %s, neither absent nor its new value", ups[i].Ref, id)
		}
	}
	gittest.Run(t, dir, "fsck", "--no-dangling")
	ctx := context.Background()
	cur, _ := refstore.ResolveID(ctx, st, ups[0].Ref)
	if err := st.ApplyEach(ctx, "next", refstore.Update{Ref: ups[0].Ref, Old: cur, New: gittestHashObject(t, dir, `{"next":1}`)}); err != nil {
		t.Fatalf("the next write: %v", err)
	}
}

// Journals live in slots that stay: a hundred transactions leave one empty
// slot-0.journal and nothing else. A slot another writer holds is passed over
// for the next; a slot holding a dead writer's journal is passed over by
// writers and settled, then emptied, by the next Open; a slot whose
// journal cannot be read is left as it is, said so, and never reused.
func TestTxnJournalSlots(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	filesOnly(t, dir, "the transaction journal (refstore keeps one only where a transaction can be torn)")
	ctx := context.Background()
	jdir := filepath.Join(dir, ".git", "handoff", "txn")
	slot := func(n int) string { return filepath.Join(jdir, fmt.Sprintf("slot-%d.journal", n)) }
	files := func() map[string]int64 {
		out := map[string]int64{}
		ents, _ := os.ReadDir(jdir)
		for _, e := range ents {
			fi, _ := e.Info()
			out[e.Name()] = fi.Size()
		}
		return out
	}
	st := open(t, dir, refstore.Options{})
	body := `{"schema":"session/v1","id":"s","n":%d}`
	old := ""
	for i := 0; i < 100; i++ {
		old = put(t, st, "refs/ao/sessions/s", old, fmt.Sprintf(body, i))
	}
	if got := files(); len(got) != 1 || got["slot-0.journal"] != 0 {
		t.Fatalf("after 100 transactions the journals are %v; want one empty slot-0.journal", got)
	}
	// A git-handoff from before slots settles the .json and .tmp files of
	// the directory: a slot must be neither, or each of its commands would
	// report an empty one.
	for name := range files() {
		if strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".tmp") {
			t.Errorf("slot %s has a name an older git-handoff reads as its own journal", name)
		}
	}

	// Another writer holds slot 0: the transaction uses slot 1.
	held, err := os.OpenFile(slot(0), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	old = put(t, st, "refs/ao/sessions/s", old, fmt.Sprintf(body, 100))
	held.Close()
	if got := files(); len(got) != 2 || got["slot-0.journal"] != 0 || got["slot-1.journal"] != 0 {
		t.Fatalf("with slot 0 held the journals are %v; want slots 0 and 1, both empty", got)
	}

	// A dead writer's journal in slot 0 (its lock still holds its id):
	// writers pass it by, the next Open settles it and empties it.
	ups := setUpShape(t, dir, txnShapes[1])
	lock := filepath.Join(dir, ".git", filepath.FromSlash(ups[0].Ref)+".lock")
	os.WriteFile(lock, []byte(ups[0].New+"\n"), 0o666)
	rec, _ := json.Marshal(map[string]any{"schema": "txn/v1", "msg": "dead", "updates": []map[string]string{
		{"ref": ups[0].Ref, "old": ups[0].Old, "new": ups[0].New},
	}})
	if err := os.WriteFile(slot(0), rec, 0o666); err != nil {
		t.Fatal(err)
	}
	old = put(t, st, "refs/ao/sessions/s", old, fmt.Sprintf(body, 101))
	if got := files(); got["slot-0.journal"] != int64(len(rec)) || got["slot-1.journal"] != 0 {
		t.Fatalf("a writer touched a dead writer's slot: %v", got)
	}
	st2 := open(t, dir, refstore.Options{})
	if got := files(); got["slot-0.journal"] != 0 {
		t.Fatalf("the next Open left the dead writer's slot as %v (%v)", got, st2.Recovered())
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) || len(st2.Recovered()) != 1 {
		t.Fatalf("the dead writer's lock: %v; recovered %q", err, st2.Recovered())
	}

	// A journal that cannot be read stays, said so, and is not reused.
	if err := os.WriteFile(slot(1), []byte("{torn"), 0o666); err != nil {
		t.Fatal(err)
	}
	st3 := open(t, dir, refstore.Options{})
	if r := st3.Recovered(); len(r) != 1 || !strings.Contains(r[0], "slot-1.journal alone") {
		t.Fatalf("an unreadable slot: recovered %q", r)
	}
	for i := 0; i < 3; i++ {
		old = put(t, st3, "refs/ao/sessions/s", old, fmt.Sprintf(body, 102+i))
	}
	if got := files(); got["slot-1.journal"] != 5 || got["slot-0.journal"] != 0 {
		t.Fatalf("after writes beside an unreadable slot: %v", got)
	}
	if err := st3.Apply(ctx, "x", refstore.Update{Ref: "refs/ao/sessions/t", New: ups[0].New}); err != nil {
		t.Fatal(err)
	}
}
