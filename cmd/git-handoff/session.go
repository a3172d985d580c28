package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// sessionCommand groups the commands on session records and their lineage.
func sessionCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "session",
		Usage: "list, inspect, replace, switch and restore sessions",
		Description: "Sessions are records under refs/ao/sessions/. Replacing one links the old and the new\n" +
			"session explicitly (supersedes / replacedBy); switching keeps the session and its worktree\n" +
			"and changes the coding agent; restoring revives a session under its own id.",
		Subcommands: []*cli.Command{
			sessionLsCommand(d),
			sessionShowCommand(d),
			sessionLineageCommand(d),
			sessionReplaceCommand(d),
			sessionSwitchCommand(d),
			sessionLaunchCommand(d),
			sessionNativeCommand(d),
			sessionRestoreCommand(d),
			sessionTerminateCommand(d),
			sessionSummaryCommand(d),
		},
	}
}

// sessionID is the session a command names: its first argument, else
// GIT_HANDOFF_SESSION, else this worktree's binding.
func sessionID(c *cli.Context, st *refstore.Store) (string, error) {
	if c.NArg() > 0 {
		return c.Args().First(), nil
	}
	return sessionIDFromEnv(c, st)
}

// sessionIDFromEnv is GIT_HANDOFF_SESSION, else this worktree's binding.
func sessionIDFromEnv(c *cli.Context, st *refstore.Store) (string, error) {
	id, err := handoff.SessionID(st, "")
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", usageErrorf(c, "name a session: git handoff session %s ID (no GIT_HANDOFF_SESSION is set and this worktree is bound to none)", c.Command.Name)
	}
	return id, nil
}

// sessionError gives a session command's error its context and a hint
// where the fix is known.
func sessionError(c *cli.Context, doing, id string, err error) error {
	var rep *session.ReplacedError
	var ro *session.ReadOnlyError
	var sw *session.SwitchingError
	var ex *session.ExistsError
	wrapped := fmt.Errorf("%s: %w", doing, err)
	switch {
	case errors.Is(err, harness.ErrUnknown):
		return usageErrorf(c, "%s: %v", doing, err)
	case errors.As(err, &rep):
		live := rep.Live
		if live == "" {
			live = rep.By
		}
		if live == "" {
			return wrapped
		}
		return withHint(wrapped, fmt.Sprintf("act on its successor: git handoff session show %s", live))
	case errors.As(err, &ro):
		return withHint(wrapped, "a merged session's work is done: start a new session with `git handoff start`")
	case errors.As(err, &sw):
		return withHint(wrapped, "wait for that switch to finish, or retry after the guard expires")
	case errors.As(err, &ex):
		return withHint(wrapped, "pick another --new-id, or leave it out for a generated one")
	case errors.Is(err, refstore.ErrNotFound):
		return withHint(wrapped, "list sessions with `git handoff session ls --all`")
	case errors.Is(err, session.ErrNoFirstMessage):
		return withHint(wrapped, fmt.Sprintf("git handoff session %s %s --prompt 'what to do'", c.Command.Name, id))
	}
	return wrapped
}

// guardHolder names this process in a switch guard.
func guardHolder() string {
	host, _ := os.Hostname()
	who := os.Getenv("USER")
	if who == "" {
		who = "someone"
	}
	return fmt.Sprintf("%s on %s (pid %d)", who, host, os.Getpid())
}

// sessionJSON is a session as --json shows it.
type sessionJSON struct {
	ID                 string                  `json:"id"`
	Ref                string                  `json:"ref"`
	Owner              string                  `json:"owner"`
	Branch             string                  `json:"branch"`
	Worktree           string                  `json:"worktree"`
	Host               string                  `json:"host"`
	Harness            string                  `json:"harness"`
	Model              string                  `json:"model"`
	Status             string                  `json:"status"`
	Prompt             string                  `json:"prompt"`
	Summary            string                  `json:"summary"`
	CreatedAt          time.Time               `json:"createdAt"`
	UpdatedAt          time.Time               `json:"updatedAt"`
	EndedAt            *time.Time              `json:"endedAt"`
	Supersedes         string                  `json:"supersedes"`
	ReplacedBy         string                  `json:"replacedBy"`
	HandoffReason      string                  `json:"handoffReason"`
	HandoffAt          *time.Time              `json:"handoffAt"`
	HandoffContextMode string                  `json:"handoffContextMode"`
	HandoffPackage     string                  `json:"handoffPackage,omitempty"`
	Launched           map[string]launchedJSON `json:"launched"`
	Switching          *switchingJSON          `json:"switching"`
	ClaimedHandoff     *handoffJSON            `json:"claimedHandoff"` // the session's copy of the baton it claimed
	PR                 *prJSON                 `json:"pr"`
	Lineage            string                  `json:"lineage,omitempty"`
}

