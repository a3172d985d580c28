// Package refstore is the only code that touches refs and objects. Records
// are JSON blobs, each pointed at directly by one ref under refs/ao/. Every
// read and write goes through git's own programs, batched (one rev-parse
// and one config listing per Store, a long-lived cat-file for single reads,
// for-each-ref for listings, a long-lived update-ref --stdin for every ref
// write), so that git's locks, reflogs, ref backends (files, reftable) and
// object formats (SHA-1, SHA-256) apply as git applies them.
package refstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

var (
	// ErrNotFound is returned when a ref does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a compare-and-swap lost: some ref did not
	// hold the expected value. Errors wrapping it are *ConflictError.
	ErrConflict = errors.New("conflict")
	// ErrNotRepository is returned by Open outside a git repository.
	ErrNotRepository = errors.New("not a git repository")
)

// ZeroID is git's id for "no object" in a SHA-1 repository; zeroID gives
// the one of the repository at hand.
const ZeroID = "0000000000000000000000000000000000000000"

// zeroSHA256 is the id for "no object" in a SHA-256 repository.
const zeroSHA256 = ZeroID + "000000000000000000000000"

// zeroID is "no object" in this repository's object format: git refuses
// a SHA-1 length id in a SHA-256 repository (found running end there).
func (s *Store) zeroID() string {
	if s.layout.objectFormat == "sha256" {
		return zeroSHA256
	}
	return ZeroID
}

// isZeroID reports whether id is "no object" in either format.
func isZeroID(id string) bool {
	return id == ZeroID || id == zeroSHA256
}

// Entry is one ref and the blob it points at.
type Entry struct {
	Ref  string
	OID  string
	Type string // object type; records are "blob"
	Size int64
	Data []byte // nil when Size > MaxRecord
}

// Store is a repository seen as a record store. A Store is for one
// goroutine at a time; open one per goroutine. It is made for one command
// (or one request of a server).
type Store struct {
	workDir   string // where git commands run
	gitDir    string // this worktree's git dir
	layout    Layout // as found from workDir (Layout)
	commonDir string // shared by all worktrees: refs, objects, logs
	bare      bool
	// startDir is the directory Open was given, absolute as $PWD names it:
	// git asked for configuration runs there, as the user's own git does,
	// which can see a different includeIf "gitdir:" than the top's real
	// path (Layout.givenGitDir).
	startDir string

	mu      sync.Mutex
	batcher *catFile   // for CLI reads of single objects, started on demand
	refw    *refWriter // every ref write (refwriter.go), started on demand
	// refAhead is the update-ref WriteRefsAhead started, until a
	// transaction under its message takes it.
	refAhead *refWriter
	blobw    *blobWriter // every blob write (blobwriter.go), started on demand

	sharedOnce sync.Once
	shared     int // core.sharedRepository, as parseSharedPerm reads it

	recovered []string // what Open found of killed transactions and did
	sig       signing  // the signing setup and verifications (signing.go)

	bindGuard BindGuard // runs every Bind when set (GuardBindings)

	logAhead *logAhead // the git log LogAhead started, until Log takes it

	// held are the objects this Store wrote that no committed transaction
	// has named yet, by id, oldest first in heldOrder (gcrace.go).
	held      map[string]heldObject
	heldOrder []string
	heldBytes int

	cfg        configList // the configuration as git lists it (gitconfig.go)
	cfgRead    bool
	cfgPending chan configResult // the listing Open started, until taken
	cfgStamp   [2]fileStamp      // the config files when cfg was listed
	openStamp  [2]fileStamp      // the config files when Open started cfgPending

}

// Options tune Open. The zero value is right for the command.
type Options struct {
	// Lazy starts no git beside Open's rev-parse: the configuration is
	// listed, and cat-file started, when first asked for. For a process
	// that will most likely ask neither (an agent's pre-tool hook, which
	// read its records through ListContents before it opened the Store,
	// and reads a note or two): two git processes fewer for it, a git
	// start later for one that does ask.
	Lazy bool
	// ReadLater starts cat-file at the first read instead of beside
	// rev-parse: for a command that most likely reads no object (a sync
	// with nothing new, which compares ref listings and is done). Started
	// beside rev-parse, its start competes with the two that Open waits
	// for, and its end with the command's own.
	ReadLater bool
}

