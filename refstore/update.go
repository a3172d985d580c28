package refstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Update is one compare-and-swap: move Ref from Old to New.
//   - Old "" means the ref must not exist yet; otherwise it must hold Old.
//   - New "" deletes the ref.
type Update struct {
	Ref string
	New string
	Old string
	// noDeref acts on a symbolic ref itself, Old being the id it resolves
	// to: only the worktree's binding (UnbindFrom), never journaled, since
	// a journal's recovery would follow the symbolic ref.
	noDeref bool
}

// ConflictError reports the ref whose value was not the expected one.
type ConflictError struct {
	Ref      string
	Expected string // "" = expected absent
	Actual   string // "" = absent now
}

func (e *ConflictError) Error() string {
	exp, act := e.Expected, e.Actual
	if exp == "" {
		exp = "absent"
	}
	if act == "" {
		act = "absent"
	}
	return fmt.Sprintf("%s changed underneath us (expected %s, found %s)", e.Ref, short(exp), short(act))
}

func (e *ConflictError) Unwrap() error { return ErrConflict }

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// LockedError reports a ref lock that stayed in place: usually a git process
// that was killed while it held it.
type LockedError struct{ Path string }

func (e *LockedError) Error() string {
	return fmt.Sprintf("a lock file is in the way: %s (if no git process is running, remove it)", e.Path)
}

// lockWait bounds how long Apply waits for someone else's lock to go away
// before calling it stale. git itself waits 100 ms per attempt.
const lockWait = 2 * time.Second

// Apply performs updates as one transaction through `git update-ref
// --stdin` (refWriter), each with a reflog entry carrying msg. Either all
// refs move or none does, as far as other writers can tell. A lost swap
// returns a *ConflictError (wrapping ErrConflict), decided by re-reading the
// refs rather than by git's wording.
//
// git renames the locks of the files backend in the order the caller gives
// the updates (measured with strace on git 2.39: input order, not ref
// order), and a git killed in the middle leaves a prefix of that order
// applied. So order updates so that every prefix is harmless: create the
// new before marking the old (the baton before the session that ended, the
// successor before the session it replaces). The next Open then finishes
// the rest from the journal the transaction left (see txn.go); the order is
// what still holds where no journal could be read.
func (s *Store) Apply(ctx context.Context, msg string, updates ...Update) error {
	if len(updates) == 0 {
		return nil
	}
	// Past its first write a Store is past its command's first moments:
	// Open's answer of the binding may be older than what others did.
	s.forgetBinding()
	if err := CheckUpdates(updates, HexLen(s.layout.objectFormat)); err != nil {
		return err
	}
	s.ensureGCConfig(ctx)
	// Even one ref needs the journal: git killed while it holds the lock
	// leaves `<ref>.lock` behind, and only the journal lets the next
	// command prove the lock ours and drop it.
	var j *journal
	if s.filesBackend() {
		var err error
		if j, err = s.beginJournal(ctx, reflogMsg(msg), updates); err != nil {
			return err
		}
	}
	return s.applyGit(ctx, msg, updates, j, true)
}

// filesBackend reports whether refs are plain files under the common dir,
// the only backend whose transactions can be torn.
func (s *Store) filesBackend() bool {
	v := strings.ToLower(s.localConfig().get("extensions.refstorage"))
	return v == "" || v == "files"
}