type launchedJSON struct {
	NativeID string    `json:"nativeId"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
}

type switchingJSON struct {
	By    string    `json:"by"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	To    string    `json:"to"`
}

type prJSON struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	URL    string `json:"url"`
}

// toSessionJSON shapes a record for output; withPackage keeps the handoff
// package, which listings leave out.
func toSessionJSON(s session.Record, withPackage bool) sessionJSON {
	ref, _ := refstore.SessionRef(s.ID)
	out := sessionJSON{
		ID: s.ID, Ref: ref, Owner: s.Owner, Branch: s.Branch, Worktree: s.Worktree, Host: s.Host,
		Harness: s.Harness, Model: s.Model, Status: s.Status, Prompt: s.Prompt, Summary: s.Summary,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, EndedAt: s.EndedAt,
		Supersedes: s.Supersedes, ReplacedBy: s.ReplacedBy, HandoffReason: s.HandoffReason,
		HandoffAt: s.HandoffAt, HandoffContextMode: s.HandoffContextMode,
		Launched: map[string]launchedJSON{}, ClaimedHandoff: claimedCopy(s.ClaimedHandoff),
	}
	if withPackage {
		out.HandoffPackage = s.HandoffPackage
	}
	for h, l := range s.Launched {
		out.Launched[h] = launchedJSON{NativeID: l.NativeID, First: l.First, Last: l.Last}
	}
	if g := s.Switching; g != nil {
		out.Switching = &switchingJSON{By: g.By, Since: g.Since, Until: g.Until, To: g.To}
	}
	if p := s.PR; p != nil {
		out.PR = &prJSON{Repo: p.Repo, Number: p.Number, URL: p.URL}
	}
	return out
}

// claimedCopy shapes the copy of a claimed baton a session record keeps
// like any baton; a copy that does not decode is left out (it is only a
// copy: the baton's own ref is the record).
func claimedCopy(raw json.RawMessage) *handoffJSON {
	if len(raw) == 0 {
		return nil
	}
	var b baton.Baton
	if err := json.Unmarshal(raw, &b); err != nil || b.ID == "" {
		return nil
	}
	ref, _ := refstore.HandoffRef(b.Shared, b.Owner, b.Branch)
	return toJSON(&baton.Stored{Baton: b, Ref: ref})
}

// launchJSON is a launch plan as --json shows it.
type launchJSON struct {
	Session  string   `json:"session"`
	Harness  string   `json:"harness"`
	Mode     string   `json:"mode"`
	NativeID string   `json:"nativeId"`
	Dir      string   `json:"dir"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env"`
	Note     string   `json:"note"`
}

func toLaunchJSON(p session.LaunchPlan) launchJSON {
	return launchJSON{Session: p.Session, Harness: p.Harness, Mode: p.Mode, NativeID: p.NativeID,
		Dir: p.Dir, Argv: nonNil(p.Argv), Env: nonNil(p.Env), Note: p.Note}
}

// printPlan shows a launch plan to a person: the command on stdout, one
// shell-quoted line that can be pasted, and its notes on stderr.
func (d *deps) printPlan(p session.LaunchPlan) {
	if p.Note != "" {
		fmt.Fprintf(d.stderr, "notice: %s\n", p.Note)
	}
	if len(p.Argv) == 0 {
		return
	}
	var parts []string
	if p.Dir != "" {
		parts = append(parts, "cd", shellQuote(p.Dir), "&&")
	}
	for _, e := range p.Env {
		parts = append(parts, shellQuote(e))
	}
	for _, a := range p.Argv {
		parts = append(parts, shellQuote(a))
	}
	fmt.Fprintln(d.stdout, strings.Join(parts, " "))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
