package refstore

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc64"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// A caller that must know every ref under a prefix on each run, but cannot
// afford to list them all each time (the waiting shared batons), keeps
// what it learnt per directory of loose refs together with that
// directory's Stamp, and lists again only the directories whose stamp
// moved. git changes a ref only by creating "<ref>.lock" beside it and
// renaming it over the ref (or by unlinking it), and every one of those
// changes the directory's mtime and ctime; a new or removed subdirectory
// changes its parent's. packed-refs is always replaced by a rename, so its
// own stamp moves when it changes. What the stamps cannot see: a ref file
// rewritten in place by hand (git never does that), and a change that
// lands in the same clock tick as the one the stamp shows, after the stamp
// was taken. Settled guards the second: a stamp is trusted only when it
// was taken well after that tick, so any later change gets a later time.

// Stamp is what stat said of a directory of loose refs, or of packed-refs.
// The zero value but At is a directory (or file) that did not exist.
type Stamp struct {
	Ino   uint64
	Size  int64
	Nlink uint64
	Mtime int64 // ns since the epoch
	Ctime int64
	At    int64 // the wall clock just before the stat, ns
}

// Same reports whether two stamps show the same state (At aside).
func (a Stamp) Same(b Stamp) bool {
	return a.Ino == b.Ino && a.Size == b.Size && a.Nlink == b.Nlink && a.Mtime == b.Mtime && a.Ctime == b.Ctime
}

// Absent reports whether the stamp is of nothing.
func (a Stamp) Absent() bool { return a.Ino == 0 && a.Mtime == 0 && a.Ctime == 0 }

// racyWindow is how long after a directory's last change a stamp must be
// taken to be trusted. File times come from the kernel's coarse clock,
// which moves once a tick (1 to 10 ms); a change made at least a tick
// after the last one gets a later time. coarseWindow is for a filesystem
// that keeps whole seconds (times with no nanoseconds: ext4 with small
// inodes keeps 1 s, FAT 2 s).
const (
	racyWindow   = 50 * time.Millisecond
	coarseWindow = 3 * time.Second
)

// Settled reports whether any change made after the stamp was taken is
// sure to give a different stamp: the last change it shows happened more
// than a clock tick (or, on a filesystem of whole seconds, more than a
// few seconds) before it was taken. An unsettled stamp must not be
// trusted at the next run: list again.
func (a Stamp) Settled() bool {
	if a.Absent() {
		return true
	}
	return settled(a.Mtime, a.Ctime, a.At)
}

// settled: times mtime and ctime, seen at at, are far enough behind it
// that any later change gets later times.
func settled(mtime, ctime, at int64) bool {
	w := racyWindow
	if mtime%1e9 == 0 || ctime%1e9 == 0 {
		w = coarseWindow
	}
	return at-max(mtime, ctime) > int64(w)
}

// Watchable reports whether the loose and packed refs can be watched by
// their stamps: the files ref backend, on a local filesystem whose times
// behave as Settled expects (not a network one, whose attribute cache and
// server clock do not). Elsewhere a caller lists every ref each time.
func (s *Store) Watchable() bool {
	return s.refs != nil && localTimes(filepath.Join(s.commonDir, "refs"))
}

// DirStamp stamps the directory of loose refs named dir (a ref prefix
// ending in "/").
func (s *Store) DirStamp(dir string) (Stamp, error) {
	if s.refs == nil {
		return Stamp{}, errors.New("refs are not files")
	}
	return stampPath(filepath.Join(s.refs.dir, filepath.FromSlash(strings.TrimSuffix(dir, "/"))))
}

