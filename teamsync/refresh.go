package teamsync

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// DefaultRefreshTimeout bounds how long a start waits for the arbiter to
// list the batons waiting: a remote that stalls costs a start this, once,
// and the start goes on with what the clone holds.
const DefaultRefreshTimeout = 5 * time.Second

// Refresh brings the batons a start on owner and branch may claim (the
// owner's private ones, and every shared one) from the
// remote that arbitrates claims into this clone, and merges them, before
// the start looks for one. A plain `git fetch` no longer brings records
// (init leaves the fetch refspecs alone), so a teammate's baton reaches
// the next start here without a sync. It asks the remote for those refs
// alone (git ls-remote: with protocol v2 the remote lists only their
// prefixes) and fetches them only when it holds something this clone has
// not seen; a fetch costs time in the number of refs here. It implements
// handoff.Refresher: a baton this clone held as waiting that the merge
// replaced is told as a claim lost at the arbiter is (claimed or deleted
// elsewhere, or superseded, with the conflict).
func (a Arbiter) Refresh(ctx context.Context, st refstore.Clone, owner, branch string) ([]string, []Conflict) {
	ref, err := refstore.HandoffRef(false, owner, branch)
	if err != nil {
		return nil, nil
	}
	remote, err := a.remoteFor(ctx, st, ref)
	if err != nil || remote == "" {
		return nil, nil // no remote, or no single one: the claim says why
	}
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return nil, nil
	}
	enc, err := refstore.EncodeComponent(owner)
	if err != nil {
		return nil, nil
	}
	// The owner's batons on every branch (a checkout names the one
	// waiting there) and the shared ones: globs, since a fetch of an
	// exact ref the remote lacks fails.
	mine := refstore.PrivatePrefix + enc + "/"
	// The archive's months too: a claim refuses a waiting baton the
	// archive holds (resurrected), which only a month fetched with it
	// shows.
	specs := []string{
		"+" + mine + "*:" + trackingRef(tp, mine) + "*",
		"+" + refstore.SharedPrefix + "*:" + trackingRef(tp, refstore.SharedPrefix) + "*",
		archiveRefspec(tp),
	}
	limit := a.RefreshTimeout
	if limit <= 0 {
		limit = DefaultRefreshTimeout
	}
	fctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// Asking costs less than fetching: a fetch checks every ref here.
	// Up to date, the copies here may still be unmerged: a sync that
	// fetched them died before its merge, even before it noted the fetch
	// (markFetched), so the merge lists the tracking refs whatever the
	// note says, one listing a start (found by the simulation's check of
	// starts that receive nothing, seed 7 of the faulted run: a sync died
	// after its fetch, and the next start took the remote's answer for
	// news merged and passed over the baton waiting there).
	if ok, _ := st.UpToDate(fctx, remote, specs...); !ok {
		if _, err := fetchPatiently(fctx, st, remote, specs, 2); err != nil {
			why := err.Error()
			if fctx.Err() != nil {
				why = fmt.Sprintf("no answer within %s", limit)
			}
			return []string{fmt.Sprintf("could not ask remote %s for batons waiting here (%s): started from what this clone holds; `git handoff sync` brings them once it answers", remote, why)}, nil
		}
	}
	res, err := lazy(ctx, st, true)
	if err != nil {
		return []string{"batons fetched from " + remote + " were not merged: " + err.Error()}, nil
	}
	return refreshNews(ctx, st, remote, ref, res)
}

// refreshNews is what the merge of a Refresh did to the batons this start
// may claim: its notices, and its conflicts.
func refreshNews(ctx context.Context, st refstore.Records, remote, ref string, res LazyResult) ([]string, []Conflict) {
	// What the merge did to the batons this start may claim is this
	// start's news; the owner's batons on other branches were merged too,
	// and their conflicts are in the log (refstore's conflict notes).
	mayClaim := func(r string) bool { return r == ref || strings.HasPrefix(r, refstore.SharedPrefix) }
	var notices []string
	var conflicts []Conflict
	for _, w := range res.Warnings {
		// (A record that cannot be read is named as the local ref it
		// belongs at, in the decoder's words.)
		if strings.Contains(w, ref) || strings.Contains(w, refstore.SharedPrefix) {
			notices = append(notices, w)
		}
	}
	for _, c := range res.Conflicts {
		if mayClaim(c.Ref) {
			conflicts = append(conflicts, c)
		}
	}
	for _, m := range res.Merged {
		if m.Old == "" || !mayClaim(m.Ref) {
			continue
		}
		was, err1 := readBatonAt(ctx, st, m.Ref, m.Old)
		now, err2 := readBatonAt(ctx, st, m.Ref, m.New)
		if err1 != nil || err2 != nil || !was.Live() {
			continue
		}
		switch {
		case was.ID != now.ID:
			se := &handoff.SupersededError{Remote: remote, Ref: m.Ref, Mine: was, MineOID: m.Old, Kept: now, KeptOID: m.New}
			notices = append(notices, se.Error())
		case now.Claimed:
			notices = append(notices, "another session claimed the baton first: "+(&baton.ClaimedError{Baton: now}).Error())
		case now.Deleted != nil:
			notices = append(notices, (&baton.DeletedError{Baton: now, Where: remote}).Error()+": not delivered")
		}
	}
	return notices, conflicts
}

// readBatonAt reads blob oid as the baton record of ref.
func readBatonAt(ctx context.Context, st refstore.Records, ref, oid string) (baton.Baton, error) {
	e, err := st.ReadObject(ctx, oid)
	if err != nil {
		return baton.Baton{}, err
	}
	e.Ref = ref
	b, err := baton.Decode(e)
	return b.Baton, err
}