// Open finds the repository containing dir. It settles what a killed
// git-handoff left of a multi-ref transaction (Recovered says what it did).
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	s, err := open(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	s.recoverTxns(ctx)
	return s, nil
}

func open(ctx context.Context, dir string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{workDir: abs, startDir: abs}
	if opts.Lazy {
		if _, err := s.locate(ctx); err != nil {
			return nil, err
		}
		return s, nil
	}
	s.prefetchConfig()
	// cat-file starts beside rev-parse and the config listing, where they
	// run: the same git setup from the same directory finds the same
	// repository, and every read names a ref or an id, not a path of the
	// working directory. Ready by the first read. What it says goes to
	// stderr only once rev-parse found the repository.
	held := &heldWriter{}
	if opts.ReadLater {
		// started by the first read (catFile)
	} else if b, err := startCatFile(abs, held); err == nil {
		s.batcher = b
	}
	fromGitDir, err := s.locate(ctx)
	if err != nil {
		held.drop()
		s.Close()
		return nil, err
	}
	held.release(os.Stderr)
	if fromGitDir {
		// Opened inside the git dir, where git sees no worktree: the
		// Store's git runs at the top of the worktree instead.
		s.mu.Lock()
		b := s.batcher
		s.batcher = nil
		s.mu.Unlock()
		if b != nil {
			b.close()
		}
		s.catFile(ctx)
	}
	// The config files as the prefetched listing (about) saw them.
	s.openStamp = s.configStamp()
	return s, nil
}

// locate finds the repository's git dirs and worktree (Locate);
// fromGitDir says it was asked from inside the git dir of a repository
// with a worktree, where the Store's git commands do not run.
func (s *Store) locate(ctx context.Context) (fromGitDir bool, err error) {
	l, err := Locate(ctx, s.workDir)
	if err != nil {
		return false, err
	}
	if l.WorkTree == "" && !l.Bare {
		// Inside the git dir of a repository with a worktree: git says
		// where the worktree is (or that there is none to run in).
		top, err := Git(ctx, s.workDir, false, nil, "rev-parse", "--show-toplevel")
		if err != nil {
			return false, err
		}
		l.WorkTree = strings.TrimSpace(string(top))
		fromGitDir = true
	}
	s.gitDir, s.commonDir, s.bare = l.GitDir, l.CommonDir, l.Bare
	if s.bare {
		s.workDir = s.gitDir
	} else {
		s.workDir = l.WorkTree
	}
	s.layout = l
	if s.workDir != s.startDir {
		// git takes a relative core.hooksPath from where it runs: ask
		// again from the directory the Store's git commands run in.
		s.layout.hooks = ""
	}
	return fromGitDir, nil
}

// Close ends any git processes the store started.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.batcher != nil {
		err = s.batcher.close()
		s.batcher = nil
	}
	if s.refw != nil {
		if e := s.refw.close(); err == nil {
			err = e
		}
		s.refw = nil
	}
	if s.refAhead != nil {
		s.refAhead.abandon()
		s.refAhead = nil
	}
	if s.blobw != nil {
		if e := s.blobw.close(); err == nil {
			err = e
		}
		s.blobw = nil
	}
	return err
}

// Dir is where git commands for this repository run.
func (s *Store) Dir() string { return s.workDir }

// Layout is the repository's layout as Locate finds it from Dir.
func (s *Store) Layout() Layout { return s.layout }

// GitDir is this worktree's git directory.
func (s *Store) GitDir() string { return s.gitDir }

// CommonDir is the git directory shared by all worktrees.
func (s *Store) CommonDir() string { return s.commonDir }

// Bare reports whether the repository has no worktree.
func (s *Store) Bare() bool { return s.bare }

