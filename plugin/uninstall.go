package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-handoff/git-handoff/agentconf"
)

// uninstaller plans the agent's own uninstall of the plugin written to
// dir: the reverse of its installer, without the removal of dir itself,
// which Uninstall adds for every agent.
type uninstaller func(dir string, e Env) []Step

// Each agent's remove commands fail when what they remove is not there
// (`claude plugin uninstall`: "not found in installed plugins"; `claude
// plugin marketplace remove`: "Marketplace 'git-handoff' not found";
// `codex plugin marketplace remove`: "is not configured or installed";
// `gemini extensions uninstall`: "Extension not found"; `copilot plugin
// uninstall`: "is not installed"), or succeed saying they removed what
// was never there (`codex plugin remove`). So each command runs only once
// the agent's own list command, asked for JSON, lists what it removes:
// its exit status alone cannot tell a plugin that is absent from a
// command that broke, and the messages are the CLIs' to change.

func claudeUninstall(string, Env) []Step {
	return []Step{
		{
			Args:    []string{"claude", "plugin", "uninstall", Name + "@" + Name},
			present: &listed{args: []string{"claude", "plugin", "list", "--json"}, match: fieldIs("id", Name+"@"+Name)},
			each:    claudeScopes,
		},
		{
			Args:    []string{"claude", "plugin", "marketplace", "remove", Name},
			present: &listed{args: []string{"claude", "plugin", "marketplace", "list", "--json"}, match: fieldIs("name", Name)},
		},
	}
}

// claudeScopes is one uninstall per scope Claude Code lists the plugin
// in. `claude plugin uninstall` removes the user's install only; one made
// with `--scope project` (or local) is in the project's
// .claude/settings.json (settings.local.json), and is removed by the same
// command with that scope, run in the project. Removing the marketplace
// alone drops it from Claude's list but leaves the project's settings
// enabling it.
func claudeScopes(items []map[string]any) ([]Step, []string) {
	var steps []Step
	var notices []string
	for _, it := range items {
		scope, _ := it["scope"].(string)
		project, _ := it["projectPath"].(string)
		args := []string{"claude", "plugin", "uninstall", Name + "@" + Name}
		switch scope {
		case "", "user":
			steps = append(steps, Step{Args: args})
		case "project", "local":
			st := Step{Args: append(args, "--scope", scope), Dir: project}
			if _, err := os.Stat(project); project == "" || err != nil {
				st.Skipped = true
				notices = append(notices, fmt.Sprintf("the %s-scope install in %s was not uninstalled: the directory is not there (the marketplace's removal drops it from Claude Code's list)", scope, project))
			}
			steps = append(steps, st)
		default:
			notices = append(notices, fmt.Sprintf("kept the %s-scope install: it is not the user's or a project's to remove", scope))
		}
	}
	return steps, notices
}

func codexUninstall(string, Env) []Step {
	// remove also deletes codex's cached copy of the plugin.
	return []Step{
		{
			Args:    []string{"codex", "plugin", "remove", Name + "@" + Name},
			present: &listed{args: []string{"codex", "plugin", "list", "--json"}, in: "installed", match: fieldIs("pluginId", Name+"@"+Name)},
		},
		{
			Args:    []string{"codex", "plugin", "marketplace", "remove", Name},
			present: &listed{args: []string{"codex", "plugin", "marketplace", "list", "--json"}, in: "marketplaces", match: fieldIs("name", Name)},
		},
	}
}

func geminiUninstall(string, Env) []Step {
	// uninstall deletes gemini's copy in ~/.gemini/extensions.
	return []Step{{
		Args:    []string{"gemini", "extensions", "uninstall", Name},
		present: &listed{args: []string{"gemini", "extensions", "list", "--output-format", "json"}, match: fieldIs("name", Name)},
	}}
}

func copilotUninstall(_ string, e Env) []Step {
	// Copilot's uninstall of a plugin it loads live from a local
	// marketplace only disables it ("It is still on disk … nothing was
	// removed"); removing the marketplace then drops it from the list.
	return []Step{
		{
			Args: []string{"copilot", "plugin", "uninstall", Name + "@" + Name},
			present: &listed{args: []string{"copilot", "plugin", "list", "--json"}, match: func(m map[string]any) bool {
				return fieldIs("name", Name)(m) && fieldIs("marketplace", Name)(m)
			}},
		},
		{
			Args:    []string{"copilot", "plugin", "marketplace", "remove", Name},
			present: &listed{args: []string{"copilot", "plugin", "marketplace", "list", "--json"}, match: fieldIs("name", Name)},
		},
		// Both leave "git-handoff@git-handoff": false in settings.json's
		// enabledPlugins, which no command of Copilot's removes (a second
		// uninstall says it "is not installed").
		{Edit: filepath.Join(e.CopilotHome, "settings.json"), Member: []string{"enabledPlugins", Name + "@" + Name}},
	}
}

