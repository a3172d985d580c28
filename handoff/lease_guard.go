package handoff

import (
	"context"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// The question an agent's pre-tool hook asks before a file is written: is
// it under a path lease another session holds? Answered from this clone's
// refs alone (a hook must not wait for the arbiter), listing only the path
// leases.

// PathLeasePrefix is where path leases are kept: the one namespace a
// pre-tool hook lists.
const PathLeasePrefix = lease.Prefix + lease.KindPath + "/"

// LeaseGuardOptions are what a pre-tool hook asks.
type LeaseGuardOptions struct {
	Harness  string
	NativeID string // the agent's own session id, "" when it gave none
	// Paths are the files the tool would write, relative to the top of
	// the worktree, with forward slashes.
	Paths []string
	// Listed are the path leases' refs and blob ids when the caller has
	// listed PathLeasePrefix already (a hook's first look); nil: listed
	// here. Their blobs are read through the store's one cat-file.
	Listed []refstore.RefID
}

// LeaseBlock is one file the asking session may not write.
type LeaseBlock struct {
	Path    string
	Lease   lease.Stored // the path lease that covers it
	FreesAt time.Time    // by this clone's clock, if its holder stops renewing
}

// LeaseGuard returns the files of opts.Paths under a path lease held by a
// session other than the asking one, which this clone has not seen
// unchanged for its TTL. The asking session is every id it may hold
// leases under: the session its agent id is noted for, and the one a
// `lease take` from its shell names (GIT_HANDOFF_SESSION, else the
// worktree's binding). A first sighting of another's lease is noted, as
// `lease list` notes it, so that its expiry is counted from now.
func LeaseGuard(ctx context.Context, st refstore.Clone, opts LeaseGuardOptions, clock Clock) ([]LeaseBlock, error) {
	if len(opts.Paths) == 0 {
		return nil, nil
	}
	ids := opts.Listed
	if ids == nil {
		var err error
		if ids, err = st.RefIDs(ctx, PathLeasePrefix); err != nil {
			return nil, fmt.Errorf("listing path leases: %w", err)
		}
	}
	var held []lease.Stored
	for _, id := range ids {
		e, err := st.ReadObject(ctx, id.OID)
		if err != nil {
			return nil, fmt.Errorf("reading the lease %s: %w", id.Ref, err)
		}
		e.Ref = id.Ref
		if l, err := lease.Decode(e); err == nil {
			held = append(held, l) // a record that is not whole guards nothing
		}
	}
	mine := map[string]bool{}
	if opts.NativeID != "" {
		if id, err := indexedSession(st, HarnessName(opts.Harness), opts.NativeID); err == nil && id != "" {
			mine[id] = true
		}
	}
	if id, err := SessionID(st, ""); err == nil && id != "" {
		mine[id] = true
	}
	now := clock()
	var out []LeaseBlock
	for _, l := range held {
		if !l.Held() || mine[l.Session] {
			continue
		}
		pat, err := lease.Compile(l.ParsedKey().Value)
		if err != nil {
			continue // Decode took the key, so Compile does: never here
		}
		var covered []string
		for _, p := range opts.Paths {
			if pat.Match(p) {
				covered = append(covered, p)
			}
		}
		if len(covered) == 0 {
			continue
		}
		first, err := lease.Seen(ctx, st.Local(), l.Ref, l.OID, now)
		if err != nil {
			return nil, err
		}
		frees := first.Add(l.TTL())
		if !now.Before(frees) {
			continue // unchanged for its TTL here: free to take, so to write
		}
		for _, p := range covered {
			out = append(out, LeaseBlock{Path: p, Lease: l, FreesAt: frees})
		}
	}
	return out, nil
}
