package refstore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Peeking: what a hook that runs before each of an agent's writes may
// learn of a repository from its files, without starting git. Everywhere
// else git is asked (Locate, ListContents); this is the one exception,
// for answers that must cost no process in the common case (issue 37: the
// pre-tool hook adds at most 10 ms to a write with nothing leased). It is
// conservative: every answer is either certain or "ask git", never a
// guess, and anything unusual (git's environment variables, a reftable, a
// ref storage named in the config, a .git that is not a plain repository)
// is "ask git".
//
// The layout read is git's own (gitrepository-layout(5)): a worktree's
// .git is its git dir, or a file "gitdir: PATH" naming it; a git dir with
// a commondir file shares the repository (refs, objects, config) of the
// directory that file names, relative to the git dir. Shared refs live in
// the common dir, loose under refs/ or in packed-refs; per-worktree refs
// (refs/worktree/...) in each git dir, and git packs none of them, nor
// any symbolic ref.

// Peeked is a repository found from its files.
type Peeked struct {
	// GitDir is the worktree's git dir, CommonDir the one every worktree
	// shares; both "" when no repository contains the directory.
	GitDir, CommonDir string
	// files: the refs are certainly in files (filesOnly), read once.
	files bool
}

// peekEnv are the variables with which git finds (or reads) a repository
// otherwise than by walking up from the working directory.
var peekEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
	"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_NAMESPACE", "GIT_REFERENCE_BACKEND",
}

// Peek finds the repository containing dir as git's discovery would,
// from the files alone: up from dir's real path, the first directory with
// a .git (a directory, or a file naming the git dir). ok is false
// whenever git might answer otherwise (the environment names a
// repository or bounds the search, a .git that is not a whole git dir, a
// directory that looks like a bare repository or a git dir itself, a
// filesystem boundary): then ask git. ok with a zero Peeked: certainly no
// repository contains dir.
func Peek(dir string) (p Peeked, ok bool) {
	for _, k := range peekEnv {
		if _, set := os.LookupEnv(k); set {
			return Peeked{}, false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Peeked{}, false
	}
	// git walks up from getcwd, a real path: /tmp/link/sub's parent is
	// the link target's.
	d, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Peeked{}, false
	}
	for {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return peekGitDir(dotgit)
		case err == nil && fi.Mode().IsRegular():
			return peekGitFile(d, dotgit)
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return Peeked{}, false
		}
		if looksLikeGitDir(d) {
			return Peeked{}, false // bare, or inside a git dir: git's setup differs
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Peeked{}, true
		}
		if same, known := sameDevice(d, parent); !same || !known {
			return Peeked{}, false // git stops at a filesystem boundary unless told otherwise
		}
		d = parent
	}
}

