package refstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Layout is where a repository's parts are, as git's setup finds them from
// some directory.
type Layout struct {
	GitDir    string // this worktree's git dir, absolute
	CommonDir string // the git dir all worktrees share, absolute
	// WorkTree is the top of the worktree the directory is inside; "" in a
	// bare repository or inside a git dir.
	WorkTree string
	Bare     bool // core.bare: the repository has no worktree

	// from is where the search started: git takes a relative
	// core.hooksPath from there when there is no worktree.
	from string
	// givenGitDir is the git dir as git's setup leaves it, before its real
	// path: started at the top of a worktree whose .git is a directory,
	// git keeps ".git" and makes it absolute from $PWD, so an includeIf
	// "gitdir:" written through a symlink matches there ("" when it is
	// GitDir itself).
	givenGitDir string
}

// configDirs is what the configuration reader needs of a layout.
func (l Layout) configDirs() configDirs {
	return configDirs{gitDir: l.GitDir, givenGitDir: l.givenGitDir, commonDir: l.CommonDir}
}

// errLayoutUnknown is a setup the in-process search leaves to git:
// GIT_COMMON_DIR, ceilings, core.worktree, a git dir found without a .git
// of a repository that is not bare, ownership git would check.
var errLayoutUnknown = errors.New("repository layout not understood in process")

// Locate finds the repository containing dir as git's setup does, in
// process where it can (the .git directory or file of each directory up to
// the root, a bare git dir, GIT_DIR and GIT_WORK_TREE), otherwise through
// one git rev-parse.
func Locate(ctx context.Context, dir string) (Layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Layout{}, err
	}
	if l, err := discover(abs); err == nil {
		l.from = abs
		return l, nil
	} else if !errors.Is(err, errLayoutUnknown) {
		return Layout{}, err
	}
	return locateCLI(ctx, abs)
}

// locateCLI asks git.
func locateCLI(ctx context.Context, dir string) (Layout, error) {
	out, err := Git(ctx, dir, false, nil, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--is-bare-repository", "--is-inside-work-tree", "--show-cdup")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return Layout{}, fmt.Errorf("%w (or any of the parent directories): %s", ErrNotRepository, dir)
		}
		return Layout{}, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) < 4 {
		return Layout{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	l := Layout{GitDir: filepath.Clean(lines[0]), CommonDir: filepath.Clean(lines[1]), Bare: lines[2] == "true", from: dir}
	// The way up to the top (an empty line at the top itself), only
	// inside a worktree; git's paths are real paths, so is this one.
	if lines[3] == "true" && len(lines) == 5 {
		l.WorkTree = filepath.Join(realPath(dir), lines[4])
	}
	return l, nil
}

// discover is git's setup_git_directory for the cases it can answer.
func discover(dir string) (Layout, error) {
	for _, v := range []string{"GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY"} {
		if _, ok := os.LookupEnv(v); ok {
			return Layout{}, errLayoutUnknown
		}
	}
	if env, ok := os.LookupEnv("GIT_DIR"); ok {
		return explicitGitDir(dir, env)
	}
	if _, ok := os.LookupEnv("GIT_WORK_TREE"); ok {
		return Layout{}, errLayoutUnknown
	}
	dev := deviceOf(dir)
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		if gd, ok := gitFileOrDir(dotGit); ok {
			l, err := discovered(gd, d)
			if err == nil && d == dir && gd == dotGit && dotGit != l.GitDir {
				// dir is as filepath.Abs made it, from $PWD when that is
				// the current directory: git's own absolute path.
				l.givenGitDir = dotGit
			}
			return l, err
		}
		if isGitDir(d) {
			// dir is inside a git dir: git runs there with no worktree,
			// which only a bare repository makes simple.
			l, err := layoutOf(d, "")
			if err != nil {
				return Layout{}, err
			}
			if !l.Bare {
				return Layout{}, errLayoutUnknown
			}
			return l, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return Layout{}, fmt.Errorf("%w (or any of the parent directories): %s", ErrNotRepository, dir)
		}
		if dev != 0 && deviceOf(up) != dev {
			// git stops at a filesystem boundary; let it say so.
			return Layout{}, errLayoutUnknown
		}
		d = up
	}
}