// DirStamps stamps the directories of loose refs named dirs (ref
// prefixes ending in "/", each base or under it), each relative to base's
// directory, opened once: a hundred owners' directories cost a hundred
// short lookups, not a hundred from the root.
func (s *Store) DirStamps(base string, dirs []string) ([]Stamp, error) {
	if s.refs == nil {
		return nil, errors.New("refs are not files")
	}
	out := make([]Stamp, len(dirs))
	root := filepath.Join(s.refs.dir, filepath.FromSlash(strings.TrimSuffix(base, "/")))
	f, err := os.Open(root)
	if err != nil {
		for i, d := range dirs {
			if out[i], err = s.DirStamp(d); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	defer f.Close()
	for i, d := range dirs {
		rel, ok := strings.CutPrefix(d, base)
		if !ok {
			if out[i], err = s.DirStamp(d); err != nil {
				return nil, err
			}
			continue
		}
		at := time.Now().UnixNano()
		if rel == "" {
			fi, err := f.Stat()
			if err != nil {
				return nil, err
			}
			out[i] = stampOf(fi)
		} else if out[i], err = dirStampAt(f, strings.TrimSuffix(rel, "/")); err != nil {
			return nil, err
		}
		out[i].At = at
	}
	return out, nil
}

func stampPath(path string) (Stamp, error) {
	at := time.Now().UnixNano()
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDirErr(err):
		return Stamp{At: at}, nil
	case err != nil:
		return Stamp{}, err
	}
	st := stampOf(fi)
	st.At = at
	return st, nil
}

// DirRefs is one directory's refs, as ListDir read them.
type DirRefs struct {
	Stamp Stamp    // of the loose directory, taken before it was read
	Refs  []DirRef // the refs directly in it, loose over packed, in ref order
	Dirs  []string // its subdirectories, loose or packed, each ending in "/"
	Read  int      // how many loose files were read, not known from prev
}

// DirRef is one ref of a directory. File is what stat said of its loose
// file before it was read (zero for a packed ref): git replaces a loose
// ref by renaming a new file over it, so a file whose stamp has not moved,
// and had settled when it was read, still holds what it held.
type DirRef struct {
	Ref  string
	OID  string // "" for a ref the files do not resolve to an id (a symbolic one): Get reads it
	File FileStamp
	At   int64 // the wall clock before File was taken and the file read, ns
}

// FileStamp is what stat says of one loose ref file.
type FileStamp struct {
	Ino   uint64
	Size  int64
	Mtime int64
	Ctime int64
}

// ListDir lists the refs directly in dir (a ref prefix ending in "/"):
// the loose files first and packed-refs after, as RefIDs does, so a ref
// that pack-refs moves while we read is seen in one of them. Packed refs
// below subdirectories are stepped over, not read: a subdirectory costs a
// binary search, not its refs (in a sorted packed-refs, what git writes).
//
// prev gives the directory's refs as an earlier ListDir returned them: a
// loose file whose stamp is the same as then, and had settled by the time
// it was read then (its At), is not read again. Opening a file costs
// several times what a stat of it does, so a directory of a thousand refs
// in which one changed costs a thousand stats and one read.
func (s *Store) ListDir(dir string, prev func(ref string) (DirRef, bool)) (DirRefs, error) {
	return s.listDir(dir, prev, true)
}

// ListLoose is ListDir without the packed refs directly in dir (the
// subdirectories that only packed refs are in are still named): for a
// caller that keeps what it learnt of the packed ones under the sum of
// packed-refs (PackedDir) and so needs only what changed loose.
func (s *Store) ListLoose(dir string, prev func(ref string) (DirRef, bool)) (DirRefs, error) {
	return s.listDir(dir, prev, false)
}

func (s *Store) listDir(dir string, prev func(ref string) (DirRef, bool), packed bool) (DirRefs, error) {
	var out DirRefs
	if s.refs == nil {
		return out, errors.New("refs are not files")
	}
	path := filepath.Join(s.refs.dir, filepath.FromSlash(strings.TrimSuffix(dir, "/")))
	at := time.Now().UnixNano()
	out.Stamp.At = at
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDirErr(err):
	case err != nil:
		return out, fmt.Errorf("listing %s: %w", dir, err)
	default:
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return out, fmt.Errorf("listing %s: %w", dir, err)
		}
		if !fi.IsDir() {
			break
		}
		out.Stamp = stampOf(fi)
		out.Stamp.At = at
		ents, err := f.ReadDir(-1)
		if err != nil {
			return out, fmt.Errorf("listing %s: %w", dir, err)
		}
		var names []string
		for _, d := range ents {
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock") {
				continue // a write in progress, not a ref: git skips it too
			}
			if d.IsDir() {
				out.Dirs = append(out.Dirs, dir+name+"/")
				continue
			}
			names = append(names, name)
		}
		// Every stat before any read: a file replaced after its stat is
		// read new under the old stamp, which only makes the next
		// listing read it again; read before stat, it could be believed.
		stamps := statAll(f, names)
		for i, name := range names {
			ref := dir + name
			fst := stamps[i]
			if p, ok := lookup(prev, ref); ok && p.File == fst && fst.Ino != 0 && settled(fst.Mtime, fst.Ctime, p.At) {
				out.Refs = append(out.Refs, p)
				continue
			}
			out.Read++
			b, err := readSmallAt(f, path, name)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue // deleted or packed since the directory was read
			case isDirErr(err):
				out.Dirs = append(out.Dirs, dir+name+"/") // a file become a directory
				continue
			case isNotDirErr(err):
				continue
			case err != nil:
				return out, fmt.Errorf("listing %s: %w", dir, err)
			}
			line := strings.TrimSpace(string(b))
			if !isHexID(line) {
				line = "" // symbolic or damaged: the caller reads it through Get, which says which
			}
			out.Refs = append(out.Refs, DirRef{Ref: ref, OID: line, File: fst, At: at})
		}
	}
	refs, dirs, err := s.refs.packedIn(dir, packed)
	if err != nil {
		return out, fmt.Errorf("listing %s: %w", dir, err)
	}
	if len(refs) > 0 {
		loose := make(map[string]bool, len(out.Refs))
		for _, l := range out.Refs {
			loose[l.Ref] = true
		}
		for _, p := range refs {
			if !loose[p.Ref] {
				out.Refs = append(out.Refs, DirRef{Ref: p.Ref, OID: p.OID})
			}
		}
	}
	out.Dirs = append(out.Dirs, dirs...)
	slices.SortFunc(out.Refs, func(a, b DirRef) int { return strings.Compare(a.Ref, b.Ref) })
	slices.Sort(out.Dirs)
	out.Dirs = slices.Compact(out.Dirs)
	return out, nil
}

