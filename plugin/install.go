package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Env is where the user's files are: the directories the install writes to
// and reads the agents' own from. The zero value is filled from the
// process's environment by Install, Path and List.
type Env struct {
	Home       string // $HOME
	DataHome   string // $XDG_DATA_HOME, else ~/.local/share
	ConfigHome string // $XDG_CONFIG_HOME, else ~/.config
	// CopilotHome is $COPILOT_HOME, else ~/.copilot: where Copilot CLI
	// keeps its settings.
	CopilotHome string
	// LookPath finds an agent's CLI; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

func (e Env) filled() (Env, error) {
	if e.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return e, fmt.Errorf("finding the home directory: %w", err)
		}
		e.Home = h
	}
	if e.DataHome == "" {
		e.DataHome = os.Getenv("XDG_DATA_HOME")
	}
	if e.DataHome == "" {
		e.DataHome = filepath.Join(e.Home, ".local", "share")
	}
	if e.ConfigHome == "" {
		e.ConfigHome = os.Getenv("XDG_CONFIG_HOME")
	}
	if e.ConfigHome == "" {
		e.ConfigHome = filepath.Join(e.Home, ".config")
	}
	if e.CopilotHome == "" {
		e.CopilotHome = os.Getenv("COPILOT_HOME")
	}
	if e.CopilotHome == "" {
		e.CopilotHome = filepath.Join(e.Home, ".copilot")
	}
	if e.LookPath == nil {
		e.LookPath = exec.LookPath
	}
	return e, nil
}

// dir is where agent's plugin is written: the directory the agent's own
// install command is given.
func (e Env) dir(agent string) string {
	return filepath.Join(e.DataHome, "git-handoff", "plugins", agent)
}

// Step is one step of an agent's own install: a command of its CLI, or a
// copy into a directory it loads plugins from (Cursor and OpenCode have no
// install command for a local plugin).
type Step struct {
	Args []string // the command, argv[0] the agent's CLI; nil for a copy
	// CopyFrom and CopyTo are where a copy step takes the plugin's files
	// from (the directory it was written to) and puts them.
	CopyFrom, CopyTo string
	// Remove is what a removal step of Uninstall deletes, a file or a
	// directory; empty for every other step.
	Remove string
	// Dir is where the command runs, "" for here: a project-scoped
	// install is removed from its project.
	Dir string
	// Edit, with Member, is a settings file of the agent's that a step of
	// Uninstall takes one member out of (a path of object keys), where the
	// agent's own commands leave it behind.
	Edit   string
	Member []string
	// Output is what the command printed, stdout and stderr together.
	Output string
	// Skipped says Uninstall found nothing for the step to remove (the
	// agent's list command does not list it; the path is not there, or
	// not the plugin's), so it did not run and is not to be run.
	Skipped bool

	// present says whether there is something for an uninstall command
	// to remove; nil runs the command unasked.
	present *listed
	// ours says whether a removal step's path holds the plugin's files
	// (nil: whatever is there is, being git-handoff's own directory).
	ours func(path string) (bool, error)
	// each, when set, replaces the step by one step per item the agent's
	// list shows (present): one per scope the plugin is installed in.
	each func(items []map[string]any) ([]Step, []string)
}

