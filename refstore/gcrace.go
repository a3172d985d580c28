package refstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A record's blob (or an archive month's commit) is written before the ref
// that names it moves, so until the transaction commits nothing reaches
// it. `git gc --prune=now` run beside a writer (git-gc(1) calls this
// unsafe, and people still do it) walks the refs once and then deletes
// every loose object the walk did not reach: for "now" (or "all") git
// takes no object's age into account. A blob written before that walk and
// named only after it is deleted, and its ref names nothing: a baton that
// `end` reported written is gone (bench/soak met it about once in ten
// runs). git's own update-ref checks that the object exists, but the
// prune deletes it after that check.
//
// git holds <common dir>/gc.pid for as long as gc runs. A transaction that
// met a gc pruning to "now", before it began or once it committed, may
// have raced its prune: committed waits until that gc has ended, and then
// writes again each object of the transaction the repository lacks (an
// object is content-addressed: the same bytes are the same object). A gc
// that began after the commit saw the ref. A gc that prunes only old
// objects (git's default, two weeks, as every automatic gc does) cannot
// take what was just written, and is not waited for. Not covered: a gc
// that began and ended inside one transaction (milliseconds; gc's own
// steps take longer), a prune run without gc (git prune holds no lock),
// and objects a transaction names that this Store cannot write again
// alike: those it did not write, and snapshot commits, which carry their
// time. An archive month's TreeCommit is built again from what built it.

// gcLockFile is the file git gc holds while it runs (git's gc.pid, in the
// common dir): "<pid> <host>".
const gcLockFile = "gc.pid"

// gcPoll is how often committed looks whether the gc still runs.
const gcPoll = 10 * time.Millisecond

// gcWaitMax bounds the wait for a gc that prunes to "now": past it, the
// objects are written again anyway and the user is told.
const gcWaitMax = 30 * time.Second

// maxHeldBytes bounds what a long-lived Store (serve, mcp) holds for
// committed: objects written but never named by a committed transaction
// would otherwise pile up. Past it, the oldest are forgotten.
const maxHeldBytes = 4 << 20

// gcRun is a git gc that holds gc.pid: its process, or 0 when it runs on
// another host (gc.pid on a shared file system), where only the file says
// whether it still runs.
type gcRun struct {
	pid  int
	lock string // gc.pid's content, which a later gc replaces
}

// pruningGC returns the gc that holds gc.pid if it prunes every
// unreachable object ("now" or "all"), or may (its arguments cannot be
// read, it runs on another host, gc.pid cannot be read), and ok false when
// none runs or it keeps recent objects. A gc.pid whose process has died on
// this host is nobody's, as git itself judges.
func (s *Store) pruningGC(ctx context.Context) (run gcRun, ok bool) {
	b, err := os.ReadFile(filepath.Join(s.commonDir, gcLockFile))
	if errors.Is(err, fs.ErrNotExist) {
		return gcRun{}, false
	}
	run.lock = string(b)
	var host string
	if n, _ := fmt.Sscanf(run.lock, "%d %s", &run.pid, &host); err != nil || n != 2 || run.pid <= 0 {
		return gcRun{lock: run.lock}, true
	}
	if me, err := os.Hostname(); err != nil || me != host {
		run.pid = 0
		return run, true
	}
	if syscall.Kill(run.pid, 0) == syscall.ESRCH {
		return gcRun{}, false
	}
	args, err := processArgs(ctx, run.pid)
	if err != nil {
		return run, true
	}
	var configured string
	if v, err := s.Config(ctx, "gc.pruneExpire"); err == nil {
		configured = v["gc.pruneexpire"]
	}
	return run, prunesAll(args, configured)
}