// peekGitFile reads a .git file ("gitdir: PATH", PATH relative to the
// directory holding the file): a linked worktree's or a submodule's.
func peekGitFile(worktree, dotgit string) (Peeked, bool) {
	b, err := readSmall(dotgit)
	if err != nil {
		return Peeked{}, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	path, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || path == "" {
		return Peeked{}, false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(worktree, path)
	}
	return peekGitDir(filepath.Clean(path))
}

// peekGitDir finds gitDir's common dir (its commondir file, relative to
// gitDir) and checks that both are what git takes for a repository.
func peekGitDir(gitDir string) (Peeked, bool) {
	common := gitDir
	b, err := readSmall(filepath.Join(gitDir, "commondir"))
	switch {
	case err == nil:
		c := strings.TrimRight(strings.SplitN(string(b), "\n", 2)[0], "\r")
		if c == "" {
			return Peeked{}, false
		}
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	case !errors.Is(err, fs.ErrNotExist):
		return Peeked{}, false
	}
	if !isFile(filepath.Join(gitDir, "HEAD")) || !looksLikeGitDir(common) {
		return Peeked{}, false
	}
	return Peeked{GitDir: gitDir, CommonDir: common, files: filesOnly(common)}, true
}

// looksLikeGitDir: a HEAD file, an objects directory and a refs
// directory, the test git's discovery makes of a candidate.
func looksLikeGitDir(d string) bool {
	return isFile(filepath.Join(d, "HEAD")) && isDir(filepath.Join(d, "objects")) && isDir(filepath.Join(d, "refs"))
}

// filesOnly reports whether the repository at the common dir common
// certainly keeps its refs in files (refs/ and packed-refs): no reftable
// directory, and no ref storage named in its config file (git >= 2.45
// names reftable there, and a later backend would be named there too).
// Store.filesBackend asks git's reading of the config instead.
func filesOnly(common string) bool {
	if _, err := os.Lstat(filepath.Join(common, "reftable")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	cfg, err := os.ReadFile(filepath.Join(common, "config"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return !bytes.Contains(bytes.ToLower(cfg), []byte("refstorage"))
}

// MayHold reports whether a ref under prefix (refs/.../, a shared ref) may
// exist in the repository: false only when none certainly does (no
// repository at all; or the files backend, no loose ref or directory at
// prefix, and no packed-refs line naming a ref under it). In a reftable,
// or in any doubt, true: ask git.
//
// The git commit hook's shim makes the same test in sh before it starts
// git-handoff for a path lease (leased() in hooks/shim.go); the two are
// kept alike.
func (p Peeked) MayHold(prefix string) bool {
	if p.GitDir == "" {
		return false
	}
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") || !p.files {
		return true
	}
	loose := filepath.Join(p.CommonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	if _, err := os.Lstat(loose); !errors.Is(err, fs.ErrNotExist) {
		return true // a directory of loose refs (maybe empty: git asks), or in doubt
	}
	packed, err := os.ReadFile(filepath.Join(p.CommonDir, "packed-refs"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	// Each ref is a line "<id> <name>"; a peeled line ("^<id>") names none.
	return bytes.Contains(packed, []byte(" "+prefix))
}

// BoundSession is the session this worktree's binding names, read from
// its file (WorktreeSession in the git dir, a symbolic ref, which git
// never packs): "" for none. known is false unless the files certainly
// say (the files backend; a file git wrote as a symbolic ref or a plain
// one).
func (p Peeked) BoundSession() (id string, known bool) {
	if !p.files {
		return "", false
	}
	b, err := readSmall(filepath.Join(p.GitDir, filepath.FromSlash(WorktreeSession)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", true
	}
	if err != nil {
		return "", false
	}
	line := strings.TrimRight(strings.SplitN(string(b), "\n", 2)[0], "\r")
	target, symbolic := strings.CutPrefix(line, "ref: ")
	if !symbolic {
		return "", true // not a binding (as symbolic-ref -q sees a plain ref)
	}
	id, err = sessionOfBinding(target)
	return id, err == nil
}

// NotesIn reads the notes git-handoff keeps under the git dir gitDir
// (LocalRoot): a Store's Local for a common dir, its WorktreeLocal for a
// worktree's git dir, for a reader that opened no Store.
func NotesIn(gitDir string) NoteReader { return noteFiles(filepath.Join(gitDir, LocalRoot)) }

type noteFiles string

func (n noteFiles) Read(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(string(n), filepath.FromSlash(name)))
}

// readSmall reads a file git keeps to a line (.git, commondir, a ref),
// refusing one too large to be such.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 4097)
	n, err := f.Read(b)
	if n == len(b) {
		return nil, errors.New(path + ": too large")
	}
	if n > 0 {
		return b[:n], nil
	}
	return nil, err
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// sameDevice reports whether a and b are on one filesystem (known false
// when either cannot be read).
func sameDevice(a, b string) (same, known bool) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, false
	}
	sa, ok := fa.Sys().(*syscall.Stat_t)
	sb, ok2 := fb.Sys().(*syscall.Stat_t)
	if !ok || !ok2 {
		return false, false
	}
	return sa.Dev == sb.Dev, true
}