// String is the step as a shell command the user could run.
func (s Step) String() string {
	switch {
	case s.Remove != "":
		return "rm -rf " + shellQuote(s.Remove)
	case s.Edit != "":
		// No command does it: the user edits the file.
		keys := make([]string, len(s.Member))
		for i, k := range s.Member {
			keys[i] = strconv.Quote(k)
		}
		return "# in " + s.Edit + ", delete " + strings.Join(keys, " > ")
	case s.Args == nil:
		return "mkdir -p " + shellQuote(s.CopyTo) + " && cp -R " + shellQuote(s.CopyFrom) + "/. " + shellQuote(s.CopyTo)
	case s.Dir != "":
		return "(cd " + shellQuote(s.Dir) + " && " + quoteArgs(s.Args) + ")"
	}
	return quoteArgs(s.Args)
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '@' || r == '=' || r == ':' || r == '+' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// installer plans the agent's own install of the plugin written to dir.
type installer func(dir string, e Env) []Step

func claudeInstall(dir string, _ Env) []Step {
	// add and install do nothing for a marketplace or plugin already
	// there; update then takes the new version of files written again.
	return []Step{
		{Args: []string{"claude", "plugin", "marketplace", "add", dir}},
		{Args: []string{"claude", "plugin", "install", Name + "@" + Name}},
		{Args: []string{"claude", "plugin", "update", Name + "@" + Name}},
	}
}

func codexInstall(dir string, _ Env) []Step {
	// Both are idempotent; add copies the current version into codex's
	// cache.
	return []Step{
		{Args: []string{"codex", "plugin", "marketplace", "add", dir}},
		{Args: []string{"codex", "plugin", "add", Name + "@" + Name}},
	}
}

func geminiInstall(dir string, e Env) []Step {
	// install refuses an extension already installed; update takes the
	// new version from the source it was installed from.
	if _, err := os.Stat(filepath.Join(e.Home, ".gemini", "extensions", Name)); err == nil {
		return []Step{{Args: []string{"gemini", "extensions", "update", Name}}}
	}
	return []Step{{Args: []string{"gemini", "extensions", "install", dir, "--consent"}}}
}

func copilotInstall(dir string, _ Env) []Step {
	// Copilot loads a local marketplace's plugin from its directory,
	// copying nothing: files written again take effect at the next session.
	return []Step{
		{Args: []string{"copilot", "plugin", "marketplace", "add", dir}},
		{Args: []string{"copilot", "plugin", "install", Name + "@" + Name}},
	}
}

func cursorInstall(dir string, e Env) []Step {
	// Cursor loads the plugins in ~/.cursor/plugins/local/<name>.
	return []Step{{CopyFrom: dir, CopyTo: filepath.Join(e.Home, ".cursor", "plugins", "local", Name)}}
}

func opencodeInstall(dir string, e Env) []Step {
	// OpenCode loads every module in its user-level plugins directory.
	return []Step{{CopyFrom: dir, CopyTo: filepath.Join(e.ConfigHome, "opencode", "plugins")}}
}

// Options tune Install.
type Options struct {
	Env Env
	// NoRun writes the plugin's files but leaves the agent's install
	// commands to the user: Result.Steps says what to run.
	NoRun bool
	// Stdin, Stdout and Stderr are given to the agent's commands (an
	// agent may ask, e.g. Gemini CLI whether to trust the folder); nil
	// means none, and output goes to Step.Output alone.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Result is what Install, or Uninstall, did.
type Result struct {
	Agent string
	// Dir holds the plugin's files, written from the binary's own copy.
	Dir string
	// Steps are the agent's own install (or uninstall), in order.
	Steps []Step
	// Ran says whether the steps ran; when not, Missing names the CLI
	// that is not on PATH (or NoRun was asked) and the user runs them.
	Ran     bool
	Missing string
	// Notices are what the user must still do for the plugin to work
	// (for Uninstall: what was kept, and why).
	Notices []string
	// Removed are the files and directories Uninstall deleted itself.
	Removed []string
	// NotInstalled says Uninstall ran and found nothing of the plugin to
	// remove: every step was skipped.
	NotInstalled bool
	// Trusted are the events of the hooks Install recorded the user's
	// trust in (Codex's), none when there was nothing to trust.
	Trusted []string
}

// Install writes agent's plugin from the binary's own files to the user's
// data directory, then installs it with the agent's own commands where its
// CLI is on PATH. A failing command is an error naming it, its output kept
// in the result.
func Install(ctx context.Context, agent string, o Options) (Result, error) {
	s, err := find(agent)
	if err != nil {
		return Result{}, err
	}
	e, err := o.Env.filled()
	if err != nil {
		return Result{}, err
	}
	files, err := Embedded(s.agent)
	if err != nil {
		return Result{}, err
	}
	res := Result{Agent: s.agent, Dir: e.dir(s.agent)}
	if err := replaceDir(res.Dir, files); err != nil {
		return res, err
	}
	res.Steps = s.install(res.Dir, e)
	if o.NoRun {
		if s.agent == "codex" {
			res.Notices = append(res.Notices, codexTrustHowTo)
		}
		return res, nil
	}
	if res.Missing = missingCLI(res.Steps, e); res.Missing != "" {
		if s.agent == "codex" {
			res.Notices = append(res.Notices, codexTrustHowTo)
		}
		return res, nil
	}
	for i := range res.Steps {
		st := &res.Steps[i]
		if st.Args == nil {
			if err := copyPlugin(s.agent, files, st.CopyTo); err != nil {
				return res, err
			}
			continue
		}
		if err := run(ctx, st, e, o); err != nil {
			return res, err
		}
	}
	res.Ran = true
	if s.agent == "codex" {
		events, err := trustCodexHooks(ctx, e)
		switch {
		case err != nil:
			res.Notices = append(res.Notices, "the plugin's hooks could not be trusted ("+err.Error()+"); "+codexTrustHowTo)
		case len(events) > 0:
			res.Trusted = events
			res.Notices = append(res.Notices, "trusted the plugin's hooks in Codex ("+strings.Join(events, ", ")+"), as its /hooks screen would: Codex runs a plugin's hooks only once trusted, and a new version's again only after this install")
		}
	}
	return res, nil
}

// codexTrustHowTo says what the user must do for Codex to run the plugin's
// hooks when install could not record the trust itself.
const codexTrustHowTo = "Codex runs the plugin's hooks only once you trust them: after installing, start `codex`, type /hooks and trust git-handoff's hooks (SessionStart, Stop, PreCompact, SessionEnd), or run `git handoff plugin install codex` again with codex on PATH, which records that trust; `codex --dangerously-bypass-hook-trust` runs them untrusted for one session"

// missingCLI is the first agent CLI the steps run that is not on PATH, ""
// when every one is: then the user runs the steps, and none is run here.
func missingCLI(steps []Step, e Env) string {
	for _, st := range steps {
		if st.Args == nil {
			continue
		}
		if _, err := e.LookPath(st.Args[0]); err != nil {
			return st.Args[0]
		}
	}
	return ""
}

func run(ctx context.Context, st *Step, e Env, o Options) error {
	bin, err := e.LookPath(st.Args[0])
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, st.Args[1:]...)
	cmd.Dir = st.Dir
	var out strings.Builder
	cmd.Stdin = o.Stdin
	cmd.Stdout, cmd.Stderr = &out, &out
	if o.Stdout != nil {
		cmd.Stdout = io.MultiWriter(&out, o.Stdout)
	}
	if o.Stderr != nil {
		cmd.Stderr = io.MultiWriter(&out, o.Stderr)
	}
	err = cmd.Run()
	st.Output = out.String()
	if err != nil {
		return fmt.Errorf("`%s`: %w", quoteArgs(st.Args), err)
	}
	return nil
}

// copyPlugin puts the plugin where the agent loads it: Cursor's plugin
// directory whole, OpenCode's module beside the user's other modules.
func copyPlugin(agent string, files []File, to string) error {
	if agent == "opencode" {
		return writeFiles(to, files)
	}
	return replaceDir(to, files)
}

// replaceDir makes dir hold exactly files: they are written to a fresh
// directory beside it, which then takes its place, so a file the plugin
// no longer has does not linger and an agent never reads half a plugin.
func replaceDir(dir string, files []File) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return fmt.Errorf("writing the plugin: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := writeFiles(tmp, files); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replacing %s: %w", dir, err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	return nil
}

func writeFiles(dir string, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("writing the plugin: %w", err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing the plugin: %w", err)
		}
	}
	return nil
}

