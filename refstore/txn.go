package refstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Crash safety for multi-ref writes.
//
// git's lock protocol makes a transaction atomic against other writers, not
// against a crash: the locks are renamed over the refs one at a time, so a
// writer killed between two renames leaves some refs moved, the others still
// locked with the new id inside their lock files, and nothing that says the
// two belong together. Before a multi-ref write we therefore leave a journal
// of intent in <common dir>/handoff/txn/<id>.json naming every {ref, old,
// new}, and hold a kernel lock (flock) on it for as long as the writer
// lives; the kernel drops that lock when the writer dies, however it dies.
// The next Open that finds a journal whose flock it can take knows its
// writer is gone and settles it: if any ref reached its new value the
// transaction had started committing, so the rest is rolled forward (a lock
// holding our new id is renamed into place as the writer would have, a ref
// without one is swapped from its old value); if none did, the leftover
// locks that hold exactly our new ids are removed. A lock holding anything
// else belongs to someone else and is never touched.

const txnSchema = "txn/v1"

type journalRecord struct {
	Schema  string          `json:"schema"`
	Msg     string          `json:"msg"`             // the reflog message, as logged
	Ident   string          `json:"ident,omitempty"` // the reflog identity, when we wrote the entries
	Updates []journalUpdate `json:"updates"`
}

