package handoff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/git-handoff/git-handoff/refstore"
)

// A decision made at the arbiter takes a push round trip, seconds on a slow
// remote, between writing the blobs of the new records and moving the refs
// to them. A `git gc --prune=now` in that window would prune blobs that no
// ref reaches yet, and the refs would then be moved onto missing objects.
// So the blobs are held under refs of ours for the round trip, as git's own
// writers keep their window to the microseconds between writing an object
// and the ref that names it:
//
//	refs/ao/inflight/<host>/<pid>-<purpose>[-<try>]/<n>
//
// never pushed (our push and fetch refspecs name the record kinds one by
// one) and released in the transaction that moves the records, or as soon
// as the decision is known to be lost. A process killed with a hold in place
// leaves it, harmlessly keeping a few blobs; sweepHolds removes the holds
// of dead processes that no pending claim note names.
const holdPrefix = refstore.Root + "inflight/"

// held is a group of hold refs; its zero value holds nothing.
type held struct {
	group string
	refs  []refstore.Update // the creates that put them in place
}

// hold puts every non-empty oid under a ref of a group named for this
// process and purpose (a plain word).
func hold(ctx context.Context, st refstore.Records, purpose string, oids ...string) (held, error) {
	host, err := refstore.EncodeComponent(hostname())
	if err != nil {
		return held{}, err
	}
	base := holdPrefix + host + "/" + strconv.Itoa(os.Getpid()) + "-" + purpose
	// A group of that name already there is a dead process's whose pid
	// this one reuses, or another decision of this process at the same
	// time (the MCP server's, the status page's): the next free name is
	// ours (found by the simulation, whose processes share a pid).
	for try := 0; try < holdNames; try++ {
		h := held{group: base}
		if try > 0 {
			h.group += "-" + strconv.Itoa(try)
		}
		for _, oid := range oids {
			if oid != "" {
				h.refs = append(h.refs, refstore.Update{Ref: h.group + "/" + strconv.Itoa(len(h.refs)), New: oid})
			}
		}
		if err = st.Apply(ctx, "handoff: held for a decision in flight", h.refs...); err == nil {
			return h, nil
		}
		if !errors.Is(err, refstore.ErrConflict) {
			break
		}
	}
	return held{}, fmt.Errorf("keeping the new records' objects from git gc: %w", err)
}

// shortSum is a short hex digest of s, for a hold's name: a teammate's
// baton id may hold what no ref name can.
func shortSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// holdNames bounds the names hold tries for one group.
const holdNames = 16

// releases are the deletes that take the hold away, to go in the
// transaction that makes the objects reachable from the records' refs.
func (h held) releases() []refstore.Update {
	out := make([]refstore.Update, len(h.refs))
	for i, u := range h.refs {
		out[i] = refstore.Update{Ref: u.Ref, Old: u.New}
	}
	return out
}

// release takes the hold away on its own; a failure only leaves it for
// sweepHolds.
func (h held) release(ctx context.Context, st refstore.Records) {
	if len(h.refs) > 0 {
		_ = st.ApplyEach(ctx, "handoff: released", h.releases()...)
	}
}

// releaseGroup deletes whatever refs group holds (a hold of another
// process, named by a claim note it left).
func releaseGroup(ctx context.Context, st refstore.Records, group string) {
	if dels, err := groupReleases(ctx, st, group); err == nil {
		_ = st.ApplyEach(ctx, "handoff: released", dels...)
	}
}

// releaseHeld deletes the refs of group, a hold of another process named
// by a note it left, that hold oid: a pid is reused, and a later process
// of the same pid may hold other objects under the same name now.
func releaseHeld(ctx context.Context, st refstore.Records, group, oid string) {
	dels, err := groupReleases(ctx, st, group)
	if err != nil {
		return
	}
	var mine []refstore.Update
	for _, d := range dels {
		if d.Old == oid {
			mine = append(mine, d)
		}
	}
	if len(mine) > 0 {
		_ = st.ApplyEach(ctx, "handoff: released", mine...)
	}
}

// groupReleases are the deletes of the refs group holds now, to go in a
// transaction: none for a group that holds nothing (or is no hold's).
func groupReleases(ctx context.Context, st refstore.Records, group string) ([]refstore.Update, error) {
	if !strings.HasPrefix(group, holdPrefix) {
		return nil, nil
	}
	ids, err := st.RefIDs(ctx, group+"/")
	if err != nil {
		return nil, err
	}
	var dels []refstore.Update
	for _, id := range ids {
		dels = append(dels, refstore.Update{Ref: id.Ref, Old: id.OID})
	}
	return dels, nil
}

// released reports whether group, a hold a claim note names, is gone: the
// claim's recording transaction took it (recordClaim), or the note was
// being dropped. Unknown (false) when the refs cannot be listed.
func released(ctx context.Context, st refstore.Records, group string) bool {
	if !strings.HasPrefix(group, holdPrefix) {
		return false
	}
	ids, err := st.RefIDs(ctx, group+"/")
	return err == nil && len(ids) == 0
}

// sweepHolds removes the holds of processes of this host that are gone,
// unless a pending claim note still names them (its claim may yet be
// finished, and needs the blob it pushed).
func sweepHolds(ctx context.Context, st refstore.Records, notes []*pendingClaim) {
	ids, err := st.RefIDs(ctx, holdPrefix)
	if err != nil || len(ids) == 0 {
		return
	}
	named := map[string]bool{}
	for _, n := range notes {
		named[n.Held] = true
	}
	me, _ := refstore.EncodeComponent(hostname())
	var dels []refstore.Update
	for _, id := range ids {
		// <host>/<pid>-<purpose>[-<try>]/<n>
		parts := strings.Split(strings.TrimPrefix(id.Ref, holdPrefix), "/")
		if len(parts) != 3 || parts[0] != me || named[holdPrefix+parts[0]+"/"+parts[1]] {
			continue
		}
		pid, _, _ := strings.Cut(parts[1], "-")
		n, err := strconv.Atoi(pid)
		if err != nil || processAlive(n) {
			continue
		}
		dels = append(dels, refstore.Update{Ref: id.Ref, Old: id.OID})
	}
	_ = st.ApplyEach(ctx, "handoff: released a dead process's hold", dels...)
}

// Gone reports whether the process pid of host, which wrote a note of
// work in flight, can no longer finish it: it ran here and is not
// running, or it is this process (whose calls that write such notes finish
// before they return). A process of another host counts as running: it
// cannot be checked.
func Gone(host string, pid int) bool {
	if host != hostname() {
		return false
	}
	return pid == os.Getpid() || !processAlive(pid)
}

// processAlive reports whether pid may still be running on this host.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
