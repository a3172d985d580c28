package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Form is where git finds git-handoff's hooks.
type Form string

const (
	// FormAuto (Install only): the form already installed, else FormConfig
	// where git runs hooks from config (ConfigHooksSupported), else
	// FormFiles. A form git does not run (config hooks under an older git)
	// is not kept.
	FormAuto Form = ""
	// FormFiles: shims in the hooks directory, each chaining the hook it
	// replaced.
	FormFiles Form = "files"
	// FormConfig: config hooks hook.git-handoff-<name> in the repository's
	// config, each reading a shim in <common dir>/handoff/hooks (config.go).
	FormConfig Form = "config"
)

// ParseForm reads a form as the CLI spells it: auto, config or files.
func ParseForm(s string) (Form, error) {
	switch s {
	case "auto", "":
		return FormAuto, nil
	case string(FormFiles), string(FormConfig):
		return Form(s), nil
	}
	return FormAuto, fmt.Errorf("hooks form %q: want auto, config or files", s)
}

// Options tune Install.
type Options struct {
	// Command is how the shims call git-handoff. Empty means git-handoff
	// from PATH, falling back to `git handoff`. Anything else, such as an
	// absolute path or "git handoff", is pasted into sh verbatim, so a path
	// with spaces must arrive quoted.
	Command string
	// Form is where the hooks go; FormAuto by default.
	Form Form
}

// Action is what Install or Uninstall did to one hook.
type Action string

const (
	Installed Action = "installed" // wrote a shim where there was no hook
	Chained   Action = "chained"   // moved the user's hook aside and wrote a shim that runs it
	Updated   Action = "updated"   // rewrote a shim from another version or command
	Unchanged Action = "unchanged" // the current shim was already there
	Removed   Action = "removed"   // deleted our shim; there was nothing to restore
	Restored  Action = "restored"  // deleted our shim and put the user's hook back
	Skipped   Action = "skipped"   // left alone; Detail says why
	// Migrated: installed in the other form, and removed from the one it
	// was in (Detail says which).
	Migrated Action = "migrated"
	// Idle: prepare-commit-msg is not installed because no worktree is
	// bound to a session (see Refresh); any hook of the user's is left in
	// its place. Not a change.
	Idle Action = "idle"
)

// HookResult is one line of a Report.
type HookResult struct {
	Name string
	// Path is the shim: the hook file (FormFiles) or the file our config
	// hook reads (FormConfig).
	Path   string
	Form   Form   // the form acted on; "" when there was nothing of ours
	Config string // FormConfig: the hook's friendly name, hook.<Config>.*
	Action Action
	Detail string // why it was skipped, or which hook is chained
}

// Report lists what Install or Uninstall did, one entry per hook in Names
// order.
type Report struct {
	// Dir is where the shims are: the hooks directory (FormFiles) or
	// <common dir>/handoff/hooks (FormConfig).
	Dir string
	// Form is the form Install installed, or the one Uninstall found ("" if
	// none; FormConfig where both were).
	Form  Form
	Hooks []HookResult
	// Warnings are things the user should know that did not stop Install,
	// such as a hooks directory tracked in the work tree.
	Warnings []string
}

// Changed reports whether anything on disk changed; false means a repeated
// Install (or Uninstall) found nothing to do.
func (r Report) Changed() bool {
	for _, h := range r.Hooks {
		if h.Action != Unchanged && h.Action != Skipped && h.Action != Idle {
			return true
		}
	}
	return false
}

