package handoff

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// SigningState is whether this repository signs its records, for a
// surface that shows verification only where it means something: in a
// repository that does not sign, every baton is unverified and saying so
// on each is noise.
type SigningState struct {
	Signs         bool // records written here are signed (handoff.sign, a signing key)
	RequireSigned bool // handoff.requireSigned: unverified batons are not delivered
}

// Signing reads the repository's signing setup.
func Signing(ctx context.Context, st refstore.Clone) (SigningState, error) {
	cfg, err := st.Signing(ctx)
	if err != nil {
		return SigningState{}, fmt.Errorf("reading the signing setup: %w", err)
	}
	return SigningState{Signs: cfg.Enabled || cfg.RequireSigned, RequireSigned: cfg.RequireSigned}, nil
}

// Objectives reads the objective of each owner and branch given (as
// `git handoff objective` shows it), keyed by ObjectiveKey; pairs with
// none are absent. An unreadable objective is a notice, not a failure.
func Objectives(ctx context.Context, st refstore.Clone, pairs [][2]string) (map[string]*baton.Objective, []string) {
	out := map[string]*baton.Objective{}
	var notices []string
	for _, p := range pairs {
		k := ObjectiveKey(p[0], p[1])
		if _, done := out[k]; done {
			continue
		}
		o, _, err := baton.ReadObjective(ctx, st, p[0], p[1])
		switch {
		case err != nil:
			notices = append(notices, fmt.Sprintf("the objective of %s on %s: %v", p[0], p[1], err))
		case o != nil:
			out[k] = o
		}
	}
	return out, notices
}

// ObjectiveKey is the key of Objectives' map.
func ObjectiveKey(owner, branch string) string { return owner + "\x00" + branch }

// ErrNoPane says a session has no tmux pane to read: no runtime
// git-handoff started, or its tmux session is gone or unreachable.
var ErrNoPane = errors.New("no tmux pane to read")

// SessionPaneResult is the end of what a session's agent shows.
type SessionPaneResult struct {
	Lines []string
	State *RuntimeState
}

// SessionPane reads the last lines (at most maxLines) of the tmux pane of
// a session's agent, live or lingering after its agent exited; a session
// with no pane here is ErrNoPane. One tmux capture per call: a surface
// that shows panes bounds how often it asks.
func SessionPane(ctx context.Context, st refstore.Clone, id string, maxLines int) (SessionPaneResult, error) {
	cur, err := session.Read(ctx, st, id)
	if err != nil {
		return SessionPaneResult{}, err
	}
	rs := runtimeState(ctx, cur.Record)
	res := SessionPaneResult{State: rs}
	if rs == nil || (rs.State != tmuxrt.StateLive && rs.State != tmuxrt.StateExited) {
		why := "it runs in no tmux session git-handoff started"
		if rs != nil {
			why = "its tmux session is " + rs.State
			if rs.Why != "" {
				why += ": " + rs.Why
			}
		}
		return res, fmt.Errorf("session %q: %w (%s)", id, ErrNoPane, why)
	}
	b, err := server(cur.Runtime).Capture(ctx, cur.Runtime.Name, maxLines)
	if err != nil {
		return res, err
	}
	res.Lines = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return res, nil
}