// applyGit runs the transaction through `git update-ref --stdin`. With a
// journal, a git killed mid-way (its locks still hold our ids) is settled
// at once, from the journal, as the next command would. recover lets a
// lock in the way send it to settle dead writers' journals first.
func (s *Store) applyGit(ctx context.Context, msg string, updates []Update, j *journal, recover bool) (err error) {
	if j != nil {
		defer func() {
			if j.f != nil {
				j.finish()
			}
		}()
	}
	deadline := time.Now().Add(lockWait)
	transient := 0
	gcBefore, gcBeforeOK := s.pruningGC(ctx)
	rewritten := false
	for {
		stderr, err := s.runUpdateRef(ctx, msg, updates)
		if err == nil {
			s.noteConflicts(msg, updates)
			s.committed(ctx, updates, gcBefore, gcBeforeOK)
			return nil
		}
		if j != nil && (killed(err) || s.oursLeft(j.rec)) {
			// Settled even when ctx ended (it may be what killed git):
			// the journal is dropped when Apply returns.
			_, applied, serr := s.settle(context.WithoutCancel(ctx), j.rec)
			if serr != nil {
				j.abandon()
				j.f = nil
				return fmt.Errorf("git update-ref was killed mid-way and the transaction could not be settled: %w", serr)
			}
			if applied {
				s.noteConflicts(msg, updates)
				s.committed(ctx, updates, gcBefore, gcBeforeOK)
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cerr := s.conflict(ctx, updates); cerr != nil {
			return cerr
		}
		if rerr := s.refused(ctx, updates); rerr != nil {
			if !rewritten && errors.Is(rerr, ErrMissingObject) {
				// A prune deleted a blob of ours before git could check it
				// (gcrace.go): write it again and try once more.
				rewritten = true
				if again, werr := s.rewriteMissing(ctx, updates); werr == nil && again {
					continue
				}
			}
			return rerr
		}
		lock := s.lockInTheWay(updates)
		if lock == "" {
			// Neither a lost swap nor a lock: git pack-refs removes empty
			// ref directories as git creates them, and git gives up
			// ("unable to create directory") after three tries. The
			// transaction changed nothing, so trying again is safe.
			gerr := &GitError{Args: []string{"update-ref", "--stdin"}, Stderr: stderr, Err: err}
			if uerr := unwritableRefDir(s.workDir, stderr, gerr); uerr != nil {
				return uerr // no try will do better, and git did not say why
			}
			if transient < 3 && !killed(err) {
				transient++
				time.Sleep(time.Duration(5*transient) * time.Millisecond)
				continue
			}
			return gerr
		}
		if recover {
			// A git-handoff killed mid-transaction may have left it; its
			// journal says whether to finish or drop it.
			recover = false
			s.recoverTxns(ctx)
			continue
		}
		if time.Now().After(deadline) {
			return &LockedError{Path: lock}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killed reports a git process ended by a signal: it cleaned up nothing.
func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// conflict re-reads each ref and reports the first that does not hold what
// the transaction expected.
func (s *Store) conflict(ctx context.Context, updates []Update) error {
	for _, u := range updates {
		cur, err := ResolveID(ctx, s, u.Ref)
		if err != nil && !errors.Is(err, ErrNotFound) {
			continue
		}
		if cur != u.Old {
			return &ConflictError{Ref: u.Ref, Expected: u.Old, Actual: cur}
		}
	}
	return nil
}

// refusedError is an update git refused for what it names rather than for
// a lost swap: an object the repository lacks (ErrMissingObject), or a
// name a ref of the path's other end holds (ErrBadName). ApplyEach drops
// its ref and goes on with the others.
type refusedError struct {
	ref string
	err error
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// refused re-reads what a failed transaction named, as conflict does, for
// the two refusals every ref backend makes: a new value naming an object
// the repository does not have, and a ref created where a ref of a parent
// path or below its own path exists (refs/ao/a beside refs/ao/a/b; git
// keeps refs as paths). Asked only once git refused: none of it costs a
// write that goes through.
func (s *Store) refused(ctx context.Context, updates []Update) error {
	after := make(map[string]bool, len(updates)) // ref -> exists once the updates are made
	for _, u := range updates {
		after[u.Ref] = u.New != ""
	}
	exists := func(ref string) bool {
		if v, ok := after[ref]; ok {
			return v
		}
		_, err := s.Get(ctx, ref)
		return err == nil || !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrBadName)
	}
	for _, u := range updates {
		if u.New == "" {
			continue
		}
		if _, err := s.ReadObject(ctx, u.New); errors.Is(err, ErrNotFound) {
			return &refusedError{u.Ref, fmt.Errorf("%w: %s would point at %s, which this repository does not have", ErrMissingObject, u.Ref, u.New)}
		}
		if u.Old != "" {
			continue // it exists: no other ref's path is in its way
		}
		for i := len("refs/"); i < len(u.Ref); i++ {
			if u.Ref[i] == '/' && exists(u.Ref[:i]) {
				return &refusedError{u.Ref, fmt.Errorf("%w: %s exists; cannot create %s", ErrBadName, u.Ref[:i], u.Ref)}
			}
		}
		for _, o := range updates {
			if o.New != "" && strings.HasPrefix(o.Ref, u.Ref+"/") {
				return &refusedError{u.Ref, fmt.Errorf("%w: cannot create both %s and %s", ErrBadName, u.Ref, o.Ref)}
			}
		}
		below, err := s.RefIDs(ctx, u.Ref+"/")
		if err != nil {
			continue
		}
		for _, id := range below {
			if exists(id.Ref) {
				return &refusedError{u.Ref, fmt.Errorf("%w: %s exists; cannot create %s", ErrBadName, id.Ref, u.Ref)}
			}
		}
	}
	return nil
}

// lockInTheWay names a lock file that blocks one of the refs, if any.
func (s *Store) lockInTheWay(updates []Update) string {
	for _, u := range updates {
		p := filepath.Join(s.commonDir, filepath.FromSlash(u.Ref)+".lock")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return s.BackendLock()
}

// BackendLock names a lock that stops every ref write of the repository,
// when one is there: packed-refs.lock (files) or reftable/tables.list.lock.
// git holds them for milliseconds; one that stays was left by a git that
// was killed, and git, not us, says it must be removed by hand, since only
// the user can know that no git is running.
func (s *Store) BackendLock() string {
	for _, p := range []string{"packed-refs.lock", "reftable/tables.list.lock"} {
		p = filepath.Join(s.commonDir, filepath.FromSlash(p))
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// ResolveID returns the id ref points at, or "" and ErrNotFound.
func ResolveID(ctx context.Context, r Records, ref string) (string, error) {
	e, err := r.Get(ctx, ref)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return "", err
		}
		if e.OID != "" {
			return e.OID, nil
		}
		return "", err
	}
	return e.OID, nil
}
