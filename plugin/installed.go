package plugin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Installed is whether an agent has the plugin installed, and where, as
// the agent itself says (its own list command) or, for Cursor and
// OpenCode, which have none, as the copies Install makes show.
type Installed struct {
	// Known says whether it could be told: false when the agent's CLI is
	// not on PATH or its list failed, and Why says which.
	Known bool
	Why   string
	// Where are the places it is installed, none when it is not: for
	// Claude Code a scope ("user", "project DIR", "local DIR"), for the
	// others the agent's copy or the user's settings it is enabled in.
	Where []string
}

// installedOf asks agent s whether the plugin is installed: the uninstall
// plan's first check of the agent's list (the plugin's, not its
// marketplace's), or its first copy that is the plugin's.
func installedOf(ctx context.Context, s spec, e Env) Installed {
	steps := s.uninstall(e.dir(s.agent), e)
	for _, st := range steps {
		if st.present != nil {
			if _, err := e.LookPath(st.present.args[0]); err != nil {
				return Installed{Why: st.present.args[0] + " is not on PATH"}
			}
			items, err := st.present.lists(ctx, e)
			if err != nil {
				return Installed{Why: err.Error()}
			}
			in := Installed{Known: true, Where: []string{}}
			for _, it := range items {
				in.Where = append(in.Where, placeOf(s.agent, it, e))
			}
			return in
		}
	}
	in := Installed{Known: true, Where: []string{}}
	for _, st := range steps {
		if st.Remove == "" {
			continue
		}
		if _, err := os.Lstat(st.Remove); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return Installed{Why: err.Error()}
		}
		ours := true
		if st.ours != nil {
			var err error
			if ours, err = st.ours(st.Remove); err != nil {
				return Installed{Why: err.Error()}
			}
		}
		if ours {
			in.Where = append(in.Where, st.Remove)
		}
	}
	return in
}

// placeOf says where one item of an agent's list has the plugin.
func placeOf(agent string, it map[string]any, e Env) string {
	str := func(k string) string { s, _ := it[k].(string); return s }
	disabled := ""
	if v, ok := it["enabled"].(bool); ok && !v {
		disabled = " (disabled)"
	}
	switch agent {
	case "claude-code":
		scope := str("scope")
		if scope == "" {
			scope = "user"
		}
		if p := str("projectPath"); p != "" {
			return scope + " " + p + disabled
		}
		return scope + disabled
	case "gemini":
		if p := str("path"); p != "" {
			return p + disabled
		}
	case "codex":
		home := os.Getenv("CODEX_HOME")
		if home == "" {
			home = filepath.Join(e.Home, ".codex")
		}
		return "user (" + home + ")" + disabled
	case "copilot":
		return "user (" + e.CopilotHome + ")" + disabled
	}
	return "user" + disabled
}

// installedAll asks every agent at once: each list command starts the
// agent's CLI, which takes seconds.
func installedAll(ctx context.Context, e Env) []Installed {
	out := make([]Installed, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = installedOf(ctx, s, e)
		}()
	}
	wg.Wait()
	return out
}