func cursorUninstall(_ string, e Env) []Step {
	return []Step{{Remove: filepath.Join(e.Home, ".cursor", "plugins", "local", Name), ours: cursorPluginDir}}
}

func opencodeUninstall(_ string, e Env) []Step {
	// Only the plugin's own modules: the directory holds the user's too.
	files, _ := treeFiles("opencode")
	var steps []Step
	for _, f := range files {
		steps = append(steps, Step{Remove: filepath.Join(e.ConfigHome, "opencode", "plugins", filepath.FromSlash(f.Path)), ours: opencodeModuleOurs(f)})
	}
	return steps
}

// cursorPluginDir says whether dir is a copy of Cursor's plugin as
// Install makes it, of any version: a directory (not a link to one) whose
// manifest names the plugin and which holds no file the plugin does not
// have, so that nothing the user put there goes with it.
func cursorPluginDir(dir string) (bool, error) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false, err
	}
	var manifest struct {
		Name string `json:"name"`
	}
	b, err := os.ReadFile(filepath.Join(dir, ".cursor-plugin", "plugin.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if json.Unmarshal(b, &manifest) != nil || manifest.Name != Name {
		return false, nil
	}
	files, err := treeFiles("cursor")
	if err != nil {
		return false, err
	}
	known := map[string]bool{}
	for _, f := range files {
		known[f.Path] = true
	}
	foreign := false
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !known[filepath.ToSlash(rel)] || !d.Type().IsRegular() {
			foreign = true
			return fs.SkipAll
		}
		return nil
	})
	return !foreign, err
}

// opencodeMarker begins every version of OpenCode's module (agentconf's
// owned-file marker; TestOpenCodeMarker keeps them equal).
const opencodeMarker = "// git-handoff:opencode-plugin"

// opencodeModuleOurs says whether a path holds f as this binary carries
// it, or another version of it: a regular file beginning with the marker.
func opencodeModuleOurs(f File) func(string) (bool, error) {
	return func(p string) (bool, error) {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return false, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return false, err
		}
		return bytes.Equal(b, f.Data) || bytes.HasPrefix(b, []byte(opencodeMarker)), nil
	}
}

// listed asks an agent's list command whether it lists the plugin (or its
// marketplace).
type listed struct {
	args []string // the list command, printing JSON
	// in is the key of the object holding the list; "" for a list
	// printed as is.
	in    string
	match func(item map[string]any) bool
}

func fieldIs(key, want string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		s, ok := m[key].(string)
		return ok && s == want
	}
}

