package refstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// LocalRoot is the directory under the common git dir (Local) and under
// each worktree's git dir (WorktreeLocal) that holds git-handoff's local
// state: what no teammate and no later session elsewhere needs. Team state
// is in refs. Every kind kept there, in one list:
//
// The clone's (Store.Local, <common dir>/handoff/):
//
//   - writer: this clone's id in version vectors, one line, written once
//     by the first writer under a lock (WriterID); never deleted. Not a
//     ref: a teammate fetching it would write as this clone.
//   - marks/<xx>, marks/<x>.lock: the highest vector count this clone
//     issued for each ref it wrote (issued.go), a line "<hash of ref>
//     <count>" each, in the one of 256 files the hash picks, rewritten
//     whole under the flock of its first digit by each version written
//     (NextCause); a crash leaves the old mark, which is safe (a lower
//     mark only makes the next count come from the versions seen); kept.
//     issued/<hash of ref>,
//     a file per ref as earlier releases kept them, is read too and
//     folded into marks/ by the next sync, which removes it.
//   - conflicts, conflicts.1: JSON lines, one per local write that dropped
//     a version of ours for a teammate's in the join (Store.Apply, noted
//     after the swap); appended whole lines, a torn last line is skipped;
//     rotated at 1 MiB, so at most twice that. For `git handoff log`.
//   - conflicts.d/<hash>: a conflict noted apart from the write that
//     settled it (NoteConflict: a tie decided at the arbiter by a process
//     killed before it heard), one JSON line each; kept, like the lines.
//   - heal/<hash of ref>: "<ref> <object>", a ref of a remote naming an
//     object the remote lost, being deleted there and pushed back or marked
//     lost (teamsync/lost.go); written before the deletion, removed after
//     the push; a crash leaves it for the next sync, which finishes it.
//   - ties/<hash>: a tie about to be decided at the arbiter (teamsync/
//     ties.go), JSON, written before the push and removed once its fate is
//     known; a crash leaves it for the next sync, which notes the conflict
//     if the push landed.
//   - txn/slot-<n>.journal: the git adapter's journal of a multi-ref
//     transaction in flight (txn.go), settled by the next Open after a
//     crash; the slots stay, empty.
//   - tmp/: the git adapter's blob writer's scratch files (blobwriter.go),
//     removed after each use.
//   - pending/<baton>~<session>[~<taker>]: a claim pushed to the arbiter
//     and not yet recorded here (handoff/pending.go), JSON, written before
//     the push and removed once the claim is recorded, lost or void; a
//     crash leaves it for the next start, which settles it (the only way
//     such a claim reaches its session). Per clone, not a ref: it names a
//     process of this machine.
//   - unrecorded/<baton>: a cancel or dismissal the arbiter took whose
//     local swap failed (handoff/unrecorded.go), JSON with the tombstone's
//     blob, written after that failure and removed once the next start,
//     claim, sync or writing command has recorded it (or found the ref
//     moved on); the clone's only record of the deletion once a fetch
//     replaces the tracking ref. A lost note only leaves the recording to
//     a sync that finds the tombstone at the remote, as before.
//   - claims/<nn>.lock: the locks under which this clone's processes
//     decide on one baton one at a time (handoff/pending.go, batonLock),
//     64 of them, a baton's chosen by a hash of its id; flock, so a killed
//     holder leaves none; the files stay, empty.
//   - briefs/<session>.md: the whole brief for a launched agent to read
//     (handoff/session.go), rewritten at each launch; plain text.
//   - launch/: tmux launch files (tmuxrt), each removed by the launcher
//     that reads it.
//   - merged, fetched: what the last merge of fetched copies saw, and the
//     time of the last fetch of ours (teamsync/lazy.go); rewritten whole;
//     a lost note only costs one more merge.
//   - retirement/<remote>: when this clone last judged every record for
//     retirement with remote (teamsync/retire.go); a lost note only
//     judges sooner. (retired/<remote>, its name in releases that kept
//     final records live for a while, is left as it is.)
//   - retirement-here: when this clone, with no remote, last retired what
//     is final (teamsync/here.go), RFC 3339; a lost note only retires
//     sooner.
//   - seen/<remote>: what remote held after the last sync (teamsync/
//     seen.go), the guard that tells a record the remote dropped from one
//     never pushed; a lost note loses the guard, never a record.
//   - hooks/: the shims of hooks installed in git's config (hooks/), kept
//     while the hooks are installed.
//   - limited/<owner>.json: the agents that reported a usage limit for
//     owner, each with when it resets (handoff/limited.go), JSON, rewritten
//     whole under the lock limited.lock; entries past their reset are
//     dropped at the next write; a torn note only forgets limits.
//
// This worktree's (Store.WorktreeLocal, <git dir>/handoff/), the agent
// hooks' notes, per worktree because what they compare (HEAD, the working
// tree) is per worktree (handoff/agent.go, handover.go):
//
//   - agent/session/<id>.json: the session's state as its hooks saw it
//     (where the working tree started, what was delivered); rewritten whole.
//   - agent/native/<agent>.<agent's id>: the session of an agent's own id.
//   - agent/brief/<id>.md: a brief too long for the agent's context.
//   - agent/handover/<id>: a handover due (the session ended and its
//     automatic handoff is still to write); removed once written, and
//     finished by the next start when the process writing it was killed.
//   - agent/hooks.lock: the lock that serialises one worktree's hooks.
//
// A temp file of a write a crash left behind (*.tmp) is never listed and
// is removed by the next listing of its directory after an hour.
const LocalRoot = "handoff"

// localDir is the git adapter's Local: files under <common dir>/handoff,
// written as git writes its own files there (temp file, the repository's
// shared permissions, rename), locked with flock.
type localDir struct {
	s    *Store
	root string
}

// Local is the clone's own state outside refs (roles.go).
func (s *Store) Local() Local { return localDir{s: s, root: filepath.Join(s.commonDir, LocalRoot)} }

// WorktreeLocal is this worktree's own state outside refs (roles.go).
func (s *Store) WorktreeLocal() Local {
	return localDir{s: s, root: filepath.Join(s.gitDir, LocalRoot)}
}

func (l localDir) Path(name string) string { return l.path(name) }

func (l localDir) path(name string) string {
	return filepath.Join(l.root, filepath.FromSlash(name))
}

func (l localDir) Read(name string) ([]byte, error) { return os.ReadFile(l.path(name)) }

func (l localDir) Write(ctx context.Context, name string, data []byte) error {
	return l.s.WriteNote(ctx, l.path(name), data)
}

func (l localDir) Remove(name string) error {
	if err := os.Remove(l.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (l localDir) Rename(from, to string) error { return os.Rename(l.path(from), l.path(to)) }

// staleTemp is how old a temp file of a write must be to be a killed
// writer's leftover, removed by the next listing of its directory.
const staleTemp = time.Hour

func (l localDir) List(dir string) ([]string, error) {
	ents, err := os.ReadDir(l.path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), ".tmp"):
			// Half a note from a process killed while writing it.
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTemp {
				os.Remove(filepath.Join(l.path(dir), e.Name()))
			}
		default:
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func (l localDir) Lock(ctx context.Context, name string) (func(), error) {
	return l.s.LockNote(ctx, l.path(name))
}