// Install installs git-handoff's hooks in repoDir's repository, in the
// form opts.Form asks for (FormAuto: see there), and removes them from the
// other form if they were there (Migrated).
//
// FormFiles writes the shims into the hooks directory (as git reports it).
// A hook already there that is not ours is moved to <name>.handoff-chained
// (content, mode and symlinks preserved, as a hard link or rename keeps the
// file itself) and the shim runs it first.
//
// FormConfig writes the shims into <common dir>/handoff/hooks and
// registers config hooks that read them (config.go); the hooks directory
// is left as it is.
//
// prepare-commit-msg is then armed or disarmed as Refresh does: in a
// repository where no worktree is bound to a session it is not installed
// (Idle), and a user's prepare-commit-msg stays in place unchained. Running
// it again changes nothing. A hook that cannot be installed without losing
// a file (a user's hook and a chained one both present) is Skipped and
// Install returns an error naming it after handling the others.
func Install(ctx context.Context, repoDir string, opts Options) (Report, error) {
	l, err := locate(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	supported, err := ConfigHooksSupported(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	cfg, err := readConfigHooks(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	files := l.hooks != "" && anyShim(l.hooks)
	form := opts.Form
	var notices []string
	switch form {
	case FormFiles, FormConfig:
	case FormAuto:
		switch {
		case cfg.present() && supported:
			form = FormConfig
		case files:
			form = FormFiles
			if supported {
				notices = append(notices, "this git runs hooks from config: `git handoff hooks install --hooks=config` moves ours there, out of your hooks directory")
			}
		case supported:
			form = FormConfig
		default:
			form = FormFiles
		}
	default:
		return Report{}, fmt.Errorf("unknown hooks form %q", form)
	}
	switch {
	case form == FormConfig && !supported:
		return Report{}, noConfigHooksError(ctx, repoDir)
	case form == FormFiles && l.noHooks:
		return Report{}, hooksDisabled(ctx, repoDir)
	}
	var rep Report
	if form == FormConfig {
		rep, err = installConfig(ctx, repoDir, l, opts.Command, cfg)
	} else {
		rep, err = installFiles(ctx, repoDir, l, opts.Command, cfg)
	}
	rep.Warnings = append(notices, rep.Warnings...)
	return rep, err
}

// installFiles is Install in FormFiles; cfg is what config holds of ours,
// removed once the hook files are in place.
func installFiles(ctx context.Context, repoDir string, l layout, command string, cfg configHooks) (Report, error) {
	dir := l.hooks
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("creating hooks directory: %w", err)
	}
	rep := Report{Dir: dir, Form: FormFiles}
	if l.inWorkTree() {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(
			"hooks directory %s is inside the work tree: the shims and any renamed hooks will show in git status", dir))
	}
	unlock, err := lockHooks(ctx, l.common, false, lockWait)
	if err != nil {
		return rep, err
	}
	defer unlock()
	var errs []error
	for _, name := range Names() {
		var res HookResult
		if name == PrepareCommitMsg {
			res, err = commitHook(ctx, repoDir, l, command)
		} else {
			res, err = installOne(dir, name, command)
		}
		res.Form = FormFiles
		if err != nil {
			errs = append(errs, fmt.Errorf("installing %s hook: %w", name, err))
		} else if cfg[name].present() || exists(configShimPath(l.common, name)) {
			// The hook file is in place: our config hook goes.
			old, err := uninstallConfigOne(ctx, repoDir, l, name, cfg[name])
			if err != nil {
				errs = append(errs, fmt.Errorf("removing config hook %s: %w", configName(name), err))
			} else if old.Action == Removed {
				res.Action, res.Detail = Migrated, joinDetail("from config hook "+configName(name), res.Detail)
			}
		}
		rep.Hooks = append(rep.Hooks, res)
	}
	return rep, errors.Join(errs...)
}

// installConfig is Install in FormConfig; our hook files, if any, are
// removed once the config hooks are in place, and the user's hooks they
// chained put back.
func installConfig(ctx context.Context, repoDir string, l layout, command string, cfg configHooks) (Report, error) {
	rep := Report{Dir: configShimDir(l.common), Form: FormConfig}
	if l.noHooks {
		rep.Warnings = append(rep.Warnings, "core.hooksPath is the empty string here, so git runs no hook files, but it runs hooks from config: ours are there. Hook files of an earlier `git handoff hooks install`, if any, were not looked for: run it again where core.hooksPath is not empty")
	}
	unlock, err := lockHooks(ctx, l.common, false, lockWait)
	if err != nil {
		return rep, err
	}
	defer unlock()
	want, why, werr := commitHookWanted(ctx, repoDir, l, FormConfig)
	errs := []error{werr}
	for _, name := range Names() {
		res, err := installConfigOne(ctx, repoDir, l, name, command, name != PrepareCommitMsg || want, cfg[name])
		if name == PrepareCommitMsg && want && res.Detail == "" && res.Action != Unchanged {
			res.Detail = why
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("installing %s hook: %w", name, err))
		} else if l.hooks != "" {
			// The config hook is in place: our hook file goes, and the
			// user's hook it chained is back at its name.
			old, err := uninstallOne(l.hooks, name)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("removing %s: %w", old.Path, err))
			case old.Action == Removed:
				res.Action, res.Detail = Migrated, joinDetail("from hook file "+old.Path, res.Detail)
			case old.Action == Restored:
				res.Action, res.Detail = Migrated, joinDetail("from hook file "+old.Path+"; your hook is back there", res.Detail)
			case old.Action == Skipped:
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s and %s both exist and are not ours: git runs the first after our config hook", old.Path, old.Path+chainedSuffix))
			}
		}
		rep.Hooks = append(rep.Hooks, res)
	}
	return rep, errors.Join(errs...)
}