// lists runs the list command and returns the items that match. A list
// command that fails, or prints no JSON of the expected shape, is an
// error naming it: guessing would either leave the plugin installed or
// run a remove command that fails.
func (l *listed) lists(ctx context.Context, e Env) ([]map[string]any, error) {
	bin, err := e.LookPath(l.args[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, l.args[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("`%s`: %w\n%s%s", quoteArgs(l.args), err, out, stderr.String())
	}
	// Gemini CLI prints its list on stderr.
	items, err := l.items(out)
	if err != nil {
		items, err = l.items([]byte(stderr.String()))
	}
	if err != nil {
		return nil, fmt.Errorf("`%s`: %w\n%s%s", quoteArgs(l.args), err, out, stderr.String())
	}
	var found []map[string]any
	for _, it := range items {
		if l.match(it) {
			found = append(found, it)
		}
	}
	return found, nil
}

// items decodes the list from the command's output: the first line that
// begins a JSON value of the expected shape (a CLI may print a warning
// before it), read to its end.
func (l *listed) items(out []byte) ([]map[string]any, error) {
	off := 0
	for line := range bytes.Lines(out) {
		start := off
		off += len(line)
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 || (t[0] != '[' && t[0] != '{') {
			continue
		}
		at := start + len(line) - len(t)
		dec := json.NewDecoder(bytes.NewReader(out[at:]))
		if l.in == "" {
			var v []map[string]any
			if dec.Decode(&v) == nil {
				return v, nil
			}
			continue
		}
		var v map[string]json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		var items []map[string]any
		if raw, ok := v[l.in]; ok && json.Unmarshal(raw, &items) == nil {
			return items, nil
		}
	}
	return nil, fmt.Errorf("no list in its output")
}

// Uninstall reverses Install: it runs the agent's own uninstall commands
// where its CLI is on PATH (each only when the agent's list command shows
// there is something for it to remove), deletes the copies Install made
// for Cursor and OpenCode (only files that are the plugin's, never the
// user's own), then the plugin's files written to the user's data
// directory. Uninstalling what is not installed succeeds with
// NotInstalled set. Without the agent's CLI on PATH, or with NoRun,
// nothing is run or deleted and Result.Steps says what to run. A failing
// command is an error naming it, its output kept in the result.
func Uninstall(ctx context.Context, agent string, o Options) (Result, error) {
	s, err := find(agent)
	if err != nil {
		return Result{}, err
	}
	e, err := o.Env.filled()
	if err != nil {
		return Result{}, err
	}
	res := Result{Agent: s.agent, Dir: e.dir(s.agent)}
	// The written files go last: Claude Code's, Codex's and Copilot's
	// marketplaces point at them until removed.
	res.Steps = append(s.uninstall(res.Dir, e), Step{Remove: res.Dir})
	// Removal steps are decided now, to be printed as well as run: a path
	// that is not there is skipped, and one that is not the plugin's is
	// kept, saying so.
	for i := range res.Steps {
		st := &res.Steps[i]
		if st.Edit != "" {
			has, err := hasMember(st.Edit, st.Member)
			if err != nil {
				return res, err
			}
			st.Skipped = !has
			continue
		}
		if st.Remove == "" {
			continue
		}
		if _, err := os.Lstat(st.Remove); errors.Is(err, fs.ErrNotExist) {
			st.Skipped = true
			continue
		} else if err != nil {
			return res, err
		}
		if st.ours == nil {
			continue
		}
		ours, err := st.ours(st.Remove)
		if err != nil {
			return res, fmt.Errorf("reading %s: %w", st.Remove, err)
		}
		if !ours {
			st.Skipped = true
			res.Notices = append(res.Notices, "kept "+st.Remove+": it is not git-handoff's plugin as install writes it, or holds files of yours")
		}
	}
	if s.agent == "claude-code" && (o.NoRun || missingCLI(res.Steps, e) != "") {
		res.Notices = append(res.Notices, "an install made with --scope project (or local) is removed in its project: (cd PROJECT && claude plugin uninstall "+Name+"@"+Name+" --scope project)")
	}
	if o.NoRun {
		return res, nil
	}
	if res.Missing = missingCLI(res.Steps, e); res.Missing != "" {
		return res, nil
	}
	planned := res.Steps
	res.Steps = nil
	for _, st := range planned {
		switch {
		case st.Skipped:
		case st.Remove != "":
			if err := os.RemoveAll(st.Remove); err != nil {
				return res, fmt.Errorf("removing %s: %w", st.Remove, err)
			}
			res.Removed = append(res.Removed, st.Remove)
		case st.Edit != "":
			if err := removeMember(st.Edit, st.Member); err != nil {
				return res, err
			}
		default:
			steps := []Step{st}
			if st.present != nil {
				items, err := st.present.lists(ctx, e)
				if err != nil {
					return res, err
				}
				if len(items) == 0 {
					st.Skipped = true
					res.Steps = append(res.Steps, st)
					continue
				}
				if st.each != nil {
					var notices []string
					steps, notices = st.each(items)
					res.Notices = append(res.Notices, notices...)
				}
			}
			for _, one := range steps {
				if !one.Skipped {
					if err := run(ctx, &one, e, o); err != nil {
						res.Steps = append(res.Steps, one)
						return res, err
					}
				}
				res.Steps = append(res.Steps, one)
			}
			continue
		}
		res.Steps = append(res.Steps, st)
	}
	res.Ran = true
	res.NotInstalled = true
	for _, st := range res.Steps {
		res.NotInstalled = res.NotInstalled && st.Skipped
	}
	return res, nil
}

// hasMember says whether the JSON settings file at path has the member at
// keys; a file that is not there has none.
func hasMember(path string, keys []string) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, has, err := agentconf.RemoveMember(b, keys...)
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	return has, nil
}

// removeMember takes the member at keys out of the JSON settings file at
// path, keeping the rest as it is, in a file written whole and renamed
// into place with the mode the old one had.
func removeMember(path string, keys []string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, removed, err := agentconf.RemoveMember(b, keys...)
	if err != nil || !removed {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("editing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return fmt.Errorf("editing %s: %w", path, err)
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("editing %s: %w", path, err)
	}
	return nil
}
