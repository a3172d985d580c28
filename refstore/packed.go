package refstore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// refFiles resolves refs of the files backend the way git does: the loose
// file first, then packed-refs. go-git scans packed-refs line by line for
// every lookup; with ten thousand packed records that cost more than a git
// process. A sorted file (what git writes) is mapped and binary-searched on
// its bytes as git does, so a lookup costs the same at 100,000 refs as at
// ten: nothing reads or indexes every line. Only an unsorted file is
// indexed line by line. Either is re-read only when it changes on disk.
type refFiles struct {
	dir string // the common dir, where refs/ao/ lives

	mu     sync.Mutex
	stat   fs.FileInfo
	data   []byte
	mapped bool  // data is a read-only mapping of the file
	body   int   // offset of the first line after the header
	lines  []int // offsets of record lines; only for an unsorted file
	sorted bool
}

var errSymbolic = errors.New("symbolic ref")

// resolve returns the object id ref names, or ErrNotFound.
func (r *refFiles) resolve(ref string) (string, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(ref)))
	switch {
	case err == nil:
		line := strings.TrimSpace(string(b))
		if strings.HasPrefix(line, "ref:") {
			return "", errSymbolic
		}
		if !isHexID(line) {
			return "", errors.New("malformed loose ref " + ref)
		}
		return line, nil
	case errors.Is(err, fs.ErrNotExist), isDirErr(err):
		return r.packed(ref)
	default:
		return "", err
	}
}

func isDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory")
}

func isHexID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func (r *refFiles) packed(ref string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(); err != nil {
		return "", err
	}
	if r.sorted {
		return r.search(ref)
	}
	for i := range r.lines {
		if r.name(i) == ref {
			return r.id(i), nil
		}
	}
	return "", ErrNotFound
}

// probe is the line a binary search between lo and hi lands on at its
// middle: it backs up to the start of that line, and past a "^" peeled
// line to the record it belongs to, as git's packed backend does. next is
// the offset just after the line.
func (r *refFiles) probe(lo, hi int) (line []byte, start, next int) {
	mid := lo + (hi-lo)/2
	start = bytes.LastIndexByte(r.data[lo:mid], '\n') + 1 + lo
	if start > lo && r.data[start] == '^' {
		// A peeled line: its record is the line before.
		start = bytes.LastIndexByte(r.data[lo:start-1], '\n') + 1 + lo
	}
	end := bytes.IndexByte(r.data[start:], '\n')
	if end < 0 {
		end = len(r.data) - start
	}
	return r.data[start : start+end], start, start + end + 1
}

// search binary-searches the sorted file's bytes for ref (see probe).
func (r *refFiles) search(ref string) (string, error) {
	want := []byte(ref)
	lo, hi := r.body, len(r.data)
	for lo < hi {
		line, start, next := r.probe(lo, hi)
		if len(line) == 0 || line[0] == '^' || line[0] == '#' {
			// Nothing to compare on this line (a peeled line at lo):
			// the record, if any, is further on.
			lo = next
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return "", errors.New("malformed packed-refs line")
		}
		switch c := bytes.Compare(line[sp+1:], want); {
		case c == 0:
			return string(line[:sp]), nil
		case c < 0:
			lo = next
		default:
			hi = start
		}
	}
	return "", ErrNotFound
}

// load (re)reads packed-refs when it changed since the last read.
func (r *refFiles) load() error {
	path := filepath.Join(r.dir, "packed-refs")
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		r.release()
		return nil
	}
	if err != nil {
		return err
	}
	if r.stat != nil && os.SameFile(r.stat, st) && r.stat.ModTime().Equal(st.ModTime()) && r.stat.Size() == st.Size() {
		return nil
	}
	r.release()
	data, mapped, st, err := mapFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed since the stat
		}
		return err
	}
	r.stat, r.data, r.mapped, r.lines, r.sorted, r.body = st, data, mapped, r.lines[:0], false, 0
	if nl := bytes.IndexByte(data, '\n'); nl >= 0 && bytes.HasPrefix(data, []byte("# pack-refs with:")) {
		for _, trait := range strings.Fields(string(data[len("# pack-refs with:"):nl])) {
			r.sorted = r.sorted || trait == "sorted"
		}
		r.body = nl + 1
	}
	if r.sorted {
		return nil
	}
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		if len(line) > 41 && line[0] != '#' && line[0] != '^' {
			r.lines = append(r.lines, off)
		}
		off += end + 1
	}
	return nil
}

// release drops what load read.
func (r *refFiles) release() {
	if r.mapped {
		unmapFile(r.data)
	}
	r.stat, r.data, r.mapped, r.lines, r.body = nil, nil, false, nil, 0
}

func (r *refFiles) line(i int) []byte {
	off := r.lines[i]
	end := bytes.IndexByte(r.data[off:], '\n')
	if end < 0 {
		end = len(r.data) - off
	}
	return r.data[off : off+end]
}

func (r *refFiles) name(i int) string {
	l := r.line(i)
	sp := bytes.IndexByte(l, ' ')
	return string(l[sp+1:])
}

func (r *refFiles) id(i int) string {
	l := r.line(i)
	return string(l[:bytes.IndexByte(l, ' ')])
}

// children lists the distinct next components of the refs under prefix
// (which ends in "/"), loose and packed: the remotes under
// refs/ao/remotes/, say. A sorted packed-refs is not read through: after
// each name found, the search jumps past every ref under it.
func (r *refFiles) children(prefix string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	entries, err := os.ReadDir(filepath.Join(r.dir, filepath.FromSlash(prefix)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !isDirErr(err) {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			add(e.Name())
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(); err != nil {
		return nil, err
	}
	under := func(name []byte) (string, bool) {
		rest, ok := bytes.CutPrefix(name, []byte(prefix))
		if !ok {
			return "", false
		}
		child, _, nested := bytes.Cut(rest, []byte("/"))
		return string(child), nested
	}
	if !r.sorted {
		for i := range r.lines {
			if c, ok := under([]byte(r.name(i))); ok {
				add(c)
			}
		}
		return out, nil
	}
	key := []byte(prefix)
	for {
		name, ok := r.nameAtOrAfter(key)
		if !ok || !bytes.HasPrefix(name, []byte(prefix)) {
			return out, nil
		}
		c, nested := under(name)
		if nested {
			add(c)
		}
		// Past every ref under prefix+c+"/": '0' sorts just after '/'.
		key = []byte(prefix + c + "0")
		if !nested {
			key = append([]byte(prefix+c), 0)
		}
	}
}

// nameAtOrAfter is the name of the first record of the sorted file at or
// after key (lowerBound, then past any peeled line).
func (r *refFiles) nameAtOrAfter(key []byte) ([]byte, bool) {
	for lo := r.lowerBound(key); lo < len(r.data); {
		end := bytes.IndexByte(r.data[lo:], '\n')
		if end < 0 {
			end = len(r.data) - lo
		}
		line := r.data[lo : lo+end]
		if len(line) > 0 && line[0] != '^' && line[0] != '#' {
			if sp := bytes.IndexByte(line, ' '); sp >= 0 {
				return line[sp+1:], true
			}
		}
		lo += end + 1
	}
	return nil, false
}