// statAll stats names in the open directory dir; one that fails has a
// zero stamp (it is read, which says what is wrong). A directory of many
// refs is stated by a few goroutines at once: a start waits on this.
func statAll(dir *os.File, names []string) []FileStamp {
	out := make([]FileStamp, len(names))
	workers := min(runtime.GOMAXPROCS(0), 4, len(names)/256)
	if workers < 2 {
		for i, n := range names {
			out[i], _ = statAt(dir, n)
		}
		return out
	}
	var wg sync.WaitGroup
	chunk := (len(names) + workers - 1) / workers
	for lo := 0; lo < len(names); lo += chunk {
		hi := min(lo+chunk, len(names))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				out[i], _ = statAt(dir, names[i])
			}
		})
	}
	wg.Wait()
	return out
}

func lookup(prev func(string) (DirRef, bool), ref string) (DirRef, bool) {
	if prev == nil {
		return DirRef{}, false
	}
	return prev(ref)
}

// packedIn returns the packed refs directly in dir (when refsToo) and the
// names of the subdirectories the others are in, skipping each
// subdirectory's refs by searching for the first name past them.
func (r *refFiles) packedIn(dir string, refsToo bool) ([]RefID, []string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(); err != nil {
		return nil, nil, err
	}
	return r.packedInLoaded(dir, refsToo)
}

