package refstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
)

// UpToDate reports whether fetching refspecs from remote would change
// nothing here: every ref the remote holds under a refspec's source is at
// its destination with the same id, and no destination ref is left that
// the remote no longer holds (what Fetch with prune would delete). It asks
// with `git ls-remote`, which lists the remote's refs under those prefixes
// alone (git's protocol v2) and, unlike `git fetch`, reads nothing of this
// repository's own refs and objects: a fetch costs time in the number of
// refs here (git checks every local ref's object), which for a clone
// holding thousands of records is most of a sync or start that has nothing
// to fetch. refspecs are "+<src>*:<dst>*" globs or "+<src>:<dst>" exact
// refs, as Fetch takes them. An error (an unreachable remote) is returned
// as is: the caller fetches, and the fetch says what is wrong.
func (s *Store) UpToDate(ctx context.Context, remote string, refspecs ...string) (bool, error) {
	type spec struct {
		src, dst string
		glob     bool
	}
	var specs []spec
	args := []string{"ls-remote", "--", remote}
	for _, r := range refspecs {
		src, dst, ok := strings.Cut(strings.TrimPrefix(r, "+"), ":")
		if !ok || !strings.HasPrefix(src, "refs/") || !strings.HasPrefix(dst, "refs/") {
			return false, fmt.Errorf("%w: refspec %q", ErrBadName, r)
		}
		sp := spec{src: strings.TrimSuffix(src, "*"), dst: strings.TrimSuffix(dst, "*"), glob: strings.HasSuffix(src, "*")}
		if sp.glob != strings.HasSuffix(dst, "*") || strings.Contains(sp.src, "*") || strings.Contains(sp.dst, "*") {
			return false, fmt.Errorf("%w: refspec %q", ErrBadName, r)
		}
		specs = append(specs, sp)
		args = append(args, strings.TrimPrefix(r, "+")[:len(src)])
	}
	out, err := Git(ctx, s.workDir, false, nil, args...)
	if err != nil {
		return false, err
	}
	want := map[string]string{} // destination ref → the remote's id
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		oid, ref, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return false, fmt.Errorf("git ls-remote: unexpected line %q", sc.Text())
		}
		for _, sp := range specs {
			// ls-remote matches a pattern against any tail of a ref:
			// keep the refs the refspec itself maps.
			switch {
			case sp.glob && strings.HasPrefix(ref, sp.src):
				want[sp.dst+strings.TrimPrefix(ref, sp.src)] = oid
			case !sp.glob && ref == sp.src:
				want[sp.dst] = oid
			}
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	have := 0
	for _, sp := range specs {
		ids, err := s.RefIDs(ctx, strings.TrimSuffix(sp.dst, "/"))
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			if !sp.glob && id.Ref != sp.dst {
				continue
			}
			if want[id.Ref] != id.OID {
				return false, nil
			}
			have++
		}
	}
	return have == len(want), nil
}
