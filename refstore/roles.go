package refstore

import (
	"context"
	"time"

	"github.com/git-handoff/git-handoff/sign"
)

// The roles a workflow depends on, each named for what it holds. A
// workflow asks for the few it uses (Records and Writer most of all),
// never for the whole *Store: *Store is their git implementation, package
// memstore their in-memory twin, and recordstest holds both to one suite.

// NoteReader reads notes of a Local: all a reader that opened no Store
// (NotesIn) can do with them.
type NoteReader interface {
	// Read returns the note's bytes: an error wrapping fs.ErrNotExist
	// when there is none.
	Read(name string) ([]byte, error)
}

// Local is what one clone keeps outside refs, under .git/handoff/: state
// no teammate needs (local.go lists every kind, its format, its writer,
// its crash recovery and when it goes). A name is a slash-separated path
// below that directory ("issued/<hash>", "writer").
type Local interface {
	NoteReader
	// Write replaces the note whole (a reader sees the old bytes or the
	// new, never a part), making its directory as needed.
	Write(ctx context.Context, name string, data []byte) error
	// Remove deletes the note; a missing note is no error.
	Remove(name string) error
	// Rename moves a note to another name, replacing any there: of two
	// renames of one note, exactly one succeeds (the other finds it
	// gone: fs.ErrNotExist).
	Rename(from, to string) error
	// List names the notes directly in dir, sorted; none when dir is absent.
	List(dir string) ([]string, error)
	// Lock holds an exclusive lock named name across the clone's
	// processes until the returned func is called.
	Lock(ctx context.Context, name string) (unlock func(), err error)
	// Path is where the note is, for a note handed to another program
	// by its path (the whole brief an agent is told to read).
	Path(name string) string
}

// Config is the repository's configuration as git reads it.
type Config interface {
	// Config returns the value of each key that is set (the last value
	// of a multi-valued key).
	Config(ctx context.Context, keys ...string) (map[string]string, error)
	// PersonConfig is Config for the keys that say who the person is,
	// read the same whichever agent's shell narrowed git's view of the
	// user's configuration (gitconfig.go says how and why).
	PersonConfig(ctx context.Context, keys ...string) (map[string]string, error)
	// ConfigValues returns every value of a multi-valued key, in order.
	ConfigValues(ctx context.Context, key string) ([]string, error)
	// Remotes lists the configured remotes, in config order.
	Remotes(ctx context.Context) ([]string, error)
	// RemoteConfigs lists the remotes with their url and fetch refspecs.
	RemoteConfigs(ctx context.Context) ([]RemoteConfig, error)
	// SetConfig, AddConfig and UnsetConfigValue change the repository's
	// own configuration (sync settles handoff.arbiter and the refspecs).
	SetConfig(ctx context.Context, key, value string) error
	AddConfig(ctx context.Context, key, value string) error
	UnsetConfigValue(ctx context.Context, key, value string) error
}

// Signer seals the records this clone writes as handoff.sign says, and
// checks the seals of records others wrote.
type Signer interface {
	// Seal returns the bytes to store for an encoded record: data itself
	// when signing is off.
	Seal(ctx context.Context, data []byte) ([]byte, error)
	// Verify checks the record blob oid against owner; what cannot be
	// checked is unverified, with the reason. It never fails.
	Verify(ctx context.Context, oid, owner string) sign.Result
	// Signing is the signing setup itself, for a report of it.
	Signing(ctx context.Context) (sign.Config, error)
}

// Writer is what writing a new version of a record needs (WriteVersion):
// the records, the clone's own notes (its writer id and the counts it
// issued), which remotes' copies the causal clock reads, and the signer.
type Writer interface {
	Records
	Config
	Signer
	Local() Local
}

var _ Writer = (*Store)(nil)

