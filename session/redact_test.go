package session

import (
	"context"
	"strings"
	"testing"
)

// What a person types into a replacement's reason or a switch's prompt
// is kept in records every clone reads: a credential in it is redacted
// before the record is written, and a notice says which kind.
func TestReasonAndPromptAreRedacted(t *testing.T) {
	ctx := context.Background()
	st := memRepo(t)
	create(t, st, Record{ID: "app-1", Harness: "claude-code", Prompt: "fix it"})
	token := "np" + "m_" + "lbAJ9qhj7Wgq1FkXR8kMdkWQwp2iHF6vKhRM"

	res, err := Switch(ctx, st, RelaunchOptions{ID: "app-1", Harness: "codex", By: "me", Prompt: "publish with " + token}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Session.Prompt; strings.Contains(p, token) || p != "publish with [redacted npm-access-token]" {
		t.Errorf("prompt kept as %q", p)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), "redacted before writing: 1 npm-access-token (the prompt)") {
		t.Errorf("notices %q", res.Notices)
	}

	rep, err := Replace(ctx, st, ReplaceOptions{OldID: "app-1", NewID: "app-2", Reason: "stuck: " + token + " was revoked"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := Read(ctx, st, "app-2")
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"reason": nw.HandoffReason, "package": nw.HandoffPackage, "the old record's prompt": nw.Prompt} {
		if strings.Contains(text, token) {
			t.Errorf("the %s holds the token: %q", what, text)
		}
	}
	if nw.HandoffReason != "stuck: [redacted npm-access-token] was revoked" {
		t.Errorf("reason %q", nw.HandoffReason)
	}
	if !strings.Contains(strings.Join(rep.Notices, "\n"), "redacted before writing: 1 npm-access-token (the reason)") {
		t.Errorf("notices %q", rep.Notices)
	}
	if len(rep.Redacted) == 0 || rep.Redacted[0].Kind != "npm-access-token" {
		t.Errorf("redacted %v", rep.Redacted)
	}
}
