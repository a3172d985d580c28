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
	// bound to a session (see Refresh; hook files stay armed once one was);
	// any hook of the user's there runs alone, as it should.
	StateIdle State = "idle"
	// StateBroken: ours, but git would run nothing of it: a config hook
	// whose shim is missing, or a hook whose command names a program
	// that is not there (Note says which).
	StateBroken State = "broken"
	// StateIgnored: our config hook, which git does not run: a git older
	// than 2.54, which reads no hooks from config, or one that lists it
	// as disabled (hook.<name>.enabled).
	StateIgnored State = "ignored"
	// StateDuplicate: ours both from config and as a hook file: git runs
	// both. Install keeps one.
	StateDuplicate State = "duplicate"
)

// Status is Check's finding for one hook.
type Status struct {
	Name string
	// Path is the shim: the hook file (FormFiles) or the file our config
	// hook reads (FormConfig).
	Path   string
	Form   Form   // where Check looked: FormConfig where ours is in config
	Config string // FormConfig: the hook's friendly name, hook.<Config>.*
	State  State
	// Chained is the user's hook our shim runs first, if there is one;
	// ChainedExecutable is false when git (and so the shim) would skip it.
	Chained           string
	ChainedExecutable bool
	// Note explains an idle prepare-commit-msg, one that is missing while
	// a session is bound, or a state that is not OK.
	Note string
}

// OK reports whether the hook is installed and current, or idle.
func (s Status) OK() bool { return s.State == StateInstalled || s.State == StateIdle }

// Check reports the state of each of our hooks in repoDir's repository,
// in Names order: of our config hooks where any of them is in the
// repository's config (or their shims are there), else of the hook files
// in its hooks directory. Where our other hooks are installed, a
// prepare-commit-msg that is not ours (missing, or the user's own, chaining
// nothing) or not armed is StateIdle when nothing arms it (see Refresh), and
// missing or foreign, with a Note, when something does. Check never changes
// anything.
func Check(ctx context.Context, repoDir string) ([]Status, error) {
	l, err := locate(ctx, repoDir)
	if err != nil {
		return nil, err
	}
	cfg, err := readConfigHooks(ctx, repoDir)
	if err != nil {
		return nil, err
	}
	if cfg.present() || configInstalled(l.common) || exists(configShimPath(l.common, PrepareCommitMsg)) {
		return checkConfig(ctx, repoDir, l, cfg)
	}
	if l.noHooks {
		return nil, hooksDisabled(ctx, repoDir)
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
		idleOrWanted(ctx, repoDir, l, FormFiles, pcm)
	}
	return out, nil
}

// idleOrWanted makes an unarmed prepare-commit-msg StateIdle when nothing
// wants it armed, and says what does otherwise.
func idleOrWanted(ctx context.Context, repoDir string, l layout, form Form, pcm *Status) {
	want, why, err := commitHookWanted(ctx, repoDir, l, form)
	if want {
		pcm.Note = why + ": run `git handoff hooks install`"
	} else {
		pcm.State, pcm.Note = StateIdle, idleDetail
	}
	if err != nil {
		pcm.Note += " (" + err.Error() + ")"
	}
}

// checkConfig is Check where our hooks are in config. It asks git whether
// it runs each that is installed (git hook list), and looks for our hook
// files beside them.
func checkConfig(ctx context.Context, repoDir string, l layout, cfg configHooks) ([]Status, error) {
	var out []Status
	for _, name := range Names() {
		out = append(out, checkConfigOne(l, name, cfg[name]))
	}
	// Disarmed: its command there, its event and shim away (installConfigOne).
	pcm, h := &out[0], cfg[PrepareCommitMsg] // Names() starts with PrepareCommitMsg
	if cfg.installed() && pcm.State == StateMissing && h.current(PrepareCommitMsg) && len(h.events) == 0 {
		idleOrWanted(ctx, repoDir, l, FormConfig, pcm)
	}
	supported, err := ConfigHooksSupported(ctx, repoDir)
	if err != nil {
		return out, err
	}
	for i := range out {
		st := &out[i]
		if l.hooks != "" {
			file := filepath.Join(l.hooks, st.Name)
			if content, err := os.ReadFile(file); err == nil && isShim(content) {
				st.State, st.Note = StateDuplicate, "ours is the hook file "+file+" too, and git runs both: `git handoff hooks install` keeps one"
				continue
			}
		}
		if st.State != StateInstalled {
			continue
		}
		if !supported {
			st.State, st.Note = StateIgnored, noConfigHooksError(ctx, repoDir).Error()
			continue
		}
		listed, ok, err := listedHooks(ctx, repoDir, st.Name)
		if err != nil {
			return out, err
		}
		switch status, named := listed[st.Config]; {
		case !ok:
			st.State, st.Note = StateIgnored, noConfigHooksError(ctx, repoDir).Error()
		case !named:
			st.State, st.Note = StateIgnored, "`git hook list "+st.Name+"` does not name it"
		case status == "disabled":
			st.State, st.Note = StateIgnored, "git lists it as disabled (hook."+st.Config+".enabled)"
		case status == "event-disabled":
			st.State, st.Note = StateIgnored, "git runs no "+st.Name+" hook here (hook."+st.Name+".enabled)"
		case status != "":
			st.State, st.Note = StateIgnored, "git lists it as "+status
		}
	}
	return out, nil
}

// checkConfigOne judges our config hook for name from what config holds
// (h) and its shim.
func checkConfigOne(l layout, name string, h configHook) Status {
	path := configShimPath(l.common, name)
	st := Status{Name: name, Path: path, Form: FormConfig, Config: configName(name)}
	content, err := os.ReadFile(path)
	switch {
	case !h.hasCommand:
		st.State = StateMissing
		if len(h.events) > 0 {
			st.Note = "hook." + st.Config + ".event is set, but no command"
		}
	case !h.current(name):
		if p := missingProgram(h.command); p != "" {
			st.State, st.Note = StateBroken, "its command runs "+p+", which is missing"
		} else {
			st.State, st.Note = StateStale, "its command is not the one this version writes"
		}
	case err != nil && name == PrepareCommitMsg:
		st.State = StateMissing // disarmed: idle, or wanted (idleOrWanted)
	case err != nil:
		st.State, st.Note = StateBroken, "its command reads "+path+", which is missing"
	case !isShim(content) || !isCurrentShim(name, content, FormConfig):
		st.State, st.Note = StateStale, path+" is from another version"
	case missingProgram(shimCommand(content)) != "":
		st.State, st.Note = StateBroken, path+" runs "+missingProgram(shimCommand(content))+", which is missing"
	case !h.armed(name):
		st.State = StateMissing
		if len(h.events) > 0 {
			st.Note = "hook." + st.Config + ".event is not just " + name
		} else {
			st.Note = "hook." + st.Config + ".event is not set"
		}
	default:
		st.State = StateInstalled
	}
	return st
}

func checkOne(dir, name string) (Status, error) {
	path := filepath.Join(dir, name)
	st := Status{Name: name, Path: path, Form: FormFiles}
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
	case !isCurrentShim(name, content, FormFiles):
		st.State = StateStale
	case missingProgram(shimCommand(content)) != "":
		st.State, st.Note = StateBroken, "it runs "+missingProgram(shimCommand(content))+", which is missing"
	default:
		st.State = StateInstalled
	}
	return st, nil
}