// Get reads the record at ref. It returns ErrNotFound when ref does not
// exist, and ErrBadName for a name CheckRef refuses (cat-file would read
// one as a revision: a reflog entry, a path in a tree).
func (s *Store) Get(ctx context.Context, ref string) (Entry, error) {
	if err := CheckRef(ref); err != nil {
		return Entry{Ref: ref}, err
	}
	b, err := s.catFile(ctx)
	if err != nil {
		return Entry{Ref: ref}, err
	}
	e, err := b.read(ref)
	e.Ref = ref
	return e, err
}

// WriteBlob stores data as a blob and returns its id. The Store keeps a
// copy until a transaction that names the blob commits, to write it again
// if git gc deletes it in between (gcrace.go).
func (s *Store) WriteBlob(ctx context.Context, data []byte) (string, error) {
	if len(data) > MaxRecord {
		return "", fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), MaxRecord)
	}
	id, err := s.writeBlob(ctx, data)
	if err == nil {
		s.holdBlob(id, data)
	}
	return id, err
}

func (s *Store) writeBlob(ctx context.Context, data []byte) (string, error) {
	if id, ok, err := s.writeBlobBatched(ctx, data); ok || err != nil {
		return id, err
	}
	return s.writeGitBlob(ctx, data)
}

// writeGitBlob writes a blob through git hash-object, which makes the
// object as git makes every object (its format, compression, permissions
// in a shared repository, fsync settings).
func (s *Store) writeGitBlob(ctx context.Context, data []byte) (string, error) {
	out, err := Git(ctx, s.workDir, false, data, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ReadObject reads an object by id, for history: reflogs name ids whose refs
// have since moved on. Anything but a full id of the repository's format
// (a ref, an abbreviated id, a revision) is ErrNotFound: cat-file would
// resolve it.
func (s *Store) ReadObject(ctx context.Context, oid string) (Entry, error) {
	if !IsID(oid, HexLen(s.layout.objectFormat)) {
		return Entry{OID: oid}, fmt.Errorf("%s: %w (not an object id)", oid, ErrNotFound)
	}
	b, err := s.catFile(ctx)
	if err != nil {
		return Entry{}, err
	}
	e, err := b.read(oid)
	e.OID = oid
	return e, err
}

// ReadPath reads the object at path inside the tree treeish names (a ref
// such as refs/ao/archive/2026-01, or a full object id) through the
// store's cat-file, as `git cat-file -p <treeish>:<path>` does: the
// archive's reads (package archive). It returns ErrNotFound when the ref,
// the tree or the path is missing, and ErrBadName for a treeish that is
// neither a ref CheckRef accepts nor an id, or a path that is not plain
// (cat-file would read "./x" or "../x" relative to the working directory,
// and "a//b" or a leading or trailing '/' as something else).
func (s *Store) ReadPath(ctx context.Context, treeish, path string) (Entry, error) {
	rev := treeish + ":" + path
	if !IsID(treeish, HexLen(s.layout.objectFormat)) {
		if err := CheckRef(treeish); err != nil {
			return Entry{Ref: rev}, err
		}
	}
	if err := checkTreePath(path); err != nil {
		return Entry{Ref: rev}, err
	}
	b, err := s.catFile(ctx)
	if err != nil {
		return Entry{Ref: rev}, err
	}
	e, err := b.read(rev)
	e.Ref = rev
	return e, err
}

// checkTreePath refuses a path in a tree that cat-file would not read
// literally: empty components, "." and "..", control characters.
func checkTreePath(path string) error {
	if path == "" {
		return fmt.Errorf("%w: empty path", ErrBadName)
	}
	for _, c := range strings.Split(path, "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("%w: path %q has an empty, \".\" or \"..\" component", ErrBadName, path)
		}
		for i := 0; i < len(c); i++ {
			if c[i] < 0x20 || c[i] == 0x7f {
				return fmt.Errorf("%w: path %q has a control character", ErrBadName, path)
			}
		}
	}
	return nil
}
