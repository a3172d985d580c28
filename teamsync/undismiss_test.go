package teamsync

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// An undone dismissal is decided at the remote, as the dismissal was: the
// remote holds the baton waiting again, and a teammate's sync brings it
// back waiting, not the tombstone. Once a teammate has written over the
// tombstone there, the undo is refused and changes nothing.
func TestUndismissIsDecidedAtTheRemote(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	h := end(t, a, 0, "next")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	remoteOID := func() string {
		out, err := exec.Command("git", "-C", tm.remote, "rev-parse", mainRef).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	d, err := handoff.Dismiss(ctx, a, handoff.DismissOptions{ID: h.ID, Arbiter: Arbiter{}}, clock(2))
	if err != nil {
		t.Fatal(err)
	}
	if remoteOID() != d.Dismissed.OID {
		t.Fatal("the dismissal was not decided at the remote")
	}
	u, err := handoff.Undismiss(ctx, a, handoff.UndismissOptions{ID: h.ID, Arbiter: Arbiter{}}, clock(3))
	if err != nil {
		t.Fatal(err)
	}
	if remoteOID() != u.Restored.OID {
		t.Fatal("the undo was not decided at the remote")
	}
	syncAt(t, b, 4)
	if got := readBaton(t, b, mainRef); got.ID != h.ID || !got.Live() {
		t.Fatalf("the teammate's sync brought %+v, want baton %s waiting", got.Baton, h.ID)
	}

	// Dismissed again; the teammate, having synced the tombstone, leaves
	// a new baton there and pushes it. The undo is refused at the remote.
	if _, err := handoff.Dismiss(ctx, a, handoff.DismissOptions{ID: h.ID, Arbiter: Arbiter{}}, clock(5)); err != nil {
		t.Fatal(err)
	}
	syncAt(t, b, 6)
	newer := end(t, b, 7, "newer")
	syncAt(t, b, 8)
	before := remoteOID()
	_, err = handoff.Undismiss(ctx, a, handoff.UndismissOptions{ID: h.ID, Arbiter: Arbiter{}}, clock(9))
	var nr *handoff.NotRestorableError
	if !errors.As(err, &nr) || !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("undoing a dismissal a teammate wrote over: %v", err)
	}
	t.Logf("refused: %v", err)
	if remoteOID() != before {
		t.Fatal("a refused undo changed the remote")
	}
	if got := readBaton(t, a, mainRef); got.ID != newer.ID || !got.Live() {
		t.Fatalf("after the refused undo the clone holds %+v, want the teammate's %s", got.Baton, newer.ID)
	}
}