// prunesAll reports whether a git gc run with args (its whole command
// line) prunes every unreachable object: its last --prune=<date> says so,
// or, with none, the repository's gc.pruneExpire (configured) does. git
// reads "now" and "all" as "everything" (parse_expiry_date); any other
// date keeps what was written since. --no-prune prunes nothing.
func prunesAll(args []string, configured string) bool {
	expire := configured
	for _, a := range args {
		switch {
		case a == "--no-prune":
			expire = "never"
		case a == "--prune":
			expire = configured // gc's own default, or the configured one
		case strings.HasPrefix(a, "--prune="):
			expire = strings.TrimPrefix(a, "--prune=")
		}
	}
	return expire == "now" || expire == "all"
}

// processArgs reads the command line of process pid: /proc on Linux, ps
// elsewhere.
func processArgs(ctx context.Context, pid int) ([]string, error) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"), nil
	}
	out, err := exec.CommandContext(ctx, "ps", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// over reports whether run has ended: its process is gone, or, on another
// host, gc.pid is gone or names another run.
func (s *Store) over(run gcRun) bool {
	if run.pid > 0 {
		return syscall.Kill(run.pid, 0) == syscall.ESRCH
	}
	b, err := os.ReadFile(filepath.Join(s.commonDir, gcLockFile))
	return errors.Is(err, fs.ErrNotExist) || err == nil && string(b) != run.lock
}

// heldObject is how to write an object of this Store's again: a blob's
// bytes, or a TreeCommit's BuildTree (which git makes the same again).
type heldObject struct {
	data    []byte      // a blob's bytes; nil for a TreeCommit
	base    string      // a TreeCommit's base
	entries []TreeEntry // a TreeCommit's entries: their blobs go first
	size    int         // what it costs to hold
}

// hold keeps o, just written as object id, until a transaction that names
// it commits: committed may need to write it again.
func (s *Store) hold(id string, o heldObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string]heldObject{}
	}
	if _, ok := s.held[id]; ok {
		return
	}
	s.held[id] = o
	s.heldOrder = append(s.heldOrder, id)
	s.heldBytes += o.size
	for s.heldBytes > maxHeldBytes && len(s.heldOrder) > 1 {
		old := s.heldOrder[0]
		s.heldOrder = s.heldOrder[1:]
		s.heldBytes -= s.held[old].size
		delete(s.held, old)
	}
}

// holdBlob holds a blob written from data.
func (s *Store) holdBlob(id string, data []byte) {
	data = append([]byte(nil), data...) // the caller's buffer is its own
	s.hold(id, heldObject{data: data, size: len(data)})
}

// holdBuilt holds a TreeCommit BuildTree wrote.
func (s *Store) holdBuilt(id, base string, entries []TreeEntry) {
	entries = slices.Clone(entries)
	size := len(base)
	for _, e := range entries {
		size += len(e.Path) + len(e.OID)
	}
	s.hold(id, heldObject{base: base, entries: entries, size: size})
}

// heldFor returns what this Store holds of the objects updates name, and
// of the blobs of the TreeCommits among them, blobs first; with forget it
// stops holding the objects updates name (the blobs below a TreeCommit
// may be named by a later transaction too).
func (s *Store) heldFor(updates []Update, forget bool) (ids []string, objs []heldObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var blobIDs, builtIDs []string
	var blobs, built []heldObject
	seen := map[string]bool{}
	for _, u := range updates {
		o, ok := s.held[u.New]
		if !ok || seen[u.New] {
			continue
		}
		seen[u.New] = true
		if o.data != nil {
			blobIDs, blobs = append(blobIDs, u.New), append(blobs, o)
		} else {
			builtIDs, built = append(builtIDs, u.New), append(built, o)
			for _, e := range o.entries {
				if b, ok := s.held[e.OID]; ok && !seen[e.OID] && b.data != nil {
					seen[e.OID] = true
					blobIDs, blobs = append(blobIDs, e.OID), append(blobs, b)
				}
			}
		}
	}
	if forget {
		n := len(s.held)
		for _, u := range updates {
			if o, ok := s.held[u.New]; ok {
				s.heldBytes -= o.size
				delete(s.held, u.New)
			}
		}
		if len(s.held) != n {
			s.heldOrder = slices.DeleteFunc(s.heldOrder, func(id string) bool { _, ok := s.held[id]; return !ok })
		}
	}
	return append(blobIDs, builtIDs...), append(blobs, built...)
}

