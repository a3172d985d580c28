package handoff

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// What an agent's failure hook reports (Claude Code's StopFailure: its
// turn ended on an API error) and what git-handoff decides from it: when
// the error means the agent cannot go on (a usage limit, billing, its
// credentials, the API itself failing) and handoff.fallback names agents,
// the session continues in the first of them that is installed and not
// limited itself (Continue). A limit is remembered for the person until
// its reset, so that no later fallback picks that agent.

// AgentFailureOptions are what a failure hook reported.
type AgentFailureOptions struct {
	Harness  string
	NativeID string
	// Error is the agent's kind of failure; Claude Code 2.1 sends one of
	// authentication_failed, oauth_org_not_allowed, billing_error,
	// rate_limit, overloaded, invalid_request, model_not_found,
	// server_error, unknown, max_output_tokens.
	Error   string
	Details string // error_details, when given
	// Message is the text the agent showed for it (Claude Code's
	// last_assistant_message is the error's text, e.g. "You've hit your
	// session limit · resets 3pm (UTC)").
	Message string
}

// failures are the errors after which an agent cannot go on by itself, by
// what the new agent is told, and whether the agent is limited (not to be
// picked as a fallback) until a reset. Others (a prompt too long, an
// unknown model, the output cap) are this conversation's, not the
// agent's: no continuation.
var failures = map[string]struct {
	label   string
	limited bool
}{
	"rate_limit":            {"usage limit", true},
	"billing_error":         {"billing error", true},
	"authentication_failed": {"authentication failed", true},
	"oauth_org_not_allowed": {"its organization is not allowed", true},
	"overloaded":            {"the API is overloaded", false},
	"server_error":          {"an API server error", false},
}

// AgentFailureResult is what the hook decided.
type AgentFailureResult struct {
	Session string
	// Continue is the continuation to run; nil when none is (Why says).
	Continue *ContinueOptions
	// InPlace: the agent runs under tmux, where the continuation stops it
	// and starts the fallback in its pane. The caller runs it in a process
	// of its own: stopping the agent ends its hook's process group.
	InPlace bool
	Why     string
	Notices []string
}

// AgentFailure decides what a failure hook's report leads to. It changes
// nothing but the memory of the agent's limit: the continuation itself is
// Continue, which the caller runs (at once, or detached when InPlace).
func AgentFailure(ctx context.Context, st refstore.Clone, opts AgentFailureOptions, clock Clock) (AgentFailureResult, error) {
	h, err := harness.Lookup(opts.Harness)
	if err != nil {
		return AgentFailureResult{}, err
	}
	s, ok, err := agentSession(ctx, st, h.Name, opts.NativeID, SourceResume, clock())
	if err != nil || !ok {
		if id, _ := SessionID(st, ""); id != "" && err == nil {
			// The session here was continued from this agent already:
			// the report comes from a watcher that was not first.
			if cur, rerr := session.Read(ctx, st, id); rerr == nil && cur.Continued != nil && cur.Continued.From == h.Name {
				return AgentFailureResult{Session: id, Why: fmt.Sprintf("%s stopped; session %s continues in %s already", h.Name, id, cur.Continued.To)}, nil
			}
		}
		return AgentFailureResult{Why: "no live session for this agent here"}, err
	}
	res := AgentFailureResult{Session: s.ID}
	f, fatal := failures[opts.Error]
	if !fatal {
		res.Why = fmt.Sprintf("%s stopped on %q, which another agent would not get past", h.Name, opts.Error)
		return res, nil
	}
	now := clock()
	why := h.Name + " stopped: " + f.label
	reset, resetText := resetOf(opts.Message, now)
	if resetText != "" {
		why += ", resets " + resetText
	}
	if f.limited {
		until := now.Add(defaultLimitHold)
		if !reset.IsZero() {
			until = reset
		}
		if err := RememberLimit(ctx, st, s.Owner, h.Name, Limit{Until: until, Why: why}, now); err != nil {
			res.Notices = append(res.Notices, "the limit was not remembered: "+err.Error())
		}
	}
	fallbacks, err := Fallbacks(ctx, st)
	if err != nil {
		return res, err
	}
	if len(fallbacks) == 0 {
		res.Why = why + "; " + FallbackKey + " is not set, so nothing continues by itself (`git handoff continue --in AGENT` does it by hand)"
		return res, nil
	}
	agents, skipped, err := ChooseFallbacks(st, s.Owner, h.Name, fallbacks, now)
	if err != nil {
		return res, err
	}
	if len(skipped) > 0 {
		res.Notices = append(res.Notices, "passed over: "+skippedText(skipped))
	}
	if len(agents) == 0 {
		res.Why = why + "; no agent of " + FallbackKey + " can take over"
		return res, nil
	}
	rs := runtimeState(ctx, s.Record)
	res.InPlace = rs != nil && rs.State == tmuxrt.StateLive
	res.Continue = &ContinueOptions{ID: s.ID, To: agents[0], Then: agents[1:], From: h.Name, Why: why, Auto: true, Tmux: res.InPlace}
	res.Why = why
	return res, nil
}

// resetRE finds the reset Claude Code appends to a limit's message:
// "· resets 3pm (UTC)", "resets 3:30pm (Europe/Paris)", "resets Dec 7,
// 3pm (UTC)" (its format: the hour alone when on the hour, the date when
// more than a day away, the time zone in parentheses).
var resetRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`resets ((?:([A-Z][a-z]{2}) (\d{1,2}), (?:(\d{4}), )?)?(\d{1,2})(?::(\d{2}))?([ap]m))(?: \(([^)]+)\))?`)
})

// resetOf reads the reset time out of an agent's limit message: the time
// (zero when it names none, or a zone not known here) and the words as
// said, for the brief ("15:00 UTC").
func resetOf(msg string, now time.Time) (time.Time, string) {
	m := resetRE().FindStringSubmatch(msg)
	if m == nil {
		return time.Time{}, ""
	}
	said := m[1]
	if m[8] != "" {
		said += " (" + m[8] + ")"
	}
	loc := time.UTC
	if m[8] != "" {
		l, err := time.LoadLocation(m[8])
		if err != nil {
			return time.Time{}, said
		}
		loc = l
	}
	hour, min := atoi(m[5]), atoi(m[6])
	if hour < 1 || hour > 12 || min > 59 {
		return time.Time{}, said
	}
	hour %= 12
	if m[7] == "pm" {
		hour += 12
	}
	local := now.In(loc)
	var t time.Time
	if m[2] != "" {
		mon, err := time.Parse("Jan", m[2])
		if err != nil {
			return time.Time{}, said
		}
		year := local.Year()
		if m[4] != "" {
			year = atoi(m[4])
		}
		t = time.Date(year, mon.Month(), atoi(m[3]), hour, min, 0, 0, loc)
		if m[4] == "" && t.Before(local) {
			t = t.AddDate(1, 0, 0)
		}
	} else {
		t = time.Date(local.Year(), local.Month(), local.Day(), hour, min, 0, 0, loc)
		if !t.After(local) {
			t = t.AddDate(0, 0, 1)
		}
	}
	return t, t.UTC().Format("15:04 MST") + dateIfNotToday(t, now)
}

// dateIfNotToday adds the day when a reset is not today (UTC).
func dateIfNotToday(t, now time.Time) string {
	if t.UTC().Format("2006-01-02") == now.UTC().Format("2006-01-02") {
		return ""
	}
	return " on " + t.UTC().Format("Jan 2")
}

func atoi(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
