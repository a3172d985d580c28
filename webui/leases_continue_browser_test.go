package webui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/webui"
)

// The Leases panel and Continue in…, in one browser: the panel shows who
// holds what, and Break, with a reason, frees another person's lease; then
// s5 is continued in gemini through the picker, the preview (which leaves
// every ref as it was) and the confirmation.
func TestLeasesAndContinueInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	f.takeLease(t, "s5", "issue:42", "the lexer rewrite")
	f.takeLease(t, "s7", "path:src/lexer/**", "")
	f.modify(t, "s5", func(r *session.Record) { r.Summary = "The lexer reads nested comments; numbers are next." })
	url := f.start(t)
	ctx, cancel := context.WithTimeout(browser(t), 90*time.Second)
	defer cancel()
	dir := artifacts(t)

	bobs := `#leases-body tr[data-lease="issue:42"]`
	do(t, ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible(css(bobs)))
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll("#leases-body tr")].map(r => r.textContent)`)
	if len(rows) != 2 || !strings.Contains(rows[0]+rows[1], "claude-code · s5bob") || !strings.Contains(rows[0]+rows[1], "in 30m unless renewed") {
		t.Fatalf("the Leases panel shows %q", rows)
	}
	// dev's own session's lease can be released; bob's only broken.
	actions := eval[[]string](t, ctx, `[...document.querySelectorAll("#leases-body button")].map(b => b.className + " " + b.dataset.id)`)
	if strings.Join(actions, ",") != "break issue:42,release path:src/lexer/**" && strings.Join(actions, ",") != "release path:src/lexer/**,break issue:42" {
		t.Fatalf("the leases' actions are %q", actions)
	}
	screenshot(t, ctx, dir, "leases-1400x900")

	click(t, ctx, `button.break[data-id="issue:42"]`)
	asked := eval[string](t, ctx, `document.querySelector("dialog[open]").textContent`)
	if !strings.Contains(asked, "Break issue:42?") || !strings.Contains(asked, "Session s5 of bob (claude-code)") {
		t.Fatalf("the Break dialog says %q", asked)
	}
	const why = "s5's agent crashed an hour ago"
	confirm(t, ctx, map[string]string{"reason": why}, true)
	waitMessage(t, ctx, "Broke issue:42 (held by session s5)")
	do(t, ctx, chromedp.WaitNotPresent(css(bobs)))
	v := f.lease(t, "issue:42")
	if last := v.History[len(v.History)-1]; v.Held() || last.Action != "break" || last.Reason != why {
		t.Fatalf("the page showed issue:42 broken; it is %+v, last event %+v", v.Record, last)
	}

	// Continue in…: the picker offers the installed agents but s5's own.
	click(t, ctx, `button.continue[data-id="s5"]`)
	offered := eval[[]string](t, ctx, `[...document.querySelectorAll('dialog[open] select[name="in"] option')].map(o => o.value)`)
	if strings.Join(offered, ",") != "gemini,shell" {
		t.Fatalf("Continue in… offers %q", offered)
	}
	before := f.refs(t)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#dialog-body [name="in"]').value = "gemini"; document.querySelector("#dialog-ok").click()`),
		chromedp.WaitVisible(css(`dialog[open] pre.brief`)))
	shown := eval[[]string](t, ctx, `[document.querySelector("dialog[open] pre.brief").textContent, document.getElementById("dialog-body").lastChild.textContent]`)
	brief := shown[0]
	if !strings.Contains(brief, "numbers are next") || !strings.Contains(brief, "continued by hand from claude-code") || shown[1] != brief {
		t.Fatalf("the preview shows %q, ending with %q", brief, shown[1])
	}
	if after := f.refs(t); after != before {
		t.Fatalf("the preview changed refs:\nbefore\n%s\nafter\n%s", before, after)
	}
	screenshot(t, ctx, dir, "continue-preview-1400x900")
	confirm(t, ctx, nil, true)
	waitMessage(t, ctx, "Session s5 continues in gemini")
	if line := eval[string](t, ctx, `document.querySelector("#message input.copy-line").value`); line != "git handoff session launch s5 --exec" {
		t.Fatalf("after the continuation the page offers %q to copy", line)
	}
	s5 := f.session(t, "s5")
	if s5.Harness != "gemini" || s5.Continued == nil || s5.Continued.From != "claude-code" {
		t.Fatalf("the page showed s5 continued; it is %+v (continued %+v)", s5, s5.Continued)
	}
	work, err := chromedp.Run(ctx, chromedp.Poll[string](`(r => r && r.querySelector(".continued") ? r.querySelector(".work").textContent : null)(document.querySelector('#sessions-body tr[data-id="s5"]'))`,
		chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil || !strings.Contains(work, "claude-code → gemini by hand") || !strings.Contains(work, "git handoff session launch s5 --exec") {
		t.Fatalf("s5's row after the continuation: %q (%v)", work, err)
	}
}