// committed is called once a transaction of updates has committed; before
// is the gc that pruned to "now" when it began, if any. When that gc or
// one like it runs now, it waits until both have ended and writes again
// whatever of the transaction's objects they took. Either way the Store
// stops holding the objects the transaction names. The refs have moved
// whatever happens here, so a failure is said on stderr rather than
// returned: the caller must not take a committed transaction for a lost
// one.
func (s *Store) committed(ctx context.Context, updates []Update, before gcRun, beforeOK bool) {
	ids, objs := s.heldFor(updates, true)
	if len(ids) == 0 {
		return
	}
	after, afterOK := s.pruningGC(ctx)
	if !beforeOK && !afterOK {
		return
	}
	var runs []gcRun
	if beforeOK {
		runs = append(runs, before)
	}
	if afterOK {
		runs = append(runs, after)
	}
	deadline := time.Now().Add(gcWaitMax)
	waited := true
	for _, run := range runs {
		for !s.over(run) {
			if time.Now().After(deadline) || ctx.Err() != nil {
				waited = false
				break
			}
			time.Sleep(gcPoll)
		}
	}
	if _, err := s.rewriteHeld(context.WithoutCancel(ctx), ids, objs); err != nil {
		fmt.Fprintf(os.Stderr, "warning: git gc --prune=now ran beside this write, and what it wrote could not be written again: %v\n", err)
	} else if !waited {
		fmt.Fprintf(os.Stderr, "warning: git gc --prune=now is still running beside this write (%s); if it removes what this command wrote, `git fsck` names the ref\n", strings.TrimSpace(runs[len(runs)-1].lock))
	}
}

// rewriteHeld writes again, blobs first, each of objs (ids) the repository
// no longer has whole, and checks that it then has. It reports whether it
// wrote any.
func (s *Store) rewriteHeld(ctx context.Context, ids []string, objs []heldObject) (wrote bool, err error) {
	for i, id := range ids {
		whole, err := s.whole(ctx, id, objs[i])
		if err != nil {
			return wrote, err
		}
		if whole {
			continue
		}
		if err := s.rewrite(ctx, id, objs[i]); err != nil {
			return wrote, err
		}
		wrote = true
		if whole, err = s.whole(ctx, id, objs[i]); err != nil {
			return wrote, err
		} else if !whole {
			return wrote, fmt.Errorf("%s: %w", id, ErrMissingObject)
		}
	}
	return wrote, nil
}

// whole reports whether the repository has id and, for a TreeCommit,
// everything it reaches.
func (s *Store) whole(ctx context.Context, id string, o heldObject) (bool, error) {
	if o.data == nil {
		missing, err := s.Missing(ctx, id)
		return err == nil && len(missing) == 0, nil
	}
	if _, err := s.ReadObject(ctx, id); err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// rewriteMissing writes again each object updates name that this Store
// wrote and the repository no longer has whole: a prune deleted it
// between the write and the transaction, and git refused to point a ref
// at it. It reports whether it wrote any.
func (s *Store) rewriteMissing(ctx context.Context, updates []Update) (bool, error) {
	ids, objs := s.heldFor(updates, false)
	return s.rewriteHeld(ctx, ids, objs)
}

// rewrite writes o again and checks that git gives it the id it had.
// git writes what is missing and freshens what is there.
func (s *Store) rewrite(ctx context.Context, id string, o heldObject) error {
	var got string
	var err error
	if o.data != nil {
		got, err = s.writeBlob(ctx, o.data)
	} else {
		got, err = s.buildTree(ctx, o.base, o.entries)
	}
	if err != nil {
		return err
	}
	if got != id {
		return fmt.Errorf("git wrote %s again as %s", id, got)
	}
	return nil
}
