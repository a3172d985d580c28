package hooks

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// State is what Check found at one hook's path.
type State string

const (
	StateInstalled     State = "installed"      // our current shim, executable
	StateMissing       State = "missing"        // no hook at all
	StateStale         State = "stale"          // our shim, from another version
	StateNotExecutable State = "not-executable" // our shim, but git would skip it
	StateForeign       State = "foreign"        // someone else's hook; ours is not installed
	// StateIdle: prepare-commit-msg is not installed because no worktree is
	// bound to a session (see Refresh); any hook of the user's there runs
	// alone, as it should.
	StateIdle State = "idle"
)

// Status is Check's finding for one hook.
type Status struct {
	Name  string
	Path  string
	State State
	// Chained is the user's hook our shim runs first, if there is one;
	// ChainedExecutable is false when git (and so the shim) would skip it.
	Chained           string
	ChainedExecutable bool
	// Note explains an idle prepare-commit-msg, or one that is missing
	// while a session is bound.
	Note string
}

// OK reports whether the hook is installed and current, or idle.
func (s Status) OK() bool { return s.State == StateInstalled || s.State == StateIdle }

// Check reports the state of each of our hooks in repoDir's hooks
// directory, in Names order. Where our other hooks are installed, a
// prepare-commit-msg that is not ours (missing, or the user's own, chaining
// nothing) is StateIdle when nothing arms it (see Refresh), and missing or
// foreign, with a Note, when something does. Check never changes anything.
func Check(ctx context.Context, repoDir string) ([]Status, error) {
	l, err := locate(ctx, repoDir)
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, name := range Names() {
		st, err := checkOne(l.hooks, name)
		if err != nil {
			return out, err
		}
		out = append(out, st)
	}
	pcm := &out[0] // Names() starts with PrepareCommitMsg
	if _, installed := installedCommand(l.hooks); installed &&
		(pcm.State == StateMissing || pcm.State == StateForeign && pcm.Chained == "") {
		want, why, err := commitHookWanted(ctx, repoDir, l)
		if want {
			pcm.Note = why + ": run `git handoff hooks install`"
		} else {
			pcm.State, pcm.Note = StateIdle, idleDetail
		}
		if err != nil {
			pcm.Note += " (" + err.Error() + ")"
		}
	}
	return out, nil
}

func checkOne(dir, name string) (Status, error) {
	path := filepath.Join(dir, name)
	st := Status{Name: name, Path: path}
	if fi, err := os.Stat(path + chainedSuffix); err == nil {
		st.Chained = path + chainedSuffix
		st.ChainedExecutable = fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
	}
	content, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !exists(path):
		st.State = StateMissing
		return st, nil
	case errors.Is(err, fs.ErrNotExist): // a dangling symlink
		st.State = StateForeign
		return st, nil
	case err != nil:
		return st, err
	case !isShim(content):
		st.State = StateForeign
		return st, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return st, err
	}
	switch {
	case fi.Mode()&0o111 == 0:
		st.State = StateNotExecutable
	case !isCurrentShim(name, content):
		st.State = StateStale
	default:
		st.State = StateInstalled
	}
	return st, nil
}