type journalUpdate struct {
	Ref string `json:"ref"`
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// journal is a journal file this process holds the flock of.
type journal struct {
	path string
	f    *os.File
	rec  journalRecord
}

func (s *Store) txnDir() string { return filepath.Join(s.commonDir, "handoff", "txn") }

// Journals live in slots: files named slot-<n>.journal that stay once made,
// empty while no transaction uses them. A writer takes the first slot
// whose flock it gets and that is empty, writes its journal into it, and
// empties it again when the transaction is settled; a slot with a journal
// and no flock is a dead writer's. Making, renaming and removing a file
// for each transaction cost more than the transaction's own ref writes:
// on ext4 a new file searches past the inodes freed recently, and each
// ref write frees one.
//
// Not .json: a git-handoff from before slots settles every .json and .tmp
// file in the directory, and an empty one would be a notice at each of its
// commands.
const slotPrefix, slotSuffix = "slot-", ".journal"

// maxSlots bounds the search for a free slot: more writers than this at
// once in one repository wait for one to free.
const maxSlots = 64

// beginJournal writes the journal into a free slot, under the slot's
// flock, so no reader ever sees a journal that is half written or not
// locked by a live writer.
func (s *Store) beginJournal(ctx context.Context, msg string, updates []Update) (*journal, error) {
	rec := journalRecord{Schema: txnSchema, Msg: msg}
	for _, u := range updates {
		rec.Updates = append(rec.Updates, journalUpdate{Ref: u.Ref, Old: u.Old, New: u.New})
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	dir := s.txnDir()
	shared := s.sharedPerm(ctx)
	deadline := time.Now().Add(lockWait)
	for {
		for n := 0; n < maxSlots; n++ {
			path := filepath.Join(dir, slotPrefix+strconv.Itoa(n)+slotSuffix)
			f, err := s.openSlot(dir, path, shared)
			if err != nil {
				return nil, fmt.Errorf("writing the transaction journal: %w", err)
			}
			if f == nil {
				continue // in use, or a dead writer's journal waiting to be settled
			}
			if _, err := f.WriteAt(data, 0); err != nil {
				f.Truncate(0)
				f.Close()
				return nil, fmt.Errorf("writing the transaction journal: %w", err)
			}
			return &journal{path: path, f: f, rec: rec}, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("writing the transaction journal: all %d slots of %s are in use", maxSlots, dir)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openSlot opens the slot at path, making it the first time, and returns
// it flocked if it is free: nil when another writer holds it or it holds
// a journal (a dead writer's, for recoverTxns to settle).
func (s *Store) openSlot(dir, path string, shared int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	for tries := 0; errors.Is(err, fs.ErrNotExist) && tries < 3; tries++ {
		if err = mkdirShared(shared, s.commonDir, dir); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil && shared != 0 {
			if err = adjustShared(shared, path); err != nil {
				f.Close()
				return nil, err
			}
		}
		if errors.Is(err, fs.ErrExist) {
			f, err = os.OpenFile(path, os.O_RDWR, 0)
		}
	}
	if err != nil {
		return nil, err
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, nil
	}
	// Free only if still the slot's file (nobody removed the directory
	// under us) and empty.
	fi, err := f.Stat()
	if err != nil || fi.Size() != 0 {
		f.Close()
		return nil, nil
	}
	if now, err := os.Stat(path); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, nil
	}
	return f, nil
}

// finish empties the journal's slot: the transaction is settled one way or
// the other. It is emptied before the flock is dropped, so nobody settles
// it again. A journal not in a slot (an older git-handoff's) is removed.
func (j *journal) finish() {
	if isSlot(filepath.Base(j.path)) {
		j.f.Truncate(0)
	} else {
		os.Remove(j.path)
	}
	j.f.Close()
}

// abandon leaves the journal for the next command to settle.
func (j *journal) abandon() { j.f.Close() }

// isSlot reports whether name is a journal slot's.
func isSlot(name string) bool {
	n, ok := strings.CutPrefix(name, slotPrefix)
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, slotSuffix)
	if !ok || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// samePath reports whether path still names the file f has open.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// emptyLockAge is how long a lock must have stayed empty before a dead
// writer's journal may claim it: a live writer fills its lock within
// microseconds of creating it.
const emptyLockAge = time.Second

// lockHolds reports whether lock is this journal's lock of an update to
// id: it holds id, or it is empty and has stayed so (the writer was killed
// between creating it and writing it; a live writer's lock would have its
// id by now, or be gone). A deletion's lock (id "") stays empty: git
// writes nothing into it, so one that has stood empty is the dead
// writer's (the soak's kill trials found a claim's recording killed after
// its renames, the locks of the holds it was deleting left, and every
// later claim there refused on them).
func lockHolds(lock, id string) bool {
	for {
		fi, err := os.Stat(lock)
		if err != nil {
			return false
		}
		if fi.Size() > 0 {
			b, err := os.ReadFile(lock)
			return err == nil && strings.TrimSpace(string(b)) == id
		}
		age := time.Since(fi.ModTime())
		if age >= emptyLockAge {
			return true
		}
		time.Sleep(emptyLockAge - age)
	}
}

// Recovered says what this Store did, when it was opened, about
// transactions a killed git-handoff left half done: one line each.
func (s *Store) Recovered() []string { return s.recovered }

// recoverTxns settles every journal whose writer is gone. It costs one
// readdir when there is nothing to do.
func (s *Store) recoverTxns(ctx context.Context) {
	dir := s.txnDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		slot := isSlot(name)
		// Journals of an older git-handoff had a name of their own,
		// first with .tmp until written.
		tmp := !slot && strings.HasSuffix(name, ".tmp")
		if !slot && !tmp && !strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(dir, name)
		if slot {
			// An empty slot is free: one stat, no open.
			if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
				continue
			}
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !samePath(f, path) {
			f.Close() // its writer is alive, or someone settled it already
			continue
		}
		if tmp {
			// Killed before the journal had its name: no ref was touched.
			os.Remove(path)
			f.Close()
			continue
		}
		if fi, err := f.Stat(); slot && (err != nil || fi.Size() == 0) {
			f.Close() // its writer finished meanwhile
			continue
		}
		j := &journal{path: path, f: f}
		data, err := io.ReadAll(f)
		if err == nil {
			err = json.Unmarshal(data, &j.rec)
		}
		if err == nil && j.rec.Schema != txnSchema {
			err = fmt.Errorf("schema %q, this git-handoff reads %q", j.rec.Schema, txnSchema)
		}
		if err != nil {
			s.recovered = append(s.recovered, fmt.Sprintf("left the transaction journal %s alone: %v", path, err))
			j.abandon()
			continue
		}
		what, _, err := s.settle(ctx, j.rec)
		if err != nil {
			s.recovered = append(s.recovered, fmt.Sprintf("could not settle the transaction killed mid-way in %s: %v", path, err))
			j.abandon()
			continue
		}
		j.finish()
		s.recovered = append(s.recovered, what)
	}
}

// settle finishes or undoes the transaction of a writer that is gone (or
// of a git that was killed under us). It reports what it did and whether
// the transaction now stands applied.
func (s *Store) settle(ctx context.Context, rec journalRecord) (string, bool, error) {
	type state struct {
		cur  string
		lock string
		ours bool // the lock holds exactly this update's new id
	}
	st := make([]state, len(rec.Updates))
	reached := false
	for i, u := range rec.Updates {
		cur, err := ResolveID(ctx, s, u.Ref)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return "", false, err
		}
		lock := filepath.Join(s.commonDir, filepath.FromSlash(u.Ref)+".lock")
		st[i] = state{cur: cur, lock: lock, ours: lockHolds(lock, u.New)}
		if u.New != u.Old && cur == u.New {
			reached = true
		}
	}
	refs := make([]string, len(rec.Updates))
	for i, u := range rec.Updates {
		refs[i] = u.Ref
	}
	if !reached {
		n := 0
		for _, x := range st {
			if x.ours {
				if err := os.Remove(x.lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return "", false, err
				}
				n++
			}
		}
		return fmt.Sprintf("discarded a transaction killed before it moved any ref (%s): removed %d lock(s)", strings.Join(refs, ", "), n), false, nil
	}
	moved := 0
	for i, u := range rec.Updates {
		x := st[i]
		if x.cur == u.New {
			// Moved. A deletion's lock outlives the deleted ref: git
			// removes the locks last.
			if u.New == "" && x.ours {
				if err := os.Remove(x.lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return "", false, err
				}
			}
			continue
		}
		if x.ours {
			// Nobody else can have moved a ref we still hold the lock of:
			// drop the dead writer's lock and let git finish its swap,
			// reflog entry and all.
			if err := os.Remove(x.lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", false, err
			}
		} else if x.cur != u.Old {
			// Moved by someone after the writer died: theirs is later.
			continue
		}
		err := s.applyGit(ctx, rec.Msg, []Update{{Ref: u.Ref, New: u.New, Old: u.Old}}, nil, false)
		if err != nil && !errors.Is(err, ErrConflict) {
			return "", false, err
		}
		if err == nil {
			moved++
		}
	}
	return fmt.Sprintf("rolled forward a transaction killed mid-way (%s): moved %d more ref(s)", strings.Join(refs, ", "), moved), true, nil
}

// oursLeft reports whether a lock of rec's refs holds rec's new id: what a
// git killed during the transaction leaves behind.
func (s *Store) oursLeft(rec journalRecord) bool {
	for _, u := range rec.Updates {
		if u.New == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.commonDir, filepath.FromSlash(u.Ref)+".lock"))
		if err == nil && strings.TrimSpace(string(b)) == u.New {
			return true
		}
	}
	return false
}

// killAfterEnv set to n makes the next transaction leave the state of a git
// killed after n renames and kill its own process (tornForTest). Only tests
// set it.
const killAfterEnv = "GIT_HANDOFF_TEST_KILL_AFTER_RENAMES"

func killAfter() int {
	v := os.Getenv(killAfterEnv)
	if v == "" {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1
	}
	return n
}

func killSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
