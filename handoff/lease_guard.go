package handoff

import (
	"context"
	"time"

	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// The questions an agent's pre-tool hook asks before a file is written:
// is it under a path lease another session held? and is a lease of the
// calling session due for renewal? Answered from this clone's refs alone
// (a hook must not wait for the arbiter), through one listing of the
// leases.

// PathLease is a held path lease with its pathspec compiled.
type PathLease struct {
	lease.Stored
	Pattern lease.Pattern
}

// HeldLeases are the leases held, as one listing read them.
type HeldLeases struct {
	All   []lease.Stored // every kind, in ref order
	Paths []PathLease    // the path leases of All
}

// ListHeldLeases reads the leases of the repository dir is in through one
// `git for-each-ref` (refstore.ListContents), opening no Store: the ones
// held, every kind (a renewal is due for any kind; only path leases
// guard files). A record that is not whole is passed over. Outside a
// repository it is git's error (a *refstore.GitError).
func ListHeldLeases(ctx context.Context, dir string) (HeldLeases, error) {
	entries, err := refstore.ListContents(ctx, dir, lease.Prefix)
	if err != nil {
		return HeldLeases{}, err
	}
	var held HeldLeases
	for _, e := range entries {
		l, err := lease.Decode(e)
		if err != nil || !l.Held() {
			continue
		}
		held.All = append(held.All, l)
		if k := l.ParsedKey(); k.Kind == lease.KindPath {
			pat, err := lease.Compile(k.Value)
			if err != nil {
				continue // Decode took the key, so Compile does: never here
			}
			held.Paths = append(held.Paths, PathLease{Stored: l, Pattern: pat})
		}
	}
	return held, nil
}

// LeaseGuardOptions are what a pre-tool hook asks.
type LeaseGuardOptions struct {
	Harness  string
	NativeID string // the agent's own session id, "" when it gave none
	// Paths are the files the tool would write, relative to the top of
	// the worktree, with forward slashes.
	Paths []string
	// Bound is the session the worktree's binding names, as the caller
	// read it from the files (refstore.Peeked.BoundSession) when
	// BoundKnown: git is then not asked again (a symbolic-ref, on every
	// write of a leased file in an unbound worktree).
	Bound      string
	BoundKnown bool
}

// LeaseBlock is one file the asking session may not write.
type LeaseBlock struct {
	Path    string
	Lease   lease.Stored // the path lease that covers it
	FreesAt time.Time    // by this clone's clock, if its holder stops renewing
}

// LeaseGuard returns the files of opts.Paths under one of the path leases
// held (ListHeldLeases's Paths, of st's repository) by a session other than the
// asking one, which this clone has not seen unchanged for its TTL. The
// asking session is every id it may hold leases under: the session its
// agent id is noted for, and the one a `lease take` from its shell names
// (GIT_HANDOFF_SESSION, else the worktree's binding); they are looked up
// only once some lease covers a path. A first sighting of another's lease
// is noted, as `lease list` notes it, so that its expiry is counted from
// now.
func LeaseGuard(ctx context.Context, st refstore.Clone, held []PathLease, opts LeaseGuardOptions, clock Clock) ([]LeaseBlock, error) {
	if len(opts.Paths) == 0 {
		return nil, nil
	}
	var mine map[string]bool
	isMine := func(session string) bool {
		if mine == nil {
			mine = map[string]bool{}
			if opts.NativeID != "" {
				if id, err := indexedSession(st, HarnessName(opts.Harness), opts.NativeID); err == nil && id != "" {
					mine[id] = true
				}
			}
			id, known := callerSession(opts.Bound, opts.BoundKnown)
			var err error
			if !known {
				id, err = SessionID(st, "")
			}
			if err == nil && id != "" {
				mine[id] = true
			}
		}
		return mine[session]
	}
	now := clock()
	var out []LeaseBlock
	for _, l := range held {
		var covered []string
		for _, p := range opts.Paths {
			if l.Pattern.Match(p) {
				covered = append(covered, p)
			}
		}
		if len(covered) == 0 || isMine(l.Session) {
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
			out = append(out, LeaseBlock{Path: p, Lease: l.Stored, FreesAt: frees})
		}
	}
	return out, nil
}