// Worktree is the working tree a command runs in and the history it
// stands on: where it is, its HEAD, the session bound to it, whether it
// changed, its commits.
type Worktree interface {
	// Dir is where the worktree is (the git dir of a bare repository).
	Dir() string
	// WorktreeLocal is what this worktree alone keeps outside refs
	// (under its own git dir): the agent hooks' notes (local.go).
	WorktreeLocal() Local
	Bare() bool
	Head(ctx context.Context) (Head, error)
	// BoundSession is the id of the session this worktree is bound to
	// ("" for none); Bind (of a session ref) and Unbind move the binding
	// (refs/worktree/ao/session).
	BoundSession() (string, error)
	Bind(sessionRef string) error
	Unbind(ctx context.Context) error
	// UnbindFrom unbinds the worktree only while it is bound to session.
	UnbindFrom(ctx context.Context, msg, session string) (bool, error)
	// WorktreeChangedSince reports whether a file of the worktree (outside
	// the directories skip names) changed after since (Unix nanoseconds).
	WorktreeChangedSince(ctx context.Context, since int64, skip ...string) (bool, error)
	// WorktreeDigest names the state of the index and worktree.
	WorktreeDigest(ctx context.Context) (string, error)
	// Log lists the commits reachable from from and not from since.
	Log(ctx context.Context, from, since string, limit int) (commits []Commit, total int, err error)
	// IsAncestor reports whether commit a is an ancestor of commit b.
	IsAncestor(ctx context.Context, a, b string) (bool, error)
	// CommitTime is a commit's committer date.
	CommitTime(ctx context.Context, id string) (time.Time, error)
	// RemoteTracking names a remote-tracking branch that contains commit
	// ("" for none): the commit was pushed.
	RemoteTracking(ctx context.Context, commit string) (string, error)
	// TrailerLog lists branch's commits that carry trailer key.
	TrailerLog(ctx context.Context, branch, key string, limit int) ([]TrailerCommit, error)
	// HasWorktree reports whether the directory of a worktree at dir is
	// there (a session's worktree may have been deleted).
	HasWorktree(dir string) bool
	// AddWorktree re-creates a linked worktree at path on branch.
	AddWorktree(ctx context.Context, path, branch string) error
	// OpenWorktree opens another worktree of the same repository (nil
	// when dir is none of them); done releases it.
	OpenWorktree(ctx context.Context, dir string) (wt Clone, done func(), err error)
}

// Snapshots keep uncommitted work as commits under refs/ao/snapshots/.
type Snapshots interface {
	TakeSnapshot(ctx context.Context, id string) (Snapshot, error)
	FindSnapshot(ctx context.Context, id string) (Snapshot, error)
	ApplySnapshot(ctx context.Context, snap Snapshot) (Applied, error)
	SnapshotPresent(ctx context.Context, snap Snapshot) (bool, error)
	SnapshotRefs(ctx context.Context, prefix string) (map[string]string, error)
}

// Remote is how this clone reaches the remotes: fetch their records into
// tracking refs, push with leases, ask what they hold.
type Remote interface {
	Fetch(ctx context.Context, remote string, prune bool, refspecs ...string) error
	Push(ctx context.Context, remote string, updates []Update, opts PushOptions) error
	PushMatching(ctx context.Context, remote string, prefixes []string, opts PushOptions) error
	RemoteIDs(ctx context.Context, remote string, refspecs ...string) (map[string]string, error)
	UpToDate(ctx context.Context, remote string, refspecs ...string) (bool, error)
	// DropStaleLocks removes what a killed fetch left locked under the
	// tracking prefix (refs/ao/remotes/<remote>/), returning how many.
	DropStaleLocks(prefix string) int
}

// Clone is every role of one clone's worktree, for the workflows at the
// top (start, end, sync) that pass them on to the steps that need each.
// Steps take the narrowest role they use.
type Clone interface {
	Writer
	Trees
	Worktree
	Snapshots
	Remote
}

var _ Clone = (*Store)(nil)
