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
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
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
// and below. The directories are listed first, one after the other; their
// files, nearly all of the work at three system calls each, are then read
// by a worker per processor once there are enough of them to pay for the
// workers (a listing of a hundred thousand loose refs; a start reads a
// handful). The order is the caller's to make: list sorts.
func walkLoose(dir, ref string, out *[]RefID) error {
	var jobs []looseJob
	if err := listLoose(dir, ref, &jobs); err != nil {
		return err
	}
	total := 0
	for _, j := range jobs {
		total += len(j.names)
	}
	workers := runtime.GOMAXPROCS(0)
	if total < looseParallelMin || workers < 2 {
		for _, j := range jobs {
			if err := j.read(out); err != nil {
				return err
			}
		}
		return nil
	}
	// Chunks of one directory at most looseChunk files each, so that one
	// directory of a hundred thousand is shared out too.
	var chunks []looseJob
	for _, j := range jobs {
		for len(j.names) > looseChunk {
			chunks = append(chunks, looseJob{dir: j.dir, ref: j.ref, names: j.names[:looseChunk]})
			j.names = j.names[looseChunk:]
		}
		chunks = append(chunks, j)
	}
	results := make([][]RefID, len(chunks))
	errs := make([]error, len(chunks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(chunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(chunks) {
					return
				}
				errs[i] = chunks[i].read(&results[i])
			}
		}()
	}
	wg.Wait()
	for i := range chunks {
		if errs[i] != nil {
			return errs[i]
		}
		*out = append(*out, results[i]...)
	}
	return nil
}

// looseParallelMin is the fewest loose refs read by more than one worker;
// looseChunk is how many one worker takes at a time.
const looseParallelMin, looseChunk = 2048, 1024

// looseJob is files of one directory to read: ref files named ref+name.
type looseJob struct {
	dir, ref string
	names    []string
}

// listLoose appends a job for the files of dir and of each directory below.
func listLoose(dir, ref string, jobs *[]looseJob) error {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) || isNotDirErr(err) {
		return nil // none, or removed while we walked (pack-refs prunes empty directories)
	}
	if err != nil {
		return err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return err
	}
	job := looseJob{dir: dir, ref: ref}
	for _, d := range ents {
		name := d.Name()
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock") {
			// A lock is a write in progress, not a ref: git skips it too.
			continue
		}
		if d.IsDir() {
			if err := listLoose(filepath.Join(dir, name), ref+name+"/", jobs); err != nil {
				return err
			}
			continue
		}
		job.names = append(job.names, name)
	}
	if len(job.names) > 0 {
		*jobs = append(*jobs, job)
	}
	return nil
}

// read appends the job's refs. Each file is opened relative to its
// directory: resolving the whole path again for each of ten thousand refs
// costs more than reading.
func (j looseJob) read(out *[]RefID) error {
	f, err := os.Open(j.dir)
	if errors.Is(err, fs.ErrNotExist) || isNotDirErr(err) {
		return nil // removed since it was listed
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return readSmallEach(f, j.dir, j.names, func(name string, b []byte, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // deleted or packed since the directory was read
		case isDirErr(err) || isNotDirErr(err):
			return nil
		case err != nil:
			return err
		}
		line := ""
		if b = bytes.TrimSpace(b); isHexID(unsafe.String(unsafe.SliceData(b), len(b))) {
			line = string(b)
		} // else symbolic or damaged: the caller reads it through Get, which says which
		*out = append(*out, RefID{Ref: j.ref + name, OID: line})
		return nil
	})
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
