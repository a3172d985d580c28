package refstore

import (
	"context"
	"fmt"
	"maps"
	"strings"
)

// UpToDate reports whether fetching refspecs from remote would change
// nothing here: every ref the remote holds under a refspec's source is at
// its destination with the same id, and no destination ref is left that
// the remote no longer holds (what Fetch with prune would delete). It asks
// with `git ls-remote` (RemoteIDs), which, unlike `git fetch`, reads
// nothing of this repository's own refs and objects: a fetch costs time in
// the number of refs here (git checks every local ref's object), which for
// a clone holding thousands of records is most of a sync or start that has
// nothing to fetch. An error (an unreachable remote) is returned as is:
// the caller fetches, and the fetch says what is wrong.
func (s *Store) UpToDate(ctx context.Context, remote string, refspecs ...string) (bool, error) {
	want, err := s.RemoteIDs(ctx, remote, refspecs...)
	if err != nil {
		return false, err
	}
	have := map[string]string{}
	for _, r := range refspecs {
		sp, _ := parseRefspec(r) // checked by RemoteIDs
		ids, err := s.RefIDs(ctx, strings.TrimSuffix(sp.dst, "/"))
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			if sp.maps(id.Ref, sp.dst) {
				have[id.Ref] = id.OID
			}
		}
	}
	return maps.Equal(want, have), nil
}

// refspec is a fetch refspec as Fetch takes them: "+<src>*:<dst>*", or
// "+<src>:<dst>" for one ref; src and dst without the "*".
type refspec struct {
	src, dst string
	glob     bool
}

func parseRefspec(r string) (refspec, error) {
	src, dst, ok := strings.Cut(strings.TrimPrefix(r, "+"), ":")
	sp := refspec{src: strings.TrimSuffix(src, "*"), dst: strings.TrimSuffix(dst, "*"), glob: strings.HasSuffix(src, "*")}
	if !ok || !strings.HasPrefix(src, "refs/") || !strings.HasPrefix(dst, "refs/") ||
		sp.glob != strings.HasSuffix(dst, "*") || strings.Contains(sp.src, "*") || strings.Contains(sp.dst, "*") {
		return refspec{}, fmt.Errorf("%w: refspec %q", ErrBadName, r)
	}
	return sp, nil
}

// maps reports whether ref is one the refspec's side prefix (its src or
// its dst) names.
func (sp refspec) maps(ref, prefix string) bool {
	if sp.glob {
		return strings.HasPrefix(ref, prefix)
	}
	return ref == prefix
}

// RemoteIDs lists what remote holds under the sources of refspecs, keyed
// by the destination each maps to: what Fetch with prune would leave at
// the destinations. One `git ls-remote`, which with git's protocol v2 asks
// the remote for those prefixes alone. Like EachOf it shares no state of
// the Store, so it may run on a goroutine of its own.
func (s *Store) RemoteIDs(ctx context.Context, remote string, refspecs ...string) (map[string]string, error) {
	var specs []refspec
	args := []string{"ls-remote", "--", remote}
	for _, r := range refspecs {
		sp, err := parseRefspec(r)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
		if sp.glob {
			args = append(args, sp.src+"*")
		} else {
			args = append(args, sp.src)
		}
	}
	want := map[string]string{}
	err := gitLines(ctx, s.workDir, func(line string) error {
		oid, ref, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("git ls-remote: unexpected line %q", line)
		}
		// ls-remote matches a pattern against any tail of a ref: keep
		// the refs the refspec itself maps.
		for _, sp := range specs {
			if sp.maps(ref, sp.src) {
				want[sp.dst+strings.TrimPrefix(ref, sp.src)] = oid
				break
			}
		}
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	return want, nil
}