// packedInLoaded is packedIn of what is loaded; r.mu is held.
func (r *refFiles) packedInLoaded(dir string, refsToo bool) ([]RefID, []string, error) {
	if r.data == nil {
		return nil, nil, nil
	}
	var refs []RefID
	var dirs []string
	if !r.sorted {
		// Not what git writes: read every line.
		seen := map[string]bool{}
		for i := range r.lines {
			name := r.name(i)
			rest, ok := strings.CutPrefix(name, dir)
			if !ok {
				continue
			}
			if slash := strings.IndexByte(rest, '/'); slash >= 0 {
				if sub := dir + rest[:slash+1]; !seen[sub] {
					seen[sub] = true
					dirs = append(dirs, sub)
				}
				continue
			}
			if refsToo {
				refs = append(refs, RefID{Ref: name, OID: r.id(i)})
			}
		}
		return refs, dirs, nil
	}
	for off := r.lowerBound([]byte(dir)); off < len(r.data); {
		end := bytes.IndexByte(r.data[off:], '\n')
		if end < 0 {
			end = len(r.data) - off
		}
		line := r.data[off : off+end]
		off += end + 1
		if len(line) == 0 || line[0] == '^' || line[0] == '#' {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, nil, errors.New("malformed packed-refs line")
		}
		name := line[sp+1:]
		if !bytes.HasPrefix(name, []byte(dir)) {
			break
		}
		rest := name[len(dir):]
		if slash := bytes.IndexByte(rest, '/'); slash >= 0 {
			sub := dir + string(rest[:slash])
			dirs = append(dirs, sub+"/")
			// Every name in sub/ sorts before sub + "0" ('/' + 1).
			off = r.lowerBound([]byte(sub + "0"))
			continue
		}
		if refsToo {
			refs = append(refs, RefID{Ref: string(name), OID: string(line[:sp])})
		}
	}
	return refs, dirs, nil
}

// PackedDir returns the packed refs directly in dir and the sum PackedSum
// gives of prefix (which holds dir), both of one reading of packed-refs:
// what a caller keeps of those refs under that sum is then of that file.
// ok is false for an unsorted file, which has no sum.
func (s *Store) PackedDir(dir, prefix string) (refs []RefID, sum uint64, ok bool, err error) {
	if s.refs == nil {
		return nil, 0, false, errors.New("refs are not files")
	}
	if !strings.HasPrefix(dir, prefix) {
		return nil, 0, false, fmt.Errorf("%s is not under %s", dir, prefix)
	}
	r := s.refs
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(); err != nil {
		return nil, 0, false, err
	}
	if refs, _, err = r.packedInLoaded(dir, true); err != nil {
		return nil, 0, false, err
	}
	sum, ok = r.sumLoaded(prefix)
	return refs, sum, ok, nil
}

// PackedStamp stamps packed-refs.
func (s *Store) PackedStamp() (Stamp, error) {
	if s.refs == nil {
		return Stamp{}, errors.New("refs are not files")
	}
	return stampPath(filepath.Join(s.refs.dir, "packed-refs"))
}

// PackedSum sums the bytes of packed-refs' records under prefix: when
// packed-refs' stamp moved (pack-refs, gc, a packed ref deleted, a fetch
// pruning its tracking refs), an unchanged sum says the refs under prefix
// did not. Take the stamp first: the sum is then of that file or a newer
// one. Finding the range is a binary search; the sum reads only the range.
// ok is false for an unsorted file.
func (s *Store) PackedSum(prefix string) (sum uint64, ok bool, err error) {
	if s.refs == nil {
		return 0, false, errors.New("refs are not files")
	}
	r := s.refs
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(); err != nil {
		return 0, false, err
	}
	sum, ok = r.sumLoaded(prefix)
	return sum, ok, nil
}

// sumLoaded is PackedSum of what is loaded; r.mu is held.
func (r *refFiles) sumLoaded(prefix string) (uint64, bool) {
	if r.data == nil {
		return 0, true
	}
	if !r.sorted {
		return 0, false
	}
	lo := r.lowerBound([]byte(prefix))
	hi := r.lowerBound(prefixEnd(prefix))
	if hi < lo {
		hi = lo
	}
	// 64 bits, so that a changed range has the same sum by chance once
	// in 2^64 rewrites, not once in four billion.
	return crc64.Checksum(r.data[lo:hi], crcTable()), true
}

// crcTable is made at first use, not by every process at start.
var crcTable = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// prefixEnd is the least name greater than every name starting with
// prefix.
func prefixEnd(prefix string) []byte {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return b[:i+1]
		}
	}
	return []byte{0xff}
}