// explicitGitDir is GIT_DIR's setup: the worktree is GIT_WORK_TREE, else
// the current directory unless the repository is bare.
func explicitGitDir(cwd, gitDir string) (Layout, error) {
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(cwd, gitDir)
	}
	gitDir = filepath.Clean(gitDir)
	if gd, ok := gitFileOrDir(gitDir); ok {
		gitDir = gd
	} else {
		return Layout{}, errLayoutUnknown // git's own message for a bad GIT_DIR
	}
	top := cwd
	if wt, ok := os.LookupEnv("GIT_WORK_TREE"); ok {
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(cwd, wt)
		}
		top = filepath.Clean(wt)
		if !within(cwd, top) {
			top = "" // outside the worktree, as rev-parse --is-inside-work-tree says
		}
		l, err := layoutOf(gitDir, top)
		l.Bare = false
		return l, err
	}
	return discovered(gitDir, top)
}

// discovered is a git dir found through dir/.git: dir is its worktree's
// top unless the repository says it is bare.
func discovered(gitDir, top string) (Layout, error) {
	l, err := layoutOf(gitDir, top)
	if err != nil {
		return Layout{}, err
	}
	if l.Bare {
		l.WorkTree = ""
	}
	return l, nil
}

// layoutOf fills in the common dir and core.bare of gitDir; top is the
// worktree's top when there is one.
func layoutOf(gitDir, top string) (Layout, error) {
	l := Layout{GitDir: realPath(gitDir), CommonDir: realPath(gitDir)}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		l.CommonDir = realPath(c)
	}
	// A linked worktree ignores the main repository's core.bare and
	// core.worktree; a repository of its own is bare when it says so and
	// moved by core.worktree, which is left to git.
	if l.CommonDir == l.GitDir {
		vals, err := fileValues(filepath.Join(l.CommonDir, "config"), "core.worktree")
		if err != nil {
			return Layout{}, errLayoutUnknown
		}
		if len(vals) > 0 {
			return Layout{}, errLayoutUnknown
		}
		bare, err := fileValues(filepath.Join(l.CommonDir, "config"), "core.bare")
		if err != nil {
			return Layout{}, errLayoutUnknown
		}
		if len(bare) > 0 {
			last := bare[len(bare)-1]
			b, err := parseBool(last.value)
			if err != nil && !last.noValue {
				return Layout{}, errLayoutUnknown
			}
			l.Bare = last.noValue || b
		}
	}
	if top != "" && !l.Bare {
		real := realPath(top)
		// git refuses a repository someone else owns unless
		// safe.directory allows it; that is git's to judge.
		if !ownedByMe(real) {
			return Layout{}, errLayoutUnknown
		}
		l.WorkTree = real
	} else if !ownedByMe(l.GitDir) {
		return Layout{}, errLayoutUnknown
	}
	return l, nil
}

// gitFileOrDir reads path as a .git entry: a git directory, or a file
// "gitdir: <path>" (linked worktrees, submodules) naming one.
func gitFileOrDir(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return path, isGitDir(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
	if !ok {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return filepath.Clean(target), isGitDir(target)
}

// isGitDir is git's is_git_directory: a HEAD that reads as a ref or an id,
// and objects/ and refs/ (in the common dir for a linked worktree).
func isGitDir(dir string) bool {
	head, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil {
		return false
	}
	h := strings.TrimSpace(string(head))
	if t, ok := strings.CutPrefix(h, "ref:"); ok {
		if !strings.HasPrefix(strings.TrimSpace(t), "refs/") {
			return false
		}
	} else if !isHexID(h) {
		return false
	}
	common := dir
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		common = c
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func deviceOf(p string) uint64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}

func ownedByMe(p string) bool {
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// HooksDir is where git looks for this layout's hooks (git rev-parse
// --git-path hooks): core.hooksPath with ~ expanded, a relative one from
// the worktree's top (the git dir where there is none); else the common
// dir's hooks.
func (l Layout) HooksDir() (string, error) {
	entries, err := readConfig(l.configDirs())
	if err != nil {
		return "", err
	}
	hp := ""
	for _, e := range entries {
		if e.name == "core.hookspath" {
			if e.noValue {
				return "", errConfigUnknown
			}
			hp = e.value
		}
	}
	if hp == "" {
		return filepath.Join(l.CommonDir, "hooks"), nil
	}
	p, err := expandPath(hp, os.LookupEnv)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		base := l.WorkTree
		if base == "" {
			base = realPath(l.from)
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// HooksDir is where git looks for dir's repository's hooks, in process
// where it can, else through git rev-parse.
func HooksDir(ctx context.Context, dir string, l Layout) (string, error) {
	h, err := l.HooksDir()
	if err == nil {
		return h, nil
	}
	out, err := Git(ctx, dir, false, nil, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	return filepath.Clean(strings.TrimSpace(string(out))), nil
}
