package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
)

// Agents that reported a usage limit are remembered per owner until their
// reset, so that a later session's fallback does not pick one of them. The
// memory is this clone's (Local, "limited/<owner>"): a limit belongs to the
// person's account on this machine, not to the team's records.

// FallbackKey is the git config key naming the agents a session goes on in,
// in order, when its agent cannot ("codex gemini"); unset, never.
const FallbackKey = "handoff.fallback"

// defaultLimitHold is how long a limit is remembered when the agent gave
// no reset time (an API key's 429 names none).
const defaultLimitHold = time.Hour

// Limit is one agent's remembered limit.
type Limit struct {
	Until time.Time `json:"until"`
	Why   string    `json:"why"`
}

func limitedNote(owner string) (string, error) {
	name, err := refstore.EncodeComponent(owner)
	if err != nil {
		return "", err
	}
	return "limited/" + name + ".json", nil
}

// Limited reads the limits remembered for owner that still hold at now.
func Limited(st refstore.Clone, owner string, now time.Time) (map[string]Limit, error) {
	note, err := limitedNote(owner)
	if err != nil {
		return nil, err
	}
	data, err := st.Local().Read(note)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Limit{}, nil
	}
	if err != nil {
		return nil, err
	}
	all := map[string]Limit{}
	if err := json.Unmarshal(data, &all); err != nil {
		// A torn or foreign note only forgets limits: never a reason to
		// refuse a continuation.
		return map[string]Limit{}, nil
	}
	for k, l := range all {
		if !now.Before(l.Until) {
			delete(all, k)
		}
	}
	return all, nil
}

// RememberLimit notes that agent is limited for owner until until, under
// the clone's lock so that two hooks noting at once both keep theirs.
func RememberLimit(ctx context.Context, st refstore.Clone, owner, agent string, l Limit, now time.Time) error {
	note, err := limitedNote(owner)
	if err != nil {
		return err
	}
	unlock, err := st.Local().Lock(ctx, "limited.lock")
	if err != nil {
		return err
	}
	defer unlock()
	all, err := Limited(st, owner, now)
	if err != nil {
		return err
	}
	if old, ok := all[agent]; ok && old.Until.After(l.Until) {
		l.Until = old.Until
	}
	all[agent] = l
	data, err := json.Marshal(all)
	if err != nil {
		return err
	}
	return st.Local().Write(ctx, note, data)
}

// Fallbacks reads handoff.fallback: the agents in order, canonical names.
// An unknown name is an error naming it.
func Fallbacks(ctx context.Context, st refstore.Clone) ([]string, error) {
	vals, err := st.Config(ctx, FallbackKey)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range strings.FieldsFunc(vals[FallbackKey], func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		h, err := harness.Lookup(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", FallbackKey, err)
		}
		out = append(out, h.Name)
	}
	return out, nil
}

// Skipped is a fallback agent passed over, and why.
type Skipped struct{ Agent, Why string }

// lookPath finds an agent's program; tests replace it.
var lookPath = exec.LookPath

// ChooseFallback picks the first of fallbacks that is not the agent that
// stopped (from), is installed (its program on PATH) and is not limited
// for owner. It returns "" when none is, with why each was passed over.
func ChooseFallback(st refstore.Clone, owner, from string, fallbacks []string, now time.Time) (string, []Skipped, error) {
	all, skipped, err := ChooseFallbacks(st, owner, from, fallbacks, now)
	if err != nil || len(all) == 0 {
		return "", skipped, err
	}
	// Those after the first were not passed over: they come next.
	return all[0], skipped, nil
}

// ChooseFallbacks is every agent of fallbacks that can take over, in
// order (the first is tried first; the others when it fails to start),
// and why the others were passed over.
func ChooseFallbacks(st refstore.Clone, owner, from string, fallbacks []string, now time.Time) ([]string, []Skipped, error) {
	limited, err := Limited(st, owner, now)
	if err != nil {
		return nil, nil, err
	}
	var ok []string
	var skipped []Skipped
	for _, name := range fallbacks {
		h, err := harness.Lookup(name)
		if err != nil {
			skipped = append(skipped, Skipped{name, err.Error()})
			continue
		}
		switch l, isLimited := limited[h.Name]; {
		case h.Name == HarnessName(from):
			skipped = append(skipped, Skipped{h.Name, "it is the agent that stopped"})
		case slices.Contains(ok, h.Name):
		case h.Binary == "":
			skipped = append(skipped, Skipped{h.Name, "git-handoff cannot launch it"})
		case isLimited:
			skipped = append(skipped, Skipped{h.Name, fmt.Sprintf("limited until %s (%s)", l.Until.UTC().Format("2006-01-02 15:04 MST"), l.Why)})
		default:
			if _, err := lookPath(h.Binary); err != nil {
				skipped = append(skipped, Skipped{h.Name, fmt.Sprintf("not installed (%q is not on PATH)", h.Binary)})
				continue
			}
			ok = append(ok, h.Name)
		}
	}
	return ok, skipped, nil
}

// skippedText says in one line why the fallbacks were passed over.
func skippedText(sk []Skipped) string {
	parts := make([]string, len(sk))
	for i, s := range sk {
		parts[i] = s.Agent + ": " + s.Why
	}
	return strings.Join(parts, "; ")
}
