// Package agentconf writes, removes and checks the project-level hook
// configuration of the coding agents, so that each runs
// `git handoff hook agent <harness> <event>` when a session starts, when it
// stops and when it ends. Every file is merged into what is there: a user's
// own hooks and keys are kept, in their order; our entries are recognized
// by their command, and instruction-file sections by marker comments.
package agentconf

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-handoff/git-handoff/harness"
)

// Marker is in every hook command we install, those of earlier versions
// too (which began with it): what Remove and Check recognize as ours.
const Marker = "git handoff hook agent"

// direct begins every hook command we install: the binary run as itself,
// found on PATH, when it is there.
const direct = "if command -v git-handoff >/dev/null 2>&1; then git-handoff hook agent "

// Our normalized event names (the contract agenthook implements).
const (
	EventStart = "session-start"
	EventStop  = "stop"
	EventEnd   = "session-end"
	// EventCompact runs before the agent compacts its context: the
	// session's summary is kept before the context it came from is lost.
	EventCompact = "pre-compact"
	// EventStopFailure runs when the agent's turn ended on an API error
	// (a usage limit): the session may continue in a fallback agent.
	EventStopFailure = "stop-failure"
	// EventPreToolUse runs before the agent's file-writing tools: a write
	// under a path lease another session holds is refused. Each agent's
	// entry carries a matcher naming those tools where the agent takes
	// one, so reads, searches and shells never start the hook.
	EventPreToolUse = "pre-tool-use"
)

// Command is the hook command for one agent and event. It ends in
// `|| true` so that a missing or broken git-handoff never fails the agent's
// hook: the agent goes on as if no hook were there.
//
// It runs git-handoff itself when the shell finds it on PATH, where every
// way of installing it puts it, and `git handoff` otherwise (git also
// looks in its exec-path). `git handoff` alone would cost a whole git
// start before ours, which reads git's configuration for an alias named
// handoff: about a third of what the pre-tool hook costs every write (8
// to 14 ms of 50 on a loaded 2-core machine, bench/leasehook.sh). The
// shell looks git-handoff up again at each run, so a binary that moved
// is found where it is now.
func Command(harnessName, event string) string {
	args := harnessName + " " + event
	return direct + args + "; else " + Marker + " " + args + "; fi || true"
}

// isCommand says whether cmd begins as a hook command of ours does, this
// version's or an earlier one's.
func isCommand(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	return strings.HasPrefix(cmd, direct) || strings.HasPrefix(cmd, Marker)
}

// ErrUnknownAgent is returned for a name no agent here answers to.
var ErrUnknownAgent = errors.New("unknown agent")

// Action is what Install or Remove did to one file.
type Action string

const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	Removed   Action = "removed" // the file held only our part, and is gone
	Absent    Action = "absent"  // Remove: nothing of ours was there
)

// FileResult is one file Install or Remove looked at, relative to the
// repository root, with forward slashes.
type FileResult struct {
	Path   string
	Action Action
}

// AgentResult is what Install or Remove did for one agent.
type AgentResult struct {
	Agent   string
	Files   []FileResult
	Notices []string // what the user should do by hand, e.g. an aider read: list we would not edit
}

// Changed says whether any file was written or deleted.
func (r AgentResult) Changed() bool {
	for _, f := range r.Files {
		if f.Action != Unchanged && f.Action != Absent {
			return true
		}
	}
	return false
}

// Report is what Install or Remove did, agent by agent.
type Report struct{ Agents []AgentResult }

// Changed says whether any file was written or deleted.
func (r Report) Changed() bool {
	return slices.ContainsFunc(r.Agents, AgentResult.Changed)
}

// State is how far one file, or one agent, is configured.
type State string

const (
	Installed  State = "installed"
	Missing    State = "missing"
	Stale      State = "stale"      // our entry is there but not as we would write it now
	Partial    State = "partial"    // some of our entries are there, others missing
	Unreadable State = "unreadable" // malformed JSON, an unterminated section
)

// FileStatus is the state of one file.
type FileStatus struct {
	Path   string
	State  State
	Detail string
}

