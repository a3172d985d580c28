// Package harness knows how to start and resume each coding agent: which
// binary, which flags, which session ids it understands. It builds argv and
// never runs anything.
package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Harness is one coding agent (or a person) that can hold a session.
type Harness struct {
	Name      string   // canonical name, stored in session records
	Aliases   []string // other names Lookup accepts
	Binary    string   // program to run; "" when there is no launcher
	CanResume bool     // resumes a conversation by its own session id
	CanPinID  bool     // a fresh launch can be told which session id to use
	DetectEnv []string // variables whose presence means this agent runs the command
	NativeEnv string   // variable holding its own session id in its shell tool's environment, if any
	IDFormat  string   // what its native ids look like, for messages; "" when it has none

	validID func(string) error
	fresh   func(Harness, LaunchOptions) (Launch, error)
	resume  func(Harness, string, LaunchOptions) (Launch, error)
}

// LaunchOptions says what a launch should carry.
type LaunchOptions struct {
	Prompt     string // first message, as text
	PromptFile string // a file holding the brief, for agents that read one
	Model      string // the agent's own model name; "" keeps its default
	SessionID  string // native id to pin on a fresh launch (only where CanPinID)
	// Hooks are hook commands to run for this launch only, for agents that
	// take them on the command line (Codex): its project hooks are skipped
	// until trusted, and a new linked worktree is a path never trusted.
	// The caller vouches for them.
	Hooks []Hook
	// BypassHookTrust runs every hook the agent loads without the trust it
	// keeps itself (Codex: --dangerously-bypass-hook-trust, without which
	// it runs neither Hooks nor an untrusted path's project hooks). Set
	// only when every hook loaded is one the caller vouches for.
	BypassHookTrust bool
}

// Hook is one command for one of the agent's own hook events.
type Hook struct {
	Event   string // the agent's name for it, e.g. "SessionStart"
	Command string // run by the agent's shell
}

// Launch is a command ready to run.
type Launch struct {
	Argv []string // exact argv, program first; never passed through a shell
	Env  []string // KEY=value to add to the environment
	Note string   // what the caller should tell the user, e.g. what was left out
}

// Sentinels, so callers can map errors to exit codes.
var (
	ErrUnknown      = errors.New("unknown harness")
	ErrNoLauncher   = errors.New("harness has no launcher")
	ErrCannotResume = errors.New("harness cannot resume by session id")
	ErrBadID        = errors.New("invalid native session id")
	ErrNoPrompt     = errors.New("nothing to start with")
	ErrBadArg       = errors.New("argument cannot be passed on a command line")
)

// maxArg is Linux's limit on one argv string (MAX_ARG_STRLEN, 32 pages,
// counting the NUL). A longer prompt must go through a file.
const maxArg = 128*1024 - 1

// Lookup finds a harness by name or alias, ignoring case and surrounding space.
func Lookup(name string) (Harness, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, h := range catalogue {
		if h.Name == key || slices.Contains(h.Aliases, key) {
			return h, nil
		}
	}
	return Harness{}, fmt.Errorf("%w %q: known harnesses are %s", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Names returns the canonical names, sorted.
func Names() []string {
	names := make([]string, len(catalogue))
	for i, h := range catalogue {
		names[i] = h.Name
	}
	slices.Sort(names)
	return names
}

// All returns every harness, sorted by name.
func All() []Harness {
	all := slices.Clone(catalogue)
	slices.SortFunc(all, func(a, b Harness) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// ValidateNativeID checks that id has the shape of this harness's own session
// ids, so that an id recorded under one harness is never handed to another.
// Several agents use plain UUIDs and cannot be told apart by shape: callers
// must keep each id next to the name of the harness that issued it.
func (h Harness) ValidateNativeID(id string) error {
	if h.validID == nil {
		return fmt.Errorf("%w: %s has no session ids", ErrBadID, h.Name)
	}
	if err := h.validID(id); err != nil {
		return fmt.Errorf("%w for %s: %q is not %s", ErrBadID, h.Name, id, h.IDFormat)
	}
	return nil
}

// Fresh builds the command that starts a new interactive session with a first
// prompt (opts.Prompt, or opts.PromptFile where the agent reads files).
func (h Harness) Fresh(opts LaunchOptions) (Launch, error) {
	if h.fresh == nil {
		return Launch{}, fmt.Errorf("starting %s: %w; hand the brief over by hand", h.Name, ErrNoLauncher)
	}
	if opts.Prompt == "" && opts.PromptFile == "" {
		return Launch{}, fmt.Errorf("starting %s: %w: give a prompt or a brief file", h.Name, ErrNoPrompt)
	}
	if err := checkArgs(opts.Prompt, opts.PromptFile, opts.Model); err != nil {
		return Launch{}, fmt.Errorf("starting %s: %w", h.Name, err)
	}
	if opts.SessionID != "" {
		if !h.CanPinID {
			return Launch{}, fmt.Errorf("starting %s: it cannot start under a chosen session id; leave the id empty", h.Name)
		}
		if err := h.ValidateNativeID(opts.SessionID); err != nil {
			return Launch{}, fmt.Errorf("starting %s: %w", h.Name, err)
		}
	}
	return h.fresh(h, opts)
}

// Resume builds the command that reopens the agent's own session nativeID.
// opts.Prompt, when set, is sent as the first new message where the agent
// allows it; opts.SessionID is ignored.
func (h Harness) Resume(nativeID string, opts LaunchOptions) (Launch, error) {
	if h.resume == nil {
		if h.fresh == nil {
			return Launch{}, fmt.Errorf("resuming %s: %w", h.Name, ErrNoLauncher)
		}
		return Launch{}, fmt.Errorf("resuming %s: %w; start it fresh with the brief instead", h.Name, ErrCannotResume)
	}
	if err := h.ValidateNativeID(nativeID); err != nil {
		return Launch{}, fmt.Errorf("resuming %s: %w", h.Name, err)
	}
	if err := checkArgs(opts.Prompt, opts.PromptFile, opts.Model); err != nil {
		return Launch{}, fmt.Errorf("resuming %s: %w", h.Name, err)
	}
	return h.resume(h, nativeID, opts)
}

// checkArgs refuses what no argv can carry: a NUL byte ends a C string, and
// one string over maxArg makes exec fail with E2BIG.
func checkArgs(prompt, file, model string) error {
	for _, a := range []struct{ what, v string }{{"prompt", prompt}, {"brief file name", file}, {"model", model}} {
		if strings.ContainsRune(a.v, 0) {
			return fmt.Errorf("%w: the %s holds a NUL byte", ErrBadArg, a.what)
		}
		if len(a.v) > maxArg {
			return fmt.Errorf("%w: the %s is %d bytes, over the %d a command line allows; write it to a file", ErrBadArg, a.what, len(a.v), maxArg)
		}
	}
	return nil
}
