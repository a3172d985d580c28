package refstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// RefID is one ref and the object id it holds, without the object.
type RefID struct {
	Ref string
	OID string // "" for a ref the files do not resolve to an id (a symbolic one): Get reads it
}

// RefIDs lists the refs under prefix with the ids they hold, in ref order,
// reading no object: for a caller that knows most objects already (they
// never change under their id) and reads only the new ones. In the files
// backend it reads the loose files and packed-refs in process, as git
// would; elsewhere one `git for-each-ref` without contents.
func (s *Store) RefIDs(ctx context.Context, prefix string) ([]RefID, error) {
	if s.refs == nil {
		return refIDsCLI(ctx, s.workDir, prefix)
	}
	return s.refs.list(prefix)
}

// list reads the loose refs first and packed-refs after: git's pack-refs
// writes packed-refs before it removes the loose files, so a ref moving
// from one to the other while we read is seen in at least one of them.
func (r *refFiles) list(prefix string) ([]RefID, error) {
	var out []RefID
	root := filepath.Join(r.dir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	if err := walkLoose(root, prefix, &out); err != nil {
		return nil, fmt.Errorf("listing %s: %w", prefix, err)
	}
	packed, err := r.packedUnder(prefix)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", prefix, err)
	}
	if len(packed) > 0 {
		loose := make(map[string]bool, len(out))
		for _, l := range out {
			loose[l.Ref] = true
		}
		for _, p := range packed {
			if !loose[p.Ref] {
				out = append(out, p)
			}
		}
	}
	slices.SortFunc(out, func(a, b RefID) int { return strings.Compare(a.Ref, b.Ref) })
	return out, nil
}

// walkLoose appends the loose refs in dir (whose refs are named ref...)
// and below. Each file is opened relative to its directory: resolving the
// whole path again for each of ten thousand refs costs more than reading.
func walkLoose(dir, ref string, out *[]RefID) error {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) || isNotDirErr(err) {
		return nil // none, or removed while we walked (pack-refs prunes empty directories)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return err
	}
	for _, d := range ents {
		name := d.Name()
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock") {
			// A lock is a write in progress, not a ref: git skips it too.
			continue
		}
		if d.IsDir() {
			if err := walkLoose(filepath.Join(dir, name), ref+name+"/", out); err != nil {
				return err
			}
			continue
		}
		b, err := readSmallAt(f, dir, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // deleted or packed since the directory was read
		case isDirErr(err) || isNotDirErr(err):
			continue
		case err != nil:
			return err
		}
		line := strings.TrimSpace(string(b))
		if !isHexID(line) {
			line = "" // symbolic or damaged: the caller reads it through Get, which says which
		}
		*out = append(*out, RefID{Ref: ref + name, OID: line})
	}
	return nil
}

func isNotDirErr(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// packedUnder returns the packed refs under prefix. In a sorted file it
// binary-searches to the first one and reads only the range.
func (r *refFiles) packedUnder(prefix string) ([]RefID, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(); err != nil {
		return nil, err
	}
	var out []RefID
	add := func(line []byte) (bool, error) {
		if len(line) == 0 || line[0] == '^' || line[0] == '#' {
			return true, nil
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return false, errors.New("malformed packed-refs line")
		}
		name := line[sp+1:]
		if !bytes.HasPrefix(name, []byte(prefix)) {
			return false, nil
		}
		out = append(out, RefID{Ref: string(name), OID: string(line[:sp])})
		return true, nil
	}
	if !r.sorted {
		for i := range r.lines {
			if _, err := add(r.line(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for off := r.lowerBound([]byte(prefix)); off < len(r.data); {
		end := bytes.IndexByte(r.data[off:], '\n')
		if end < 0 {
			end = len(r.data) - off
		}
		line := r.data[off : off+end]
		off += end + 1
		if bytes.HasPrefix(line, []byte("^")) {
			continue
		}
		more, err := add(line)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	return out, nil
}

// lowerBound is the offset of the first record line of the sorted file
// whose name is not less than want (search's probe, kept to a bound).
func (r *refFiles) lowerBound(want []byte) int {
	lo, hi := r.body, len(r.data)
	for lo < hi {
		line, start, next := r.probe(lo, hi)
		sp := bytes.IndexByte(line, ' ')
		if len(line) == 0 || line[0] == '^' || line[0] == '#' || sp < 0 {
			lo = next
			continue
		}
		if bytes.Compare(line[sp+1:], want) < 0 {
			lo = next
		} else {
			hi = start
		}
	}
	return lo
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