// Problem is something that keeps installed hooks from running, and what
// to do about it.
type Problem struct {
	Problem string
	Remedy  string
}

// Status is the state of one agent's configuration.
type Status struct {
	Agent    string
	State    State
	Files    []FileStatus
	Problems []Problem
}

// OK says whether the agent's hooks are installed and nothing is known to
// keep them from running.
func (s Status) OK() bool { return s.State == Installed && len(s.Problems) == 0 }

// Options tune Check. The zero value reads the environment.
type Options struct {
	// CodexHome is where Codex keeps config.toml (its hook trust);
	// "" means $CODEX_HOME, else ~/.codex.
	CodexHome string
}

// part is one file of an agent's configuration.
type part interface {
	rel() string
	// install returns the file's new content, and notices for the user.
	// Content equal to cur means nothing to do.
	install(cur []byte, exists bool) ([]byte, []string, error)
	// remove returns the content without our part; del when the file
	// held nothing else and should go.
	remove(cur []byte) (next []byte, del bool, err error)
	check(cur []byte, exists bool) (State, string)
}

// agent is one coding agent's configuration: its files, and any checks
// beyond them.
type agent struct {
	name  string
	parts []part
	// problems reports what keeps installed hooks from running.
	problems func(root string, o Options) []Problem
}

// registry names each agent beside the function that builds its
// configuration, which renders hook files: naming them (every start's help
// text does) must not build them all.
var registry = []struct {
	name  string
	build func() agent
}{
	{"claude-code", claudeCode}, {"codex", codex}, {"gemini", gemini}, {"copilot", copilot},
	{"cursor", cursor}, {"goose", goose}, {"opencode", opencode}, {"aider", aider},
}

func agents() []agent {
	out := make([]agent, len(registry))
	for i, r := range registry {
		out[i] = r.build()
	}
	return out
}

// Names returns the agents this package configures, in a fixed order.
func Names() []string {
	n := make([]string, len(registry))
	for i, r := range registry {
		n[i] = r.name
	}
	return n
}

func find(name string) (agent, bool) {
	for _, r := range registry {
		if r.name == name {
			return r.build(), true
		}
	}
	return agent{}, false
}

