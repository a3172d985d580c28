package refstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
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
// `git for-each-ref` without contents.
func (s *Store) RefIDs(ctx context.Context, prefix string) ([]RefID, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, err
	}
	return refIDsCLI(ctx, s.workDir, prefix)
}

func refIDsCLI(ctx context.Context, dir, prefix string) ([]RefID, error) {
	out, err := Git(ctx, dir, false, nil, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
	if err != nil {
		return nil, err
	}
	var ids []RefID
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		oid, ref, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return nil, fmt.Errorf("git for-each-ref: unexpected line %q", sc.Text())
		}
		ids = append(ids, RefID{Ref: ref, OID: oid})
	}
	return ids, nil
}
