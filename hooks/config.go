package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Hooks from config (FormConfig); doc.go's "Two forms" says how they
// differ from hook files for the user.
//
// git 2.54 and later run, for each value of hook.<friendly-name>.event, the
// command hook.<friendly-name>.command through the shell with the hook's
// arguments appended, before the hook file of the same event; each gets
// the hook's arguments, stdin, working directory and, in a linked worktree,
// GIT_DIR, and a command that fails (or names a missing program) fails the
// hook. Ours (hook.git-handoff-<name>, in the repository's own config) call
// no git-handoff: configCommand reads the shim kept in
// <common dir>/handoff/hooks/<name>, so
//
//   - an idle post-checkout or pre-push costs one sh start, as a hook file;
//   - prepare-commit-msg's event is set only while armed, and its shim file
//     is there exactly then, so Refresh reads the state without git. Arming
//     sets the event then writes the shim; disarming removes the shim then
//     the event: a kill between the two costs at worst an idle sh per
//     commit, never a bound commit without its trailers;
//   - no absolute path is written into config: a moved repository and its
//     worktrees still find their shims;
//   - a missing shim fails nothing (Check reports it, StateBroken).

// configPrefix starts the friendly name of each of our config hooks.
const configPrefix = "git-handoff-"

// configName is the friendly name of our config hook for hook name.
func configName(name string) string { return configPrefix + name }

// configKey is the config key of variable v (command, event) of our
// config hook for name.
func configKey(name, v string) string { return "hook." + configName(name) + "." + v }

// configShimDir is the directory of the shims our config hooks read.
func configShimDir(common string) string { return filepath.Join(common, "handoff", "hooks") }

// configShimPath is the shim our config hook for name reads.
func configShimPath(common, name string) string {
	return filepath.Join(configShimDir(common), name)
}

// configCommand is hook.git-handoff-<name>.command: sh builtins that find
// the common git dir as the shims do (gitDirLines, commonDirLines) and
// read the shim there if it is there. git appends "$@", which "." passes
// on (the positional parameters are the hook's arguments already). A
// disarm may remove the shim between the test and the read, and a "." of
// a file gone ends the shell with an error, failing the user's commit: so
// the shim is opened first, as fd 9 ("command" keeps a failed redirection
// of exec from ending the shell), and read through /dev/fd/9, which holds
// it whatever happens to its name. The hook does nothing when the open
// fails, as when the test saw no shim; every shim ends in exit, so the
// "|| exit 0" runs only then.
func configCommand(name string) string {
	return `d=${GIT_DIR:-.git}; ` +
		`[ ! -f "$d" ] || { read -r d <"$d"; d=${d#gitdir: }; }; ` +
		`[ ! -f "$d/commondir" ] || { read -r c <"$d/commondir"; case $c in /*) d=$c ;; *) d=$d/$c ;; esac; }; ` +
		`f=$d/handoff/hooks/` + name + `; [ ! -f "$f" ] || { { command exec 9<"$f"; } 2>/dev/null && . /dev/fd/9; } || exit 0`
}

// ErrNoConfigHooks: the git on PATH runs no hooks from config.
var ErrNoConfigHooks = errors.New("this git runs no hooks from config (git 2.54 and later do): install them as hook files (--hooks=files)")

// probeName is the friendly name of the hook ConfigHooksSupported defines
// on git's command line to ask about; it runs nothing.
const probeName = configPrefix + "probe"

// ConfigHooksSupported reports whether the git on PATH runs hooks defined
// in config (hook.<name>.command and hook.<name>.event). It asks git: `git
// hook list pre-push`, with such a hook defined by -c, names that hook only
// where git reads hooks from config (2.54 and later); git 2.36 to 2.53 have
// no `hook list` (usage, exit 129) and older ones no `git hook` (exit 1).
// It is the one place that decides which form Install uses by default.
func ConfigHooksSupported(ctx context.Context, repoDir string) (bool, error) {
	out, err := refstore.Git(ctx, repoDir, false, nil,
		"-c", "hook."+probeName+".command=:", "-c", "hook."+probeName+".event="+PrePush,
		"hook", "list", "-z", PrePush)
	if err != nil {
		var ge *refstore.GitError
		if errors.As(err, &ge) && ge.ExitCode() > 0 && ge.ExitCode() != 128 {
			return false, nil
		}
		return false, fmt.Errorf("asking git whether it runs hooks from config: %w", err)
	}
	// "<name>", or "<status>\t<name>" where it is disabled (by
	// hook.pre-push.enabled, say): listed all the same.
	for _, e := range bytes.Split(out, []byte{0}) {
		if i := bytes.LastIndexByte(e, '\t'); string(e[i+1:]) == probeName {
			return true, nil
		}
	}
	return false, nil
}

