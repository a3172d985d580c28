package refstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RefID is one ref and the object id it holds, without the object.
type RefID struct {
	Ref string
	OID string
}

// RefIDs lists the refs under prefix with the ids they hold, in ref order,
// reading no object: for a caller that knows most objects already (they
// never change under their id) and reads only the new ones: one
// `git for-each-ref` without contents, or none when the files certainly
// hold no ref under prefix (certainlyNone).
func (s *Store) RefIDs(ctx context.Context, prefix string) ([]RefID, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, err
	}
	if s.certainlyNone(prefix) {
		return nil, nil
	}
	return refIDsCLI(ctx, s.workDir, prefix)
}

// certainlyNone reports whether no ref under prefix (one of ours, under
// Root, ending in "/") can exist, from the repository's files alone, as
// Peeked.MayHold answers it (peek.go): the files backend, no loose ref or
// directory at prefix and no packed-refs line under it. Every end and
// start lists the leases (issue 36: a handoff costs what git does), and
// most repositories hold none: that listing then starts no git. Anything
// unusual (a reftable, a ref storage named in the config or the
// environment, a namespace) is asked of git.
func (s *Store) certainlyNone(prefix string) bool {
	if !strings.HasPrefix(prefix, Root) || s.commonDir == "" {
		return false // per-worktree refs live in each git dir
	}
	for _, k := range []string{"GIT_REFERENCE_BACKEND", "GIT_NAMESPACE"} {
		if _, set := os.LookupEnv(k); set {
			return false
		}
	}
	// MayHold reads packed-refs whole: past a size that reads in well
	// under the time git takes to start, git's own sorted search is
	// cheaper (a repository of 100,000 packed batons has megabytes).
	if fi, err := os.Stat(filepath.Join(s.commonDir, "packed-refs")); err == nil && fi.Size() > maxPeekedPacked {
		return false
	}
	p := Peeked{GitDir: s.gitDir, CommonDir: s.commonDir, files: filesOnly(s.commonDir)}
	return !p.MayHold(prefix)
}

// maxPeekedPacked is the largest packed-refs certainlyNone reads.
const maxPeekedPacked = 1 << 20

func refIDsCLI(ctx context.Context, dir, prefix string) ([]RefID, error) {
	var ids []RefID
	err := gitLines(ctx, dir, func(line string) error {
		oid, ref, ok := strings.Cut(line, " ")
		if !ok {
			return fmt.Errorf("git for-each-ref: unexpected line %q", line)
		}
		ids = append(ids, RefID{Ref: ref, OID: oid})
		return nil
	}, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
	if err != nil {
		return nil, err
	}
	return ids, nil
}