func joinDetail(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// anyShim reports whether our shim of any version is at any of our hooks'
// names in dir, or a hook we chained beside one.
func anyShim(dir string) bool {
	for _, name := range Names() {
		path := filepath.Join(dir, name)
		if content, err := os.ReadFile(path); (err == nil && isShim(content)) || exists(path+chainedSuffix) {
			return true
		}
	}
	return false
}

func installOne(dir, name, command string) (HookResult, error) {
	path := filepath.Join(dir, name)
	chained := path + chainedSuffix
	res := HookResult{Name: name, Path: path}
	shim, err := Shim(name, command)
	if err != nil {
		res.Action = Skipped
		return res, err
	}
	if exists(chained) {
		res.Detail = "runs " + chained
	}

	content, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A dangling symlink also lands here; it is the user's, keep it.
		if _, lerr := os.Lstat(path); lerr == nil {
			return moveAsideAndWrite(res, path, chained, shim)
		}
		res.Action = Installed
		return res, writeFile(path, shim, 0o755)
	case err != nil:
		return skipped(res, err)
	case isShim(content):
		fi, serr := os.Stat(path)
		if string(content) == shim && serr == nil && fi.Mode()&0o111 != 0 {
			res.Action = Unchanged
			return res, nil
		}
		res.Action = Updated
		return res, writeFile(path, shim, 0o755)
	default:
		return moveAsideAndWrite(res, path, chained, shim)
	}
}

// skipped reports res as left alone because of err.
func skipped(res HookResult, err error) (HookResult, error) {
	res.Action, res.Detail = Skipped, err.Error()
	return res, err
}

// bothExist reports res as left alone: the user's hook at res.Path and a
// chained one both exist, and neither may be lost.
func bothExist(res HookResult, chained string) (HookResult, error) {
	return skipped(res, fmt.Errorf("both %s and %s exist; move one away", res.Path, chained))
}

// moveAsideAndWrite chains the user's hook at path behind a new shim.
func moveAsideAndWrite(res HookResult, path, chained, shim string) (HookResult, error) {
	if _, err := os.Lstat(chained); err == nil {
		return bothExist(res, chained)
	}
	res.Detail = "runs " + chained
	// A regular file is linked to its new name first, so that the user's
	// hook stays at path until one rename puts the shim there: a commit
	// running meanwhile finds one or the other, never neither. (A symlink
	// is renamed: link(2) may follow it.)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		if err := os.Link(path, chained); err == nil {
			if err := writeFile(path, shim, 0o755); err != nil {
				_ = os.Remove(chained)
				return skipped(res, err)
			}
			res.Action = Chained
			return res, nil
		}
	}
	if err := os.Rename(path, chained); err != nil {
		return skipped(res, err)
	}
	if err := writeFile(path, shim, 0o755); err != nil {
		// Put the user's hook back rather than leave no hook at all.
		_ = os.Rename(chained, path)
		return skipped(res, err)
	}
	res.Action = Chained
	return res, nil
}

// writeFile replaces path atomically with a file of mode holding shim: git
// may be running the hook right now.
func writeFile(path, shim string, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(shim); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