// Resolve turns what the user typed (names or aliases the harness
// catalogue knows, comma-separated lists, "all") into canonical agent
// names, each once, in Names' order.
func Resolve(args []string) ([]string, error) {
	want := map[string]bool{}
	for _, arg := range args {
		for _, n := range strings.Split(arg, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if strings.EqualFold(n, "all") {
				for _, a := range Names() {
					want[a] = true
				}
				continue
			}
			h, err := harness.Lookup(n)
			if _, ok := find(h.Name); err != nil || !ok {
				return nil, fmt.Errorf("%w %q: known agents are %s (or all)", ErrUnknownAgent, n, strings.Join(Names(), ", "))
			}
			want[h.Name] = true
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%w: name one of %s (or all)", ErrUnknownAgent, strings.Join(Names(), ", "))
	}
	var out []string
	for _, n := range Names() {
		if want[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// pending is one file's planned change.
type pending struct {
	path string
	old  []byte
	next []byte
	del  bool
	res  *FileResult
}

// Install writes each named agent's configuration under root, the
// worktree's top directory. Every file is worked out before any is written:
// a malformed file fails the whole call and nothing changes.
func Install(root string, names []string) (Report, error) {
	return apply(root, names, func(p part, cur []byte, exists bool, ar *AgentResult) (pending, error) {
		next, notes, err := p.install(cur, exists)
		if err != nil {
			return pending{}, err
		}
		ar.Notices = append(ar.Notices, notes...)
		action := Unchanged
		switch {
		case !exists:
			action = Created
		case !bytes.Equal(next, cur):
			action = Updated
		}
		return pending{next: next, res: &FileResult{Path: p.rel(), Action: action}}, nil
	})
}

// Remove takes our entries out of each named agent's configuration. A file
// is deleted only when nothing but our part was in it.
func Remove(root string, names []string) (Report, error) {
	return apply(root, names, func(p part, cur []byte, exists bool, _ *AgentResult) (pending, error) {
		if !exists {
			return pending{res: &FileResult{Path: p.rel(), Action: Absent}}, nil
		}
		next, del, err := p.remove(cur)
		if err != nil {
			return pending{}, err
		}
		action := Updated
		switch {
		case del:
			action = Removed
		case bytes.Equal(next, cur):
			action = Absent
		}
		return pending{next: next, del: del, res: &FileResult{Path: p.rel(), Action: action}}, nil
	})
}

type planFunc func(p part, cur []byte, exists bool, ar *AgentResult) (pending, error)

func apply(root string, names []string, plan planFunc) (Report, error) {
	var rep Report
	var todo []pending
	for _, n := range names {
		a, ok := find(n)
		if !ok {
			return Report{}, fmt.Errorf("%w %q", ErrUnknownAgent, n)
		}
		ar := AgentResult{Agent: a.name}
		for _, p := range a.parts {
			path := filepath.Join(root, filepath.FromSlash(p.rel()))
			cur, exists, err := readFile(path)
			if err != nil {
				return Report{}, err
			}
			pd, err := plan(p, cur, exists, &ar)
			if err != nil {
				return Report{}, fmt.Errorf("%s: %s: %w (the file was left as it is)", a.name, p.rel(), err)
			}
			pd.path, pd.old = path, cur
			todo = append(todo, pd)
			ar.Files = append(ar.Files, *pd.res)
		}
		rep.Agents = append(rep.Agents, ar)
	}
	for _, pd := range todo {
		switch pd.res.Action {
		case Created, Updated:
			if err := writeFile(root, pd.path, pd.next); err != nil {
				return rep, err
			}
		case Removed:
			if err := os.Remove(pd.path); err != nil {
				return rep, fmt.Errorf("removing %s: %w", pd.path, err)
			}
			pruneDirs(root, filepath.Dir(pd.path))
		}
	}
	return rep, nil
}

// Check reports each named agent's configuration under root.
func Check(root string, names []string, o Options) ([]Status, error) {
	var out []Status
	for _, n := range names {
		a, ok := find(n)
		if !ok {
			return nil, fmt.Errorf("%w %q", ErrUnknownAgent, n)
		}
		st := Status{Agent: a.name}
		var states []State
		for _, p := range a.parts {
			cur, exists, err := readFile(filepath.Join(root, filepath.FromSlash(p.rel())))
			if err != nil {
				return nil, err
			}
			s, detail := p.check(cur, exists)
			st.Files = append(st.Files, FileStatus{Path: p.rel(), State: s, Detail: detail})
			states = append(states, s)
		}
		st.State = combine(states)
		if st.State != Missing && a.problems != nil {
			st.Problems = a.problems(root, o)
		}
		out = append(out, st)
	}
	return out, nil
}

// combine folds the states of an agent's files (or of a file's entries)
// into one: unreadable and stale win, all installed is installed, nothing
// is missing, a mixture is partial.
func combine(states []State) State {
	switch {
	case slices.Contains(states, Unreadable):
		return Unreadable
	case slices.Contains(states, Stale):
		return Stale
	case len(states) == 0:
		return Missing
	}
	all := func(s State) bool {
		return !slices.ContainsFunc(states, func(x State) bool { return x != s })
	}
	switch {
	case all(Installed):
		return Installed
	case all(Missing):
		return Missing
	}
	return Partial
}

func readFile(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, true, nil
}

// writeFile replaces path through a temporary file in its directory, so
// that an agent reading its settings at that moment sees the old file or
// the new one, never half of one. It keeps the file's permission bits.
func writeFile(root, path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), mode)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// pruneDirs removes dir and its parents up to (not including) root while
// they are empty: the directories an install created for its files.
func pruneDirs(root, dir string) {
	root = filepath.Clean(root)
	for dir = filepath.Clean(dir); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return // not empty, or not ours to remove
		}
	}
}