// Path is the directory Install writes agent's plugin to.
func Path(agent string, e Env) (string, error) {
	s, err := find(agent)
	if err != nil {
		return "", err
	}
	if e, err = e.filled(); err != nil {
		return "", err
	}
	return e.dir(s.agent), nil
}

// Info is one agent's plugin, as List reports it.
type Info struct {
	Agent string
	Dir   string
	// Written says whether Dir holds the plugin's files as this binary
	// would write them; Stale, that it holds other ones (another
	// version's).
	Written, Stale bool
	// Steps are the agent's own install commands.
	Steps []Step
	// Installed says whether the agent has the plugin installed, and
	// where.
	Installed Installed
}

// List reports every agent's plugin: where it goes, whether this binary's
// files are there, the agent's install commands, and whether (and where)
// the agent has it installed, asking each agent's own list command.
func List(ctx context.Context, e Env) ([]Info, error) {
	e, err := e.filled()
	if err != nil {
		return nil, err
	}
	installed := installedAll(ctx, e)
	var out []Info
	for i, s := range specs {
		files, err := Embedded(s.agent)
		if err != nil {
			return nil, err
		}
		in := Info{Agent: s.agent, Dir: e.dir(s.agent), Steps: s.install(e.dir(s.agent), e), Installed: installed[i]}
		switch same, err := dirHolds(in.Dir, files); {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			in.Written, in.Stale = same, !same
		}
		out = append(out, in)
	}
	return out, nil
}

// dirHolds says whether dir's files are files (fs.ErrNotExist when there
// is no dir).
func dirHolds(dir string, files []File) (bool, error) {
	if _, err := os.Stat(dir); err != nil {
		return false, err
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		return nil
	})
	if err != nil || n != len(files) {
		return false, err
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || string(b) != string(f.Data) {
			return false, nil
		}
	}
	return true, nil
}