// gitVersion is `git version`, for messages; "" if git will not say.
func gitVersion(ctx context.Context, repoDir string) string {
	out, err := refstore.Git(ctx, repoDir, false, nil, "version")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// noConfigHooksError is ErrNoConfigHooks naming the git.
func noConfigHooksError(ctx context.Context, repoDir string) error {
	if v := gitVersion(ctx, repoDir); v != "" {
		return fmt.Errorf("%s: %w", v, ErrNoConfigHooks)
	}
	return ErrNoConfigHooks
}

// configHook is what the repository's own config holds for one of our
// config hooks.
type configHook struct {
	command    string
	hasCommand bool
	events     []string // every hook.<name>.event value, in order
	other      bool     // some other variable of the section (enabled)
}

// present reports whether any of it is set.
func (h configHook) present() bool { return h.hasCommand || len(h.events) > 0 || h.other }

// current reports whether its command is the one this version writes.
func (h configHook) current(name string) bool {
	return h.hasCommand && h.command == configCommand(name)
}

// armed reports whether git runs it on name's event: exactly the one event
// Install writes.
func (h configHook) armed(name string) bool { return len(h.events) == 1 && h.events[0] == name }

// configHooks are our config hooks by hook name.
type configHooks map[string]configHook

// installed reports whether git-handoff's hooks are installed in config:
// a command at post-checkout or pre-push, as Refresh and Check decide for
// hook files.
func (c configHooks) installed() bool {
	return c[PostCheckout].hasCommand || c[PrePush].hasCommand
}

// present reports whether a command or event of ours is in config.
func (c configHooks) present() bool {
	for _, h := range c {
		if h.hasCommand || len(h.events) > 0 {
			return true
		}
	}
	return false
}

// readConfigHooks reads our config hooks from the repository's own config
// (git config --local, one process). Only that file: it is where Install
// writes them.
func readConfigHooks(ctx context.Context, repoDir string) (configHooks, error) {
	c := configHooks{}
	out, err := refstore.Git(ctx, repoDir, false, nil,
		"config", "--local", "-z", "--get-regexp", `^hook\.`+configPrefix)
	if err != nil {
		var ge *refstore.GitError
		if errors.As(err, &ge) && ge.ExitCode() == 1 {
			return c, nil // none
		}
		return c, fmt.Errorf("reading the config hooks: %w", err)
	}
	for _, e := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		key, value, hasValue := strings.Cut(e, "\n")
		// hook.<friendly name>.<variable>: git prints the section and the
		// variable in lower case, the friendly name as it is.
		i, j := strings.Index(key, "."), strings.LastIndex(key, ".")
		if i < 0 || j <= i {
			continue
		}
		for _, name := range Names() {
			if key[i+1:j] != configName(name) {
				continue
			}
			h := c[name]
			switch key[j+1:] {
			case "command":
				// git uses the last value; so do we. A key without a value
				// ("[hook ...] command") is no command.
				h.command, h.hasCommand = value, hasValue
			case "event":
				h.events = append(h.events, value)
			default:
				h.other = true
			}
			c[name] = h
		}
	}
	return c, nil
}

// configLockWait bounds how long a config write retries while another git
// holds the config file's lock (git fails at once, exit 255).
var configLockWait = 2 * time.Second

