package plugin

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/agentconf"
)

var update = flag.Bool("update", false, "rewrite the checked-in plugins (and the repository's marketplaces) from Files")

// repoRoot is the repository's root, seen from this package's directory.
const repoRoot = ".."

// pkgDir is this package's directory relative to the root: where the
// repository's marketplaces point.
const pkgDir = "plugin"

// The checked-in plugins, which the binary embeds, are what Files makes
// from agentconf today, file for file; so are the repository's own
// marketplace files. -update rewrites them.
func TestCheckedIn(t *testing.T) {
	for _, agent := range Agents() {
		want, err := Files(agent)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.RemoveAll(agent); err != nil {
				t.Fatal(err)
			}
			if err := writeFiles(agent, want); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got := onDisk(t, agent)
		compareFiles(t, agent, got, want)
	}
	repo, err := RepoFiles(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range repo {
		p := filepath.Join(repoRoot, filepath.FromSlash(f.Path))
		if *update {
			if err := writeFiles(repoRoot, []File{f}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("the repository's %s: %v (go test ./plugin -run TestCheckedIn -update writes it)", f.Path, err)
			continue
		}
		if !bytes.Equal(b, f.Data) {
			t.Errorf("the repository's %s differs from what RepoFiles makes (go test ./plugin -run TestCheckedIn -update):\n%s\nwant:\n%s", f.Path, b, f.Data)
		}
	}
}

// The binary's embedded copy is the checked-in one.
func TestEmbeddedIsCheckedIn(t *testing.T) {
	for _, agent := range Agents() {
		got, err := Embedded(agent)
		if err != nil {
			t.Fatal(err)
		}
		compareFiles(t, agent+" (embedded)", got, onDisk(t, agent))
	}
}

func onDisk(t *testing.T, dir string) []File {
	t.Helper()
	var out []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, File{Path: filepath.ToSlash(rel), Data: b})
		return nil
	})
	if err != nil {
		t.Fatalf("reading the checked-in %s plugin: %v (go test ./plugin -run TestCheckedIn -update writes it)", dir, err)
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func compareFiles(t *testing.T, what string, got, want []File) {
	t.Helper()
	paths := func(fs []File) []string {
		var p []string
		for _, f := range fs {
			p = append(p, f.Path)
		}
		return p
	}
	if !slices.Equal(paths(got), paths(want)) {
		t.Errorf("%s: files %q, want %q (go test ./plugin -run TestCheckedIn -update)", what, paths(got), paths(want))
		return
	}
	for i := range got {
		if !bytes.Equal(got[i].Data, want[i].Data) {
			t.Errorf("%s: %s differs from what Files makes (go test ./plugin -run TestCheckedIn -update):\n%s\nwant:\n%s", what, got[i].Path, got[i].Data, want[i].Data)
		}
	}
}

// Every JSON file parses; every path a manifest names exists in the
// plugin; the hooks are agentconf's commands for that agent, and nothing
// else.
func TestFilesAreWhole(t *testing.T) {
	hookFile := map[string]string{"claude-code": "hooks/hooks.json", "codex": "hooks/hooks.json", "gemini": "hooks/hooks.json", "cursor": "hooks/hooks.json", "copilot": "hooks/hooks.json"}
	for _, agent := range Agents() {
		files, err := Files(agent)
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string][]byte{}
		for _, f := range files {
			byPath[f.Path] = f.Data
		}
		has := func(p string) bool {
			p = strings.TrimPrefix(p, "./")
			if _, ok := byPath[strings.TrimSuffix(p, "/")]; ok {
				return true
			}
			for q := range byPath {
				if strings.HasPrefix(q, strings.TrimSuffix(p, "/")+"/") {
					return true
				}
			}
			return p == ""
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Path, ".json") {
				continue
			}
			var v map[string]any
			if err := json.Unmarshal(f.Data, &v); err != nil {
				t.Errorf("%s: %s is not a JSON object: %v", agent, f.Path, err)
				continue
			}
			for _, k := range []string{"hooks", "mcpServers", "skills", "rules", "contextFileName"} {
				if s, ok := v[k].(string); ok && !has(s) {
					t.Errorf("%s: %s names %s %q, which the plugin does not have", agent, f.Path, k, s)
				}
			}
			if strings.HasSuffix(f.Path, "marketplace.json") && !strings.Contains(string(f.Data), `"./"`) {
				t.Errorf("%s: %s does not name the plugin's own directory as its plugin", agent, f.Path)
			}
		}
		if hf, ok := hookFile[agent]; ok {
			want, err := agentconf.PluginHooks(agent)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(byPath[hf], want) {
				t.Errorf("%s: %s is not agentconf's hooks:\n%s\nwant:\n%s", agent, hf, byPath[hf], want)
			}
			cmds := commands(t, byPath[hf])
			if len(cmds) == 0 {
				t.Errorf("%s: no hook commands in %s", agent, hf)
			}
			for _, c := range cmds {
				ev := c[strings.LastIndex(strings.TrimSuffix(c, "; fi || true"), " ")+1:]
				ev = strings.TrimSuffix(ev, "; fi || true")
				if c != agentconf.Command(agent, ev) {
					t.Errorf("%s: hook command %q is not agentconf's command of %s for an event", agent, c, agent)
				}
			}
			wantEvents := []string{agentconf.EventStart, agentconf.EventStop, agentconf.EventEnd}
			for _, ev := range wantEvents {
				if !slices.Contains(cmds, agentconf.Command(agent, ev)) {
					t.Errorf("%s: no hook runs %q", agent, agentconf.Command(agent, ev))
				}
			}
		}
		if agent == "opencode" {
			continue // OpenCode's MCP servers live in its own config, not in a plugin
		}
		var server struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		for _, p := range []string{".mcp.json", "mcp.json", "gemini-extension.json"} {
			var doc struct {
				MCPServers map[string]json.RawMessage `json:"mcpServers"`
			}
			if b, ok := byPath[p]; ok && json.Unmarshal(b, &doc) == nil && doc.MCPServers[Name] != nil {
				json.Unmarshal(doc.MCPServers[Name], &server)
			}
		}
		if server.Command != "git" || !slices.Equal(server.Args, []string{"handoff", "mcp"}) {
			t.Errorf("%s: the plugin's MCP server %q is %+v, want `git handoff mcp`", agent, Name, server)
		}
	}
}

// commands are every hook command in a hooks file, grouped (Claude Code's
// shape) or flat (Cursor's).
func commands(t *testing.T, b []byte) []string {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Command string `json:"command"`
			Bash    string `json:"bash"` // Copilot's flat entries
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("hooks file: %v", err)
	}
	var out []string
	for _, entries := range doc.Hooks {
		for _, e := range entries {
			for _, c := range []string{e.Command, e.Bash} {
				if c != "" {
					out = append(out, c)
				}
			}
			for _, h := range e.Hooks {
				out = append(out, h.Command)
			}
		}
	}
	return out
}
