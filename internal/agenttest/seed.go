package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// SeedOpenCode gives each of dirs (opencode's configuration directory, a
// project's .opencode) the plugin SDK opencode would npm-install there at
// its start: scripts/agent-tools.sh's install of @opencode-ai/plugin at
// opencode's version, its package.json and lock copied and its
// node_modules linked. opencode then finds its dependency in place and
// installs nothing: that install took a minute to three of every test
// that starts opencode with a fresh HOME or repository on a loaded
// machine, and proves nothing of ours. Without that install (another
// version, GIT_HANDOFF_AGENT_BIN) it does nothing and opencode installs as
// it would for a user. A directory that has node_modules is left alone.
func SeedOpenCode(t testing.TB, dirs ...string) {
	t.Helper()
	seed, err := filepath.Abs(filepath.Join(toolsDir, "..", "..", "opencode-plugin-deps"))
	if err != nil {
		t.Fatal(err)
	}
	want := packageVersion(filepath.Join(toolsDir, "..", "opencode-ai", "package.json"))
	have := packageVersion(filepath.Join(seed, "node_modules", "@opencode-ai", "plugin", "package.json"))
	if want == "" || have != want {
		t.Logf("agenttest: no @opencode-ai/plugin@%s in %s (have %q): opencode installs its own", want, seed, have)
		return
	}
	for _, d := range dirs {
		if _, err := os.Lstat(filepath.Join(d, "node_modules")); err == nil {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join(seed, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(filepath.Join(seed, "node_modules"), filepath.Join(d, "node_modules")); err != nil {
			t.Fatal(err)
		}
	}
}

// packageVersion is the version an npm package.json names, "" if none.
func packageVersion(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}

// seedCopilot links the copilot package scripts/agent-tools.sh unpacked
// once into home's cache directory, where Copilot CLI unpacks itself
// (235 MB) before its first request in every fresh HOME: 40 s of a run
// under make test's load. Without that unpacked copy at the installed
// version, Copilot unpacks itself as it would for a user.
func seedCopilot(t testing.TB, home string) {
	t.Helper()
	version := packageVersion(filepath.Join(toolsDir, "..", "@github", "copilot", "package.json"))
	pkg, err := filepath.Abs(filepath.Join(toolsDir, "..", "..", "copilot-cache", "copilot", "pkg"))
	if err != nil {
		t.Fatal(err)
	}
	// Copilot's own mark of an unpacking that finished.
	if found, _ := filepath.Glob(filepath.Join(pkg, "*", version, ".extraction-complete")); version == "" || len(found) == 0 {
		t.Logf("agenttest: no copilot %s unpacked in %s: it unpacks itself", version, pkg)
		return
	}
	dir := filepath.Join(home, ".cache", "copilot")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pkg, filepath.Join(dir, "pkg")); err != nil {
		t.Fatal(err)
	}
}
