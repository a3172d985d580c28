// Package plugin builds git-handoff's plugin for each coding agent that
// installs tools as plugins (Claude Code, Codex, Gemini CLI, Copilot CLI,
// Cursor, OpenCode), and installs it for the user through the agent's own
// install command. The plugins hold no logic:
// their hooks are the commands `git handoff init --agent` writes
// (agentconf), their MCP server is `git handoff mcp`, and a skill says how
// to leave a good baton. So a plugin works in any repository, with or
// without `init --agent`, which stays for teams that commit the
// configuration.
package plugin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/mcpserver"
)

// Name is the plugin's name, and its marketplace's, for every agent:
// `claude plugin install git-handoff@git-handoff`.
const Name = "git-handoff"

const description = "Hand work from one coding-agent session to the next: batons claimed exactly once, sessions and lineage, PR ownership (git handoff)"

// File is one file of a plugin, its path relative to the plugin's
// directory with forward slashes.
type File struct {
	Path string
	Data []byte
}

// Agents are the agents with a plugin, in a fixed order.
func Agents() []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.agent
	}
	return out
}

// spec is one agent's plugin: how its files are made and how the agent
// installs it.
type spec struct {
	agent string
	files func() ([]File, error)
	// install is the agent's own install: the commands it runs, or a
	// directory of its own it reads plugins from.
	install installer
	// uninstall is the reverse of install.
	uninstall uninstaller
}

var specs = []spec{
	{"claude-code", claudeFiles, claudeInstall, claudeUninstall},
	{"codex", codexFiles, codexInstall, codexUninstall},
	{"gemini", geminiFiles, geminiInstall, geminiUninstall},
	{"copilot", copilotFiles, copilotInstall, copilotUninstall},
	{"cursor", cursorFiles, cursorInstall, cursorUninstall},
	{"opencode", opencodeFiles, opencodeInstall, opencodeUninstall},
}

// find takes an agent's name or an alias the harness catalogue knows
// ("claude" for claude-code).
func find(agent string) (spec, error) {
	name := agent
	if h, err := harness.Lookup(agent); err == nil {
		name = h.Name
	}
	for _, s := range specs {
		if s.agent == name {
			return s, nil
		}
	}
	return spec{}, fmt.Errorf("%w %q: plugins exist for %s", agentconf.ErrUnknownAgent, agent, strings.Join(Agents(), ", "))
}

// Resolve turns what the user typed (a name, or an alias the harness
// catalogue knows) into the name of an agent with a plugin.
func Resolve(agent string) (string, error) {
	s, err := find(agent)
	return s.agent, err
}

// Files are the files of agent's plugin, sorted by path, made from
// agentconf's hook definitions and the MCP server's configuration. The
// checked-in copies under this package's directory (what the binary
// embeds, and what the repository's own marketplaces point at) are tested
// to equal them.
func Files(agent string) ([]File, error) {
	s, err := find(agent)
	if err != nil {
		return nil, err
	}
	fs, err := s.files()
	if err != nil {
		return nil, fmt.Errorf("%s plugin: %w", agent, err)
	}
	slices.SortFunc(fs, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return fs, nil
}

// version is the plugin's version: 1.0.0 with a digest of its other files
// as build metadata. Claude Code and Codex cache an installed plugin by
// version, so a plugin whose files changed must carry a new one.
func version(fs []File) string {
	h := sha256.New()
	for _, f := range fs {
		fmt.Fprintf(h, "%s\x00%d\x00", f.Path, len(f.Data))
		h.Write(f.Data)
	}
	return "1.0.0+" + hex.EncodeToString(h.Sum(nil))[:12]
}

// jsonFile encodes v as indented JSON, with HTML characters as they are
// (a hook command holds "||" and "&&" a reader should see).
func jsonFile(path string, v any) (File, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return File{}, fmt.Errorf("encoding %s: %w", path, err)
	}
	return File{Path: path, Data: b.Bytes()}, nil
}

// ordered is a JSON object whose keys keep the order given, so that the
// manifests read in a sensible order (name first).
type ordered []kv

