package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// net2 is a network with one remote and two clones of it.
func net2(t *testing.T) (*memstore.Network, *memstore.Store, *memstore.Clone, *memstore.Clone) {
	t.Helper()
	n := memstore.NewNetwork()
	remote, err := n.NewRepository("mem://origin", refstore.FormatSHA256)
	if err != nil {
		t.Fatal(err)
	}
	a, err := n.NewClone("mem://origin", "/mem/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.NewClone("mem://origin", "/mem/b")
	if err != nil {
		t.Fatal(err)
	}
	return n, remote, a, b
}

func TestNewCloneIsSetUpAsGitClone(t *testing.T) {
	ctx := context.Background()
	_, remote, a, _ := net2(t)
	putRecord(t, remote, "refs/ao/sessions/s", "s")
	if a.ObjectFormat() != refstore.FormatSHA256 {
		t.Fatalf("format %s, want the remote's", a.ObjectFormat())
	}
	rcs, err := a.RemoteConfigs(ctx)
	if err != nil || len(rcs) != 1 || rcs[0].Name != "origin" || rcs[0].URL != "mem://origin" || len(rcs[0].Fetch) != 0 {
		t.Fatalf("RemoteConfigs = %+v, %v", rcs, err)
	}
	if ids, _ := a.RefIDs(ctx, refstore.Root); len(ids) != 0 {
		t.Fatalf("a new clone holds %v: git clone fetches no refs/ao/", ids)
	}
	if _, err := memstore.NewNetwork().NewClone("mem://none", "/mem/x"); err == nil {
		t.Fatal("a clone of nothing")
	}
}

func TestUnknownRemote(t *testing.T) {
	ctx := context.Background()
	_, _, a, _ := net2(t)
	if err := a.Fetch(ctx, "upstream", true, spec); !errors.Is(err, memstore.ErrNoRemote) {
		t.Fatalf("Fetch = %v, want ErrNoRemote", err)
	}
	id := putRecord(t, a, "refs/ao/sessions/x", "x")
	err := a.Push(ctx, "upstream", []refstore.Update{{Ref: "refs/ao/sessions/x", New: id}}, refstore.PushOptions{})
	var pe *refstore.PushError
	// refstore.PushError has no Unwrap: its Err says why.
	if !errors.As(err, &pe) || len(pe.Rejected) != 0 || !errors.Is(pe.Err, memstore.ErrNoRemote) {
		t.Fatalf("Push = %v, want a PushError of no remote", err)
	}
	if _, err := a.RemoteIDs(ctx, "upstream", spec); !errors.Is(err, memstore.ErrNoRemote) {
		t.Fatalf("RemoteIDs = %v", err)
	}
	// A URL reaches the repository as a name would.
	if err := a.Push(ctx, "mem://origin", []refstore.Update{{Ref: "refs/ao/sessions/x", New: id}}, refstore.PushOptions{}); err != nil {
		t.Fatalf("Push by URL: %v", err)
	}
	// A clone without a network reaches nothing.
	lone := newClone(t, "/mem/lone")
	lone.AddRemote("origin", "mem://origin")
	if err := lone.Fetch(ctx, "origin", true, spec); !errors.Is(err, memstore.ErrNoRemote) {
		t.Fatalf("Fetch without a network = %v", err)
	}
	if err := a.AddRemote("bad name", "x"); !errors.Is(err, refstore.ErrBadName) {
		t.Fatalf("AddRemote of a bad name = %v", err)
	}
	// A remote of another object format.
	n := a.Network()
	if _, err := n.NewRepository("mem://sha1", refstore.FormatSHA1); err != nil {
		t.Fatal(err)
	}
	a.AddRemote("old", "mem://sha1")
	if err := a.Fetch(ctx, "old", true, spec); err == nil {
		t.Fatal("fetched across object formats")
	}
}

const spec = "+refs/ao/sessions/*:refs/ao/remotes/origin/sessions/*"

// faultLog records every operation a Faults func is asked about, and
// fails those fail names ("push after" and the like), once each.
type faultLog struct {
	ops  []string
	fail map[string]error
}

func (f *faultLog) faults(op memstore.Op) error {
	key := op.Name + " " + op.Phase.String()
	f.ops = append(f.ops, fmt.Sprintf("%s %s %s %s %s %v", op.Clone, op.Name, op.Phase, op.Remote, op.URL, op.Refs))
	if err, ok := f.fail[key]; ok {
		delete(f.fail, key)
		return err
	}
	return nil
}

var errInjected = errors.New("injected")

func TestFaults(t *testing.T) {
	ctx := context.Background()
	n, remote, a, b := net2(t)
	log := &faultLog{fail: map[string]error{}}
	n.SetFaults(log.faults)
	x := putRecord(t, a, "refs/ao/sessions/x", "x")
	push := func() error {
		return a.Push(ctx, "origin", []refstore.Update{{Ref: "refs/ao/sessions/x", New: x}}, refstore.PushOptions{Atomic: true, Track: []string{spec}})
	}
	at := func(st refstore.Records, ref string) string {
		id, _ := refstore.ResolveID(ctx, st, ref)
		return id
	}

	// Before: nothing reaches the remote.
	log.fail["push before"] = errInjected
	err := push()
	var pe *refstore.PushError
	if !errors.As(err, &pe) || len(pe.Rejected) != 0 || !errors.Is(pe.Err, errInjected) {
		t.Fatalf("push failed before = %v", err)
	}
	if at(remote, "refs/ao/sessions/x") != "" || at(a, "refs/ao/remotes/origin/sessions/x") != "" {
		t.Fatal("a push failed before it reached the remote landed")
	}

	// After: the push landed, its answer is lost: no tracking ref.
	log.fail["push after"] = errInjected
	if err := push(); !errors.As(err, &pe) || len(pe.Rejected) != 0 || !errors.Is(pe.Err, errInjected) {
		t.Fatalf("push whose answer was lost = %v", err)
	}
	if at(remote, "refs/ao/sessions/x") != x {
		t.Fatal("the push whose answer was lost did not land")
	}
	if at(a, "refs/ao/remotes/origin/sessions/x") != "" {
		t.Fatal("a lost answer moved the tracking ref")
	}
	if ok, err := a.UpToDate(ctx, "origin", spec); ok || err != nil {
		t.Fatalf("UpToDate after a lost answer = %v, %v", ok, err)
	}
	// The same push again is up to date, and moves the tracking ref.
	if err := push(); err != nil {
		t.Fatal(err)
	}
	if at(a, "refs/ao/remotes/origin/sessions/x") != x {
		t.Fatal("the tracking ref did not move")
	}

	// A stall is a deadline.
	log.fail["fetch before"] = memstore.ErrStalled
	if err := b.Fetch(ctx, "origin", true, spec); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stalled fetch = %v", err)
	}
	// A fetch whose answer is lost writes no ref.
	log.fail["fetch after"] = errInjected
	if err := b.Fetch(ctx, "origin", true, spec); !errors.Is(err, errInjected) {
		t.Fatalf("fetch whose answer was lost = %v", err)
	}
	if at(b, "refs/ao/remotes/origin/sessions/x") != "" {
		t.Fatal("a lost fetch wrote a tracking ref")
	}
	log.fail["ls-remote before"] = errInjected
	if _, err := b.UpToDate(ctx, "origin", spec); !errors.Is(err, errInjected) {
		t.Fatalf("UpToDate failed = %v", err)
	}
	if err := b.Fetch(ctx, "origin", true, spec); err != nil {
		t.Fatal(err)
	}
	if at(b, "refs/ao/remotes/origin/sessions/x") != x {
		t.Fatal("fetch did not bring x")
	}

	// A fault may say what the server did, as a PushError of its own.
	lock := &refstore.PushError{Rejected: []string{"refs/ao/sessions/x"}, Reasons: map[string]string{"refs/ao/sessions/x": "remote rejected: failed to lock"}, Err: errInjected}
	log.fail["push-matching before"] = lock
	if err := b.PushMatching(ctx, "origin", []string{refstore.SessionPrefix}, refstore.PushOptions{Track: []string{spec}}); !errors.As(err, &pe) || pe != lock {
		t.Fatalf("push-matching with a fault's PushError = %v", err)
	}

	want := []string{
		"/mem/a push before origin mem://origin [refs/ao/sessions/x]",
		"/mem/a push before origin mem://origin [refs/ao/sessions/x]",
		"/mem/a push after origin mem://origin [refs/ao/sessions/x]",
		"/mem/a ls-remote before origin mem://origin [" + spec + "]",
		"/mem/a ls-remote after origin mem://origin [" + spec + "]",
		"/mem/a push before origin mem://origin [refs/ao/sessions/x]",
		"/mem/a push after origin mem://origin [refs/ao/sessions/x]",
		"/mem/b fetch before origin mem://origin [" + spec + "]",
		"/mem/b fetch before origin mem://origin [" + spec + "]",
		"/mem/b fetch after origin mem://origin [" + spec + "]",
		"/mem/b ls-remote before origin mem://origin [" + spec + "]",
		"/mem/b fetch before origin mem://origin [" + spec + "]",
		"/mem/b fetch after origin mem://origin [" + spec + "]",
		"/mem/b push-matching before origin mem://origin [refs/ao/sessions/]",
	}
	if got := strings.Join(log.ops, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("operations:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	n.SetFaults(nil)
	if err := b.PushMatching(ctx, "origin", []string{refstore.SessionPrefix}, refstore.PushOptions{Track: []string{spec}}); err != nil {
		t.Fatal(err)
	}
}

// A lost lease is told apart as sync tells it: the push's PushError says
// "stale info", and the tracking ref, fetched again, moved.
func TestLeaseLost(t *testing.T) {
	ctx := context.Background()
	_, remote, a, b := net2(t)
	base := putRecord(t, a, "refs/ao/sessions/x", "base")
	if err := a.Push(ctx, "origin", []refstore.Update{{Ref: "refs/ao/sessions/x", New: base}}, refstore.PushOptions{Track: []string{spec}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Fetch(ctx, "origin", true, spec); err != nil {
		t.Fatal(err)
	}
	mine := putRecord(t, a, "refs/ao/sessions/x", "a's")
	theirs, _ := b.WriteBlob(ctx, []byte("b's"))
	if err := b.Push(ctx, "origin", []refstore.Update{{Ref: "refs/ao/sessions/x", New: theirs, Old: base}}, refstore.PushOptions{Atomic: true, Track: []string{spec}}); err != nil {
		t.Fatal(err)
	}
	err := a.Push(ctx, "origin", []refstore.Update{{Ref: "refs/ao/sessions/x", New: mine, Old: base}}, refstore.PushOptions{Atomic: true, Track: []string{spec}})
	var pe *refstore.PushError
	if !errors.As(err, &pe) || len(pe.Rejected) != 1 || pe.Reasons["refs/ao/sessions/x"] != "rejected: stale info" {
		t.Fatalf("Push = %v, want a lost lease", err)
	}
	if !strings.Contains(err.Error(), "refs/ao/sessions/x (rejected: stale info)") {
		t.Fatalf("message %q", err)
	}
	if got, _ := refstore.ResolveID(ctx, remote, "refs/ao/sessions/x"); got != theirs {
		t.Fatal("the lost push moved the remote")
	}
	if err := a.Fetch(ctx, "origin", true, spec); err != nil {
		t.Fatal(err)
	}
	if got, _ := refstore.ResolveID(ctx, a, "refs/ao/remotes/origin/sessions/x"); got != theirs {
		t.Fatal("fetch did not bring b's version")
	}
	if e, err := a.ReadObject(ctx, theirs); err != nil || string(e.Data) != "b's" {
		t.Fatalf("b's blob did not travel: %+v, %v", e, err)
	}
}

// The same run twice is the same run: nothing depends on map order or time.
func TestDeterministic(t *testing.T) {
	play := func() string {
		ctx := context.Background()
		n, remote, a, b := net2(t)
		log := &faultLog{fail: map[string]error{"push after": errInjected}}
		n.SetFaults(log.faults)
		var ups []refstore.Update
		for i := range 20 {
			ref := fmt.Sprintf("refs/ao/sessions/s%02d", (i*7)%20)
			ups = append(ups, refstore.Update{Ref: ref, New: putRecord(t, a, ref, ref)})
		}
		remote.Apply(ctx, "other", refstore.Update{Ref: "refs/ao/sessions/s05", New: remote.WriteRawBlob([]byte("theirs"))})
		var out []string
		out = append(out, fmt.Sprint(a.Push(ctx, "origin", ups, refstore.PushOptions{Track: []string{spec}})))
		out = append(out, fmt.Sprint(a.Push(ctx, "origin", ups, refstore.PushOptions{Track: []string{spec}})))
		out = append(out, fmt.Sprint(b.Fetch(ctx, "origin", true, spec)))
		out = append(out, fmt.Sprint(b.PushMatching(ctx, "origin", []string{refstore.SessionPrefix}, refstore.PushOptions{})))
		for _, st := range []refstore.Records{remote, a, b} {
			ids, _ := st.RefIDs(ctx, refstore.Root)
			out = append(out, fmt.Sprint(ids))
		}
		return strings.Join(append(out, log.ops...), "\n")
	}
	if first, second := play(), play(); first != second {
		t.Fatalf("two runs differ:\n%s\n---\n%s", first, second)
	}
}

// Clones push, fetch and list at once, as sync's goroutine asks the remote
// while the clone lists its refs: exactly one push wins each ref.
func TestConcurrentClones(t *testing.T) {
	ctx := context.Background()
	n, remote, a, _ := net2(t)
	clones := []*memstore.Clone{a}
	for i := range 5 {
		c, err := n.NewClone("mem://origin", fmt.Sprintf("/mem/c%d", i))
		if err != nil {
			t.Fatal(err)
		}
		clones = append(clones, c)
	}
	const ref = "refs/ao/sessions/race"
	done := make(chan error, len(clones))
	listed := make(chan error, len(clones))
	for i, c := range clones {
		id := putRecord(t, c, ref, fmt.Sprintf("by %d", i))
		go func() {
			_, err := c.RemoteIDs(ctx, "origin", spec)
			listed <- err
		}()
		go func() {
			err := c.Push(ctx, "origin", []refstore.Update{{Ref: ref, New: id}}, refstore.PushOptions{Atomic: true, Track: []string{spec}})
			if ferr := c.Fetch(ctx, "origin", true, spec); ferr != nil {
				err = ferr
			}
			done <- err
		}()
	}
	for range clones {
		if err := <-listed; err != nil {
			t.Fatal(err)
		}
	}
	won := 0
	for range clones {
		err := <-done
		var pe *refstore.PushError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &pe) || pe.Reasons[ref] != "rejected: stale info":
			t.Fatalf("a losing push: %v", err)
		}
	}
	winner, _ := refstore.ResolveID(ctx, remote, ref)
	if won != 1 || winner == "" {
		t.Fatalf("%d pushes won; the remote holds %q", won, winner)
	}
	for _, c := range clones {
		if got, _ := refstore.ResolveID(ctx, c, "refs/ao/remotes/origin/sessions/race"); got != winner {
			t.Fatalf("%s tracks %s, the remote holds %s", c.Dir(), got, winner)
		}
	}
}