// gitConfig runs `git config --local args...`, retrying while the config
// file is locked by another process.
func gitConfig(ctx context.Context, repoDir string, args ...string) error {
	deadline := time.Now().Add(configLockWait)
	for {
		_, err := refstore.Git(ctx, repoDir, false, nil, append([]string{"config", "--local"}, args...)...)
		var ge *refstore.GitError
		if err == nil || !errors.As(err, &ge) || ge.ExitCode() != 255 || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// configInstalled reports, without starting git, whether git-handoff's
// hooks may be installed in config: Install writes the shims of
// post-checkout and pre-push there first. Refresh and BindGuard read the
// config only then, so a repository without them pays no git process.
func configInstalled(common string) bool {
	return exists(configShimPath(common, PostCheckout)) || exists(configShimPath(common, PrePush))
}

// installedForm finds where git-handoff's hooks are installed and the
// command their shims record: FormFiles when our shim is at post-checkout
// or pre-push in the hooks directory, else FormConfig when the shims our
// config hooks read are there (Install writes them before the config, and
// Uninstall removes them after it), else "". No git process: Refresh asks
// this on every bind and unbind. Where both are, the hook files win: they
// are what Install chose last unless it was interrupted, and a repository
// in that state runs both (Check says so).
func installedForm(ctx context.Context, repoDir string, l layout) (Form, string, error) {
	if l.hooks != "" {
		if command, ok := installedCommand(l.hooks); ok {
			return FormFiles, command, nil
		}
	}
	if !configInstalled(l.common) {
		return "", "", nil
	}
	return FormConfig, configShimCommand(l.common), nil
}

// configShimCommand is the command the config shims record.
func configShimCommand(common string) string {
	for _, name := range []string{PostCheckout, PrePush} {
		if content, err := os.ReadFile(configShimPath(common, name)); err == nil && isShim(content) {
			return shimCommand(content)
		}
	}
	return ""
}

// installConfigOne makes our config hook for name current: its command,
// then its event and shim (want), or neither (want false: a disarmed
// prepare-commit-msg, see arm.go); the others always want them. have is
// what config holds now.
func installConfigOne(ctx context.Context, repoDir string, l layout, name, command string, want bool, have configHook) (HookResult, error) {
	path := configShimPath(l.common, name)
	res := HookResult{Name: name, Path: path, Form: FormConfig, Config: configName(name)}
	fresh := !have.present()
	changed := false
	if !have.current(name) {
		if err := gitConfig(ctx, repoDir, configKey(name, "command"), configCommand(name)); err != nil {
			return skipped(res, err)
		}
		changed = true
	}
	if !want {
		removed, err := disarmConfig(ctx, repoDir, l, len(have.events) > 0)
		switch {
		case err != nil:
			return skipped(res, err)
		case removed:
			res.Action, res.Detail = Removed, idleDetail
		case changed && !fresh:
			res.Action, res.Detail = Updated, idleDetail
		default:
			res.Action, res.Detail = Idle, idleDetail
		}
		return res, nil
	}
	if !have.armed(name) {
		if err := gitConfig(ctx, repoDir, "--replace-all", configKey(name, "event"), name); err != nil {
			return skipped(res, err)
		}
		changed = true
	}
	written, err := writeConfigShim(l, name, command)
	if err != nil {
		return skipped(res, err)
	}
	switch {
	case fresh:
		res.Action = Installed
	case changed || written:
		res.Action = Updated
	default:
		res.Action = Unchanged
	}
	return res, nil
}

// writeConfigShim puts the current shim of name where our config hook
// reads it, and reports whether it wrote it.
func writeConfigShim(l layout, name, command string) (bool, error) {
	path := configShimPath(l.common, name)
	shim, err := shimText(name, command, FormConfig)
	if err != nil {
		return false, err
	}
	if content, err := os.ReadFile(path); err == nil && string(content) == shim {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, writeFile(path, shim, 0o644)
}

// uninstallConfigOne removes our config hook for name, its whole section
// (git config --remove-section), and its shim.
func uninstallConfigOne(ctx context.Context, repoDir string, l layout, name string, have configHook) (HookResult, error) {
	path := configShimPath(l.common, name)
	res := HookResult{Name: name, Path: path, Form: FormConfig, Config: configName(name), Action: Unchanged}
	if have.present() {
		if err := gitConfig(ctx, repoDir, "--remove-section", "hook."+configName(name)); err != nil {
			return skipped(res, err)
		}
		res.Action = Removed
	}
	switch err := os.Remove(path); {
	case err == nil:
		res.Action = Removed
	case !errors.Is(err, fs.ErrNotExist):
		return skipped(res, err)
	}
	if res.Action == Removed {
		res.Detail = "config hook " + configName(name)
	}
	os.Remove(configShimDir(l.common)) // only once empty
	return res, nil
}

// disarmConfig removes the shim of prepare-commit-msg's config hook, then
// its event, so that git runs nothing of ours on a commit. event says
// whether config may hold the event: with no shim and no event nothing is
// done, and no git started. It reports whether it removed anything. The
// caller holds the lock exclusively.
func disarmConfig(ctx context.Context, repoDir string, l layout, event bool) (bool, error) {
	removed := false
	switch err := os.Remove(configShimPath(l.common, PrepareCommitMsg)); {
	case err == nil:
		removed, event = true, true
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if !event {
		return false, nil
	}
	err := gitConfig(ctx, repoDir, "--unset-all", configKey(PrepareCommitMsg, "event"))
	var ge *refstore.GitError
	if errors.As(err, &ge) && ge.ExitCode() == 5 {
		err = nil // no event to unset
	}
	return removed, err
}

// armConfig sets the event of prepare-commit-msg's config hook, then
// writes its shim, with command. The caller holds the lock exclusively.
func armConfig(ctx context.Context, repoDir string, l layout, command string) (HookResult, error) {
	res := HookResult{Name: PrepareCommitMsg, Path: configShimPath(l.common, PrepareCommitMsg), Form: FormConfig, Config: configName(PrepareCommitMsg), Action: Installed}
	if err := gitConfig(ctx, repoDir, "--replace-all", configKey(PrepareCommitMsg, "event"), PrepareCommitMsg); err != nil {
		return skipped(res, err)
	}
	if _, err := writeConfigShim(l, PrepareCommitMsg, command); err != nil {
		return skipped(res, err)
	}
	return res, nil
}

// isArmedConfig reports whether prepare-commit-msg's config hook is armed:
// its shim, recording command, is there (armConfig writes it after the
// event). No git process.
func isArmedConfig(l layout, command string) (bool, error) {
	shim, err := shimText(PrepareCommitMsg, command, FormConfig)
	if err != nil {
		return false, err
	}
	content, err := os.ReadFile(configShimPath(l.common, PrepareCommitMsg))
	return err == nil && string(content) == shim, nil
}

// listedHooks is what `git hook list -z <event>` names: for each friendly
// name, "" when git runs it, else why not as git lists it ("disabled":
// hook.<name>.enabled is false; "event-disabled": hook.<event>.enabled is).
// ok is false when git has no `hook list`.
func listedHooks(ctx context.Context, repoDir, event string) (map[string]string, bool, error) {
	out, err := refstore.Git(ctx, repoDir, false, nil, "hook", "list", "-z", event)
	if err != nil {
		var ge *refstore.GitError
		if errors.As(err, &ge) && ge.ExitCode() == 1 {
			return map[string]string{}, true, nil // no hooks for event
		}
		if errors.As(err, &ge) && ge.ExitCode() == 129 {
			return nil, false, nil
		}
		return nil, false, err
	}
	m := map[string]string{}
	for _, e := range strings.Split(string(out), "\x00") {
		if e == "" {
			continue
		}
		// "<name>", or "<status>\t<name>"
		status, name, ok := strings.Cut(e, "\t")
		if !ok {
			status, name = "", e
		}
		m[name] = status
	}
	return m, true, nil
}

// commandProgram returns the program a hook command starts, when it names
// one by absolute path (plain or in single quotes, as Options.Command asks),
// else "".
func commandProgram(command string) string {
	command = strings.TrimSpace(command)
	var p string
	if rest, ok := strings.CutPrefix(command, "'"); ok {
		p, _, _ = strings.Cut(rest, "'")
	} else {
		p, _, _ = strings.Cut(command, " ")
	}
	if !filepath.IsAbs(p) {
		return ""
	}
	return p
}

// missingProgram returns the program command names by absolute path when
// that is not there, else "".
func missingProgram(command string) string {
	if p := commandProgram(command); p != "" {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
	return ""
}