type kv struct {
	k string
	v any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		b.Write(k)
		b.WriteByte(':')
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.v); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// hooksFile is agentconf's hook file for agent at path.
func hooksFile(agent, path string) (File, error) {
	b, err := agentconf.PluginHooks(agent)
	if err != nil {
		return File{}, err
	}
	return File{Path: path, Data: b}, nil
}

// mcpFile is the MCP server's configuration, as every agent here reads it
// ({"mcpServers": {...}}).
func mcpFile(path string) (File, error) { return jsonFile(path, mcpserver.Config()) }

func skillFile() File {
	return File{Path: "skills/" + skillName + "/SKILL.md", Data: []byte(skill)}
}

// withManifest adds to a plugin's files the manifest that manifest builds
// from their version.
func withManifest(fs []File, manifest func(version string) (File, error)) ([]File, error) {
	slices.SortFunc(fs, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	m, err := manifest(version(fs))
	if err != nil {
		return nil, err
	}
	return append(fs, m), nil
}

// collect gathers files made by functions that may fail.
func collect(makers ...func() (File, error)) ([]File, error) {
	var out []File
	for _, m := range makers {
		f, err := m()
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func author() ordered { return ordered{{"name", "git-handoff"}} }

func claudeFiles() ([]File, error) {
	fs, err := collect(
		func() (File, error) { return hooksFile("claude-code", "hooks/hooks.json") },
		func() (File, error) { return mcpFile(".mcp.json") },
		func() (File, error) { return skillFile(), nil },
		func() (File, error) { return ClaudeMarketplace("./") },
	)
	if err != nil {
		return nil, err
	}
	return withManifest(fs, func(v string) (File, error) {
		return jsonFile(".claude-plugin/plugin.json", ordered{
			{"name", Name}, {"version", v}, {"description", description}, {"author", author()},
		})
	})
}

// ClaudeMarketplace is .claude-plugin/marketplace.json for a marketplace
// whose one plugin is at source (relative to the marketplace's directory):
// "./" in the installed plugin, which is its own marketplace, and the
// plugin's directory in the repository's own.
func ClaudeMarketplace(source string) (File, error) {
	return jsonFile(".claude-plugin/marketplace.json", ordered{
		{"name", Name},
		{"owner", author()},
		{"metadata", ordered{{"description", "git-handoff's plugin: hooks that hand the baton over, its MCP server, a skill on leaving batons"}}},
		{"plugins", []ordered{{{"name", Name}, {"source", source}, {"description", description}}}},
	})
}

func codexFiles() ([]File, error) {
	fs, err := collect(
		func() (File, error) { return hooksFile("codex", "hooks/hooks.json") },
		func() (File, error) { return mcpFile(".mcp.json") },
		func() (File, error) { return skillFile(), nil },
		func() (File, error) { return CodexMarketplace("./") },
	)
	if err != nil {
		return nil, err
	}
	return withManifest(fs, func(v string) (File, error) {
		return jsonFile(".codex-plugin/plugin.json", ordered{
			{"name", Name}, {"version", v}, {"description", description}, {"author", author()},
			{"skills", "./skills/"}, {"hooks", "./hooks/hooks.json"}, {"mcpServers", "./.mcp.json"},
		})
	})
}

// CodexMarketplace is .agents/plugins/marketplace.json for a marketplace
// whose one plugin is at path (relative to the marketplace's directory).
func CodexMarketplace(path string) (File, error) {
	return jsonFile(".agents/plugins/marketplace.json", ordered{
		{"name", Name},
		{"plugins", []ordered{{{"name", Name}, {"source", ordered{{"source", "local"}, {"path", path}}}}}},
	})
}

// Copilot CLI reads a Claude Code marketplace too, but it looks for
// .github/plugin/ first: its own plugin there runs Copilot's hooks, so a
// session is recorded as Copilot's and its start hook claims nothing (it
// cannot hand the brief over: Copilot ignores what sessionStart prints).
// A skill asks the agent to run `git handoff start` instead.
func copilotFiles() ([]File, error) {
	fs, err := collect(
		func() (File, error) { return hooksFile("copilot", "hooks/hooks.json") },
		func() (File, error) { return mcpFile(".mcp.json") },
		func() (File, error) { return skillFile(), nil },
		func() (File, error) {
			return File{Path: "skills/" + startSkillName + "/SKILL.md", Data: []byte(startSkill)}, nil
		},
		func() (File, error) { return CopilotMarketplace("./") },
	)
	if err != nil {
		return nil, err
	}
	return withManifest(fs, func(v string) (File, error) {
		return jsonFile(".github/plugin/plugin.json", ordered{
			{"name", Name}, {"version", v}, {"description", description}, {"author", author()},
			{"skills", "./skills/"}, {"hooks", "./hooks/hooks.json"}, {"mcpServers", "./.mcp.json"},
		})
	})
}

// CopilotMarketplace is .github/plugin/marketplace.json for a marketplace
// whose one plugin is at source.
func CopilotMarketplace(source string) (File, error) {
	f, err := ClaudeMarketplace(source)
	f.Path = ".github/plugin/marketplace.json"
	return f, err
}

// geminiContext is the extension's context file (contextFileName).
const geminiContext = "GEMINI.md"

func geminiFiles() ([]File, error) {
	fs, err := collect(
		func() (File, error) { return hooksFile("gemini", "hooks/hooks.json") },
		func() (File, error) {
			return File{Path: geminiContext, Data: []byte(agentconf.PluginInstructions() + "\n" + skillBody)}, nil
		},
	)
	if err != nil {
		return nil, err
	}
	return withManifest(fs, func(v string) (File, error) {
		servers, _ := mcpserver.Config()["mcpServers"].(map[string]any)
		return jsonFile("gemini-extension.json", ordered{
			{"name", Name}, {"version", v}, {"description", description},
			{"contextFileName", geminiContext}, {"mcpServers", servers},
		})
	})
}

// cursorRule is the rule that asks for `git handoff start` where the start
// hook could not hand the brief over (some Cursor builds reject the
// sessionStart event).
const cursorRule = "---\ndescription: Pick up the baton a previous session left (git-handoff)\nalwaysApply: true\n---\n"

func cursorFiles() ([]File, error) {
	fs, err := collect(
		func() (File, error) { return hooksFile("cursor", "hooks/hooks.json") },
		func() (File, error) { return mcpFile("mcp.json") },
		func() (File, error) { return skillFile(), nil },
		func() (File, error) {
			return File{Path: "rules/git-handoff.mdc", Data: []byte(cursorRule + agentconf.PluginInstructions())}, nil
		},
	)
	if err != nil {
		return nil, err
	}
	return withManifest(fs, func(v string) (File, error) {
		return jsonFile(".cursor-plugin/plugin.json", ordered{
			{"name", Name}, {"displayName", "git-handoff"}, {"version", v}, {"description", description},
			{"author", author()}, {"rules", "./rules/"}, {"skills", "./skills/"},
			{"hooks", "./hooks/hooks.json"}, {"mcpServers", "./mcp.json"},
		})
	})
}

// CursorMarketplace is .cursor-plugin/marketplace.json for a marketplace
// whose one plugin is at source.
func CursorMarketplace(source string) (File, error) {
	return jsonFile(".cursor-plugin/marketplace.json", ordered{
		{"name", Name},
		{"owner", author()},
		{"plugins", []ordered{{{"name", Name}, {"source", source}, {"description", description}}}},
	})
}

// opencodeModule is the file name of OpenCode's plugin: OpenCode loads
// every module in its plugins directory.
const opencodeModule = "git-handoff.js"

func opencodeFiles() ([]File, error) {
	return []File{{Path: opencodeModule, Data: []byte(agentconf.OpenCodePlugin())}}, nil
}

// RepoFiles are the files at the repository's root that make it a
// marketplace for the agents that read one, pointing into dir (this
// package's directory, relative to the root).
func RepoFiles(dir string) ([]File, error) {
	return collect(
		func() (File, error) { return ClaudeMarketplace("./" + dir + "/claude-code") },
		func() (File, error) { return CodexMarketplace("./" + dir + "/codex") },
		func() (File, error) { return CursorMarketplace("./" + dir + "/cursor") },
		func() (File, error) { return CopilotMarketplace("./" + dir + "/copilot") },
	)
}
