package brief

import (
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

func TestTerminalExcerpt(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		want      string
		truncated bool
	}{
		{"plain", "hello\nworld\n", "hello\nworld", false},
		{"colours", "\x1b[1;31mERR\x1b[0m failed\n", "ERR failed", false},
		{"window title (OSC with BEL)", "\x1b]0;title\x07$ ls\n", "$ ls", false},
		{"OSC with ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link", false},
		{"carriage return overwrites", "progress 10%\rprogress 100%\n", "progress 100%", false},
		{"CRLF is a newline", "a\r\nb\r\n", "a\nb", false},
		{"backspace erases", "abx\bc\n", "abc", false},
		{"cursor moves", "\x1b[2J\x1b[H\x1b[?25lready\n", "ready", false},
		{"charset selection", "\x1b(Bok\n", "ok", false},
		{"other controls dropped", "a\x07b\x00c\n", "abc", false},
		{"invalid utf-8", "a\xffb\n", "a\uFFFDb", false},
		{"leading blank lines", "\n\n  \nx\n", "x", false},
		{"trailing spaces", "x   \n", "x", false},
		{"escape cut at the end", "x\n\x1b[3", "x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := TerminalExcerpt([]byte(tt.raw))
			if got != tt.want || truncated != tt.truncated {
				t.Errorf("TerminalExcerpt(%q) = %q, %v; want %q, %v", tt.raw, got, truncated, tt.want, tt.truncated)
			}
		})
	}
}

func TestTerminalExcerptKeepsTheEnd(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		b.WriteString(strings.Repeat("x", i%70))
		b.WriteString("\n")
	}
	b.WriteString("the last line\n")
	got, truncated := TerminalExcerpt([]byte(b.String()))
	if !truncated {
		t.Error("not marked truncated")
	}
	if len(got) > maxTerminalBytes || strings.Count(got, "\n")+1 > maxTerminalLines {
		t.Errorf("excerpt of %d bytes, %d lines: over the caps", len(got), strings.Count(got, "\n")+1)
	}
	if !strings.HasSuffix(got, "the last line") {
		t.Errorf("excerpt does not end with the last line: %q", got[len(got)-40:])
	}
	long := strings.Repeat("é", 5000)
	got, _ = TerminalExcerpt([]byte(long))
	if len(got) > maxTerminalBytes || !strings.HasPrefix(got, "é") {
		t.Errorf("a long line is not cut at a rune boundary within the cap: %d bytes, %q…", len(got), got[:4])
	}
}

func TestBuildPackage(t *testing.T) {
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	in := PackageInput{
		Old: Predecessor{ID: "app-7", Harness: "claude-code", Model: "opus", Branch: "feat", Status: "active",
			Summary: "half done", Prompt: "fix it", UpdatedAt: now, PR: &PRLink{Repo: "o/r", Number: 12}},
		NewID:    "app-12",
		Reason:   "stuck",
		Baton:    &baton.Baton{ID: "h-1", NextSteps: []string{"finish"}, FailedApproaches: []string{"regexp"}},
		Commits:  []refstore.Commit{{ID: "0123456789abcdef", Subject: "lexer"}},
		Total:    3,
		Terminal: "uses ``` fences",
		Now:      now,
	}
	got := BuildPackage(in)
	for _, want := range []string{
		"you replace session app-7", "run by claude-code (opus)", "Reason: stuck", "Branch: `feat`",
		"Its last status: active", "half done", "fix it", "baton h-1 (carried over to you)", "1. finish",
		"- regexp", "0123456789 lexer", "… and 2 more", "o/r#12", "````\nuses ``` fences\n````",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("package lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got[len(got)-300:], "confirm the current state") {
		t.Errorf("package does not end with the instruction to confirm the state:\n%s", got)
	}
	in.Old.Summary = ""
	in.Total, in.Commits, in.Baton, in.Terminal = 0, nil, nil, ""
	got = BuildPackage(in)
	for _, want := range []string{"It left none.", "None found."} {
		if !strings.Contains(got, want) {
			t.Errorf("package lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "terminal") || strings.Contains(got, "baton") {
		t.Errorf("empty sections shown:\n%s", got)
	}
}
