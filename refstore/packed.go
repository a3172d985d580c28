package refstore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// refFiles resolves refs of the files backend the way git does: the loose
// file first, then packed-refs. go-git scans packed-refs line by line for
// every lookup; with ten thousand packed records that cost more than a git
// process, so the sorted file is indexed once and binary-searched, and
// re-read only when it changes on disk.
type refFiles struct {
	dir string // the common dir, where refs/ao/ lives

	mu     sync.Mutex
	stat   fs.FileInfo
	data   []byte
	lines  []int // offsets of record lines, sorted by ref name when sorted
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
		i := sort.Search(len(r.lines), func(i int) bool { return r.name(i) >= ref })
		if i < len(r.lines) && r.name(i) == ref {
			return r.id(i), nil
		}
		return "", ErrNotFound
	}
	for i := range r.lines {
		if r.name(i) == ref {
			return r.id(i), nil
		}
	}
	return "", ErrNotFound
}

// load (re)reads packed-refs when it changed since the last read.
func (r *refFiles) load() error {
	path := filepath.Join(r.dir, "packed-refs")
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		r.stat, r.data, r.lines = nil, nil, nil
		return nil
	}
	if err != nil {
		return err
	}
	if r.stat != nil && os.SameFile(r.stat, st) && r.stat.ModTime().Equal(st.ModTime()) && r.stat.Size() == st.Size() {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r.stat, r.data, r.lines, r.sorted = st, data, r.lines[:0], false
	if nl := bytes.IndexByte(data, '\n'); nl >= 0 && bytes.HasPrefix(data, []byte("# pack-refs with:")) {
		r.sorted = bytes.Contains(data[:nl], []byte(" sorted"))
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
