package agentconf

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Codex reads project hooks from .codex/hooks.json, in Claude Code's shape
// under a top-level "hooks" object (HARNESSES.md, checked with codex
// 0.171.0): SessionStart, Stop, PreCompact and SessionEnd, which ends the
// session; PreToolUse for apply_patch, its one tool that writes files (its
// hook payload names it so, whatever the matcher said).
func codex() agent {
	const h = "codex"
	return agent{
		name: h,
		parts: []part{hooksFile{
			path:    codexHooks,
			grouped: true,
			cmdKey:  "command",
			events: []hookEvent{
				{"SessionStart", groupEntry("", h, EventStart, nil)},
				{"PreToolUse", groupEntry("apply_patch", h, EventPreToolUse, nil)},
				{"Stop", groupEntry("", h, EventStop, nil)},
				{"PreCompact", groupEntry("", h, EventCompact, nil)},
				{"SessionEnd", groupEntry("", h, EventEnd, nil)},
			},
		}},
		problems: codexProblems,
	}
}

const codexHooks = ".codex/hooks.json"

// bypassRemedy is how to run Codex so that project hooks run whatever their
// trust: `session launch` starts Codex that way.
const bypassRemedy = "start codex through `git handoff session launch ID` (it passes --dangerously-bypass-hook-trust when every project hook is git-handoff's), or run `codex --dangerously-bypass-hook-trust`"

// codexProblems reports what keeps Codex from running the project hooks
// even when they are installed: a linked worktree, and missing trust.
func codexProblems(root string, o Options) []Problem {
	var ps []Problem
	if linkedWorktree(root) {
		ps = append(ps, Problem{
			// Codex 0.171.0 ran a linked worktree's hooks once bypassed
			// (checked), but keys their trust by path: trust given in the
			// main worktree does not reach it. Older releases ignored them
			// altogether (openai/codex issue 27133).
			Problem: "this is a linked git worktree: Codex trusts hooks by the path of their hooks.json, so hooks trusted in the main worktree are untrusted here (and releases before 0.171 ignore them in a linked worktree: openai/codex issue 27133)",
			Remedy:  "trust them again in codex's /hooks screen here, or " + bypassRemedy,
		})
	}
	home := codexHome(o)
	path, err := filepath.Abs(filepath.Join(root, filepath.FromSlash(codexHooks)))
	if err != nil {
		return ps
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	trusted := codexTrusted(filepath.Join(home, "config.toml"))
	var untrusted []string
	for _, ev := range []string{"session_start", "pre_tool_use", "stop", "pre_compact", "session_end"} {
		if !trusted[path+":"+ev] {
			untrusted = append(untrusted, ev)
		}
	}
	if len(untrusted) > 0 {
		ps = append(ps, Problem{
			Problem: "Codex runs project hooks only once trusted, and no trust is recorded for " + path + " (" + strings.Join(untrusted, ", ") + ") in " + filepath.Join(home, "config.toml") +
				"; a hook whose definition changed is skipped until trusted again",
			Remedy: "trust them in codex's /hooks screen, or " + bypassRemedy,
		})
	}
	return ps
}

// codexTrusted reads the hook trust Codex keeps in config.toml, tables
// named [hooks.state."<hooks.json path>:<event>:<group>:<hook>"] holding a
// trusted_hash. It returns "<path>:<event>" for each table with a hash.
// The hash itself (of the hook's definition) is not recomputed here, so a
// recorded trust may still be outdated. A line scan is enough for the one
// table form Codex writes; no TOML library is needed for it.
func codexTrusted(configPath string) map[string]bool {
	out := map[string]bool{}
	codexTables(configPath, `hooks.state`, func(name, key, _ string) {
		if key != "trusted_hash" {
			return
		}
		// name is path:event:group:hook; the path may hold colons.
		parts := strings.Split(name, ":")
		if len(parts) >= 4 {
			out[strings.Join(parts[:len(parts)-2], ":")] = true
		}
	})
	return out
}

// codexTables calls fn for each key = value line of config.toml inside a
// table named [<kind>."<name>"], the form Codex writes for its per-path
// state. A line scan is enough for that one form; no TOML library is
// needed for it. A missing file has no tables.
func codexTables(configPath, kind string, fn func(name, key, value string)) {
	b, err := os.ReadFile(configPath)
	if err != nil {
		return
	}
	pre := "[" + kind + `."`
	name := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name = ""
			if strings.HasPrefix(line, pre) && strings.HasSuffix(line, `"]`) {
				name = strings.TrimSuffix(strings.TrimPrefix(line, pre), `"]`)
			}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); name != "" && ok {
			fn(name, strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
}

// linkedWorktree says whether root is a linked worktree (git worktree
// add): its .git is a file pointing into the main repository's
// .git/worktrees/. A submodule's .git file points into .git/modules/.
func linkedWorktree(root string) bool { return mainWorktree(root) != "" }

// codexHome is where Codex keeps config.toml: the option, else
// $CODEX_HOME, else ~/.codex.
func codexHome(o Options) string {
	if o.CodexHome != "" {
		return o.CodexHome
	}
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// mainWorktree is the main worktree of a linked worktree root ("" for a
// main worktree): its .git file points at <main>/.git/worktrees/<name>.
func mainWorktree(root string) string {
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	gitDir, _, ok := strings.Cut(filepath.ToSlash(dir), "/worktrees/")
	if !ok {
		return ""
	}
	return filepath.Dir(filepath.FromSlash(gitDir))
}
