package webui_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/sign/signtest"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
	"github.com/git-handoff/git-handoff/webui"
)

// The page's actions, each through the browser: the button a person
// presses, the dialog they answer, and the record the workflow changed.

func TestDismissConfirmAndUndoInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	url := f.start(t)
	ctx := browser(t)
	row := `#handoffs-body tr.baton[data-id="` + f.waiting + `"]`
	dismiss := `button.dismiss[data-id="` + f.waiting + `"]`
	do(t, ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible(css(row)))

	// Dismiss asks first; cancelling changes nothing.
	click(t, ctx, dismiss)
	asked := eval[string](t, ctx, `document.querySelector("dialog[open]").textContent`)
	if !strings.Contains(asked, "Dismiss baton "+f.waiting) || !strings.Contains(asked, "wire the parser") {
		t.Fatalf("the confirmation says %q", asked)
	}
	confirm(t, ctx, nil, false)
	if !f.live(t, f.waiting) {
		t.Fatal("a cancelled dismissal dismissed the baton")
	}

	// Confirmed, the baton goes, and the message offers an undo.
	click(t, ctx, dismiss)
	confirm(t, ctx, nil, true)
	waitMessage(t, ctx, "Dismissed baton "+f.waiting)
	do(t, ctx, chromedp.WaitNotPresent(css(row)))
	if f.live(t, f.waiting) {
		t.Fatal("the page showed the baton dismissed, but it is still there")
	}
	screenshot(t, ctx, artifacts(t), "dismissed-undo-1400x900")
	click(t, ctx, `#message button.undo`)
	waitMessage(t, ctx, "is waiting again")
	do(t, ctx, chromedp.WaitVisible(css(row)))
	if !f.live(t, f.waiting) {
		t.Fatal("the page showed the baton back, but it is not waiting")
	}

	// Once something else is written where it was, the undo refuses and
	// says why, and the newer baton stays.
	click(t, ctx, dismiss)
	confirm(t, ctx, nil, true)
	waitMessage(t, ctx, "Dismissed baton "+f.waiting)
	res, err := handoff.End(context.Background(), f.store(t), handoff.EndOptions{Session: "s8", Owner: "dev@example.com", Branch: "main",
		Next: []string{"a newer step"}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	click(t, ctx, `#message button.undo`)
	msg := waitMessage(t, ctx, "Could not undo the dismissal")
	if !strings.Contains(msg, "another baton ("+res.Handoff.ID+") was left there since") {
		t.Fatalf("a refused undo says %q", msg)
	}
	if f.live(t, f.waiting) || !f.live(t, res.Handoff.ID) {
		t.Fatal("a refused undo changed the batons")
	}
}

func TestSwitchInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	url := f.start(t)
	ctx := browser(t)
	agentSel := `select.agent-select[data-id="s5"]`
	do(t, ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible(css(agentSel)),
		chromedp.Evaluate[chromedp.Void](`(s => { s.value = "gemini"; s.dispatchEvent(new Event("change", {bubbles: true})) })(document.querySelector('`+agentSel+`'))`))
	waitMessage(t, ctx, "switched from claude-code to gemini")
	if s := f.session(t, "s5"); s.Harness != "gemini" {
		t.Fatalf("s5 runs %q after the switch from the page", s.Harness)
	}
	// A read already under way may draw the old agent once more; the
	// read after the switch draws the new one.
	if _, err := chromedp.Run(ctx, chromedp.Poll[string](`(s => s && !s.disabled && s.value === "gemini" ? s.value : null)(document.querySelector('`+agentSel+`'))`,
		chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("after the switch the dropdown shows %q (%v)", eval[string](t, ctx, `document.querySelector('`+agentSel+`').value`), err)
	}
}

func TestReplaceInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	url := f.start(t)
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(url+"/"))
	click(t, ctx, `button.replace[data-id="s5"]`)
	const reason = "went in circles on the lexer; starting over with a fresh context"
	confirm(t, ctx, map[string]string{"reason": reason, "harness": "gemini", "carryContext": "none"}, true)
	msg := waitMessage(t, ctx, "Session s5 replaced by")
	s5 := f.session(t, "s5")
	if s5.ReplacedBy == "" || !strings.Contains(msg, s5.ReplacedBy) {
		t.Fatalf("the page says %q; s5 is %+v", msg, s5)
	}
	next := f.session(t, s5.ReplacedBy)
	if next.Harness != "gemini" || next.HandoffReason != reason || next.Supersedes != "s5" {
		t.Fatalf("the new session is %+v", next)
	}
	// The lineage shows the reason whole, between the two boxes.
	node := `#lineage-list svg.lineage g.node[data-id="` + next.ID + `"]`
	do(t, ctx, chromedp.WaitVisible(css(node)))
	label := eval[[]string](t, ctx, `(svg => {
		const labels = [...svg.querySelectorAll(".edge-label")];
		const l = labels[labels.length - 1], r = l.getBBox();
		const boxes = [...svg.querySelectorAll("g.node rect")].map(b => b.getBBox());
		const overlaps = boxes.some(b => r.x < b.x + b.width && b.x < r.x + r.width);
		return [l.textContent, String(overlaps)];
	})(document.querySelector('`+node+`').ownerSVGElement)`)
	if label[0] != reason || label[1] != "false" {
		t.Fatalf("the lineage labels the replacement %q (overlapping a box: %s)", label[0], label[1])
	}
	screenshot(t, ctx, artifacts(t), "replaced-1400x900")
}

func TestRestoreInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	url := f.start(t)
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(url+"/"))
	if n := eval[int](t, ctx, `document.querySelectorAll('button.restore[data-id="s5"], button.restore[data-id="s6"]').length`); n != 0 {
		t.Fatalf("%d restore buttons on an active and a merged session", n)
	}
	click(t, ctx, `button.restore[data-id="s1"]`)
	confirm(t, ctx, map[string]string{"prompt": "pick up the parser"}, true)
	waitMessage(t, ctx, "Session s1 restored with codex")
	s1 := f.session(t, "s1")
	if s1.Status != "active" || s1.Prompt != "pick up the parser" {
		t.Fatalf("after the restore s1 is %+v", s1)
	}
	do(t, ctx, chromedp.WaitVisible(css(`button.launch[data-id="s1"]`)))
}

// Launch runs the session's agent (a stand-in codex) in tmux, as `session
// launch --tmux` does; the row then shows it live with the end of its
// pane, and Attach gives the line that attaches a terminal to it.
func TestLaunchAndAttachInBrowser(t *testing.T) {
	tmuxrttest.Socket(t)
	tmuxrttest.Agents(t, "codex")
	f := newFixture(t, webui.Options{})
	f.startSession(t, "s9", "dev@example.com", "work", "codex")
	// A fresh codex starts on the session's prompt (it has no
	// conversation of its own to resume yet).
	f.modify(t, "s9", func(r *session.Record) { r.Prompt = "tokenize nested comments" })
	url := f.start(t)
	ctx := browser(t)
	// Let the page write the clipboard, as a person's click in a focused
	// window would.
	do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return err
	}))
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: url})
			return err
		}))
	}
	do(t, ctx, chromedp.Navigate(url+"/"))
	click(t, ctx, `button.launch[data-id="s9"]`)
	waitMessage(t, ctx, "Session s9 runs codex in tmux session")
	const line = "git handoff session attach s9"
	if v := eval[string](t, ctx, `document.querySelector("#message input.copy-line").value`); v != line {
		t.Fatalf("after the launch the page offers %q to copy", v)
	}
	srv := tmuxrt.FromEnv()
	if p, found, err := srv.Pane(context.Background(), tmuxrt.SessionName("s9")); err != nil || !found || p.Dead {
		t.Fatalf("after the launch from the page, tmux has %+v (found %v, %v)", p, found, err)
	}
	// Live, with the end of its pane.
	pane := `pre.pane[data-id="s9"]`
	do(t, ctx, chromedp.WaitVisible(css(`#sessions-body tr[data-id="s9"] .state-live`)), chromedp.WaitVisible(css(pane)))
	// The end of the pane: the stand-in's argv ends with the brief's
	// last line, the repository's one commit.
	text, err := chromedp.Run(ctx, chromedp.Poll[string](`(p => p && p.textContent.includes("first (Test Dev") ? p.textContent : null)(document.querySelector('`+pane+`'))`,
		chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil || strings.Contains(text, "stand-in codex") {
		_, screen := tmuxrttest.Wait(t, srv, tmuxrt.SessionName("s9"), func(tmuxrt.Pane, bool, string) bool { return true })
		t.Fatalf("the pane shows %q (%v), want its last lines; the row: %q; tmux shows:\n%s", text, err,
			eval[string](t, ctx, `document.querySelector('#sessions-body tr[data-id="s9"]').textContent`), screen)
	}
	screenshot(t, ctx, artifacts(t), "live-session-1400x900")

	do(t, ctx, chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText("")`, chromedp.EvalAwaitPromise))
	click(t, ctx, `button.attach[data-id="s9"]`)
	waitMessage(t, ctx, "Attach a terminal to session s9")
	if v := eval[string](t, ctx, `document.querySelector("#message input.copy-line").value`); v != line {
		t.Fatalf("Attach offers %q to copy, want %q", v, line)
	}
	copied := run(t, ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if copied != line || eval[string](t, ctx, `document.getElementById("message").dataset.copied`) != "yes" {
		t.Fatalf("the clipboard holds %q after Attach", copied)
	}
	// The line names what `session attach` attaches to.
	res, err := handoff.SessionAttach(context.Background(), f.store(t), "s9")
	if err != nil || !strings.Contains(strings.Join(res.Argv, " "), tmuxrt.SessionName("s9")) {
		t.Fatalf("session attach s9: %v, %v", res.Argv, err)
	}
}

// At 1400×900 a dozen batons and more are on screen at once, without
// scrolling.
func TestDenseBoardInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	for i := range 14 {
		if _, err := handoff.End(context.Background(), f.store(t), handoff.EndOptions{Session: fmt.Sprintf("d%d", i),
			Owner: fmt.Sprintf("dev%d@example.com", i%4), Branch: fmt.Sprintf("feat/part-%d", i),
			Next:   []string{fmt.Sprintf("step %d: finish the tokenizer's handling of nested block comments and add tests for them", i)},
			Failed: []string{"a regexp pre-pass"}}, clock); err != nil {
			t.Fatal(err)
		}
	}
	url := f.start(t)
	ctx := browser(t)
	dir := artifacts(t)
	do(t, ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible(css(`#handoffs-body tr.baton:nth-child(17)`)))
	visible := eval[int](t, ctx, `[...document.querySelectorAll("#handoffs-body tr.baton")].filter(r => r.getBoundingClientRect().bottom <= window.innerHeight).length`)
	if visible < 12 {
		t.Fatalf("%d batons visible without scrolling at 1400×900, want at least 12", visible)
	}
	screenshot(t, ctx, dir, "dense-1400x900")
	do(t, ctx, chromedp.EmulateViewport(800, 1000))
	if wide := tooWide(t, ctx); wide != "" {
		t.Fatalf("the page is wider than an 800px window: %s", wide)
	}
	// The table may scroll sideways, but not its actions off the screen.
	if cut := eval[int](t, ctx, `[...document.querySelectorAll("#handoffs-body button.dismiss")].filter(b => b.getBoundingClientRect().right > document.documentElement.clientWidth).length`); cut > 0 {
		t.Fatalf("%d Dismiss buttons are off an 800px window", cut)
	}
	screenshot(t, ctx, dir, "dense-800x1000")
}

// Where the repository signs, each baton says whether it is verified.
func TestSignatureBadgesWhereSignedInBrowser(t *testing.T) {
	signtest.Need(t, "ssh-keygen")
	f := newFixture(t, webui.Options{})
	keys := t.TempDir()
	key, pub := signtest.SSHKey(t, keys, "dev")
	allowed := filepath.Join(keys, "allowed_signers")
	signtest.AllowedSigners(t, allowed, map[string]string{"dev@example.com": pub})
	gittest.Run(t, f.dir, "config", "gpg.format", "ssh")
	gittest.Run(t, f.dir, "config", "user.signingKey", key)
	gittest.Run(t, f.dir, "config", "gpg.ssh.allowedSignersFile", allowed)
	res, err := handoff.End(context.Background(), f.store(t), handoff.EndOptions{Session: "s8", Owner: "dev@example.com", Branch: "signed",
		Next: []string{"a signed step"}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	url := f.start(t)
	ctx := browser(t)
	signed := `#handoffs-body tr.baton[data-id="` + res.Handoff.ID + `"]`
	do(t, ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible(css(signed+` .badge.sig`)))
	got := eval[[]string](t, ctx, `[document.querySelector('`+signed+` .badge.sig').textContent,
		document.querySelector('#handoffs-body tr.baton[data-id="`+f.shared+`"] .badge.sig').textContent,
		String(document.body.classList.contains("signs")), document.getElementById("signing").textContent]`)
	if got[0] != "verified" || got[1] != "unverified" || got[2] != "true" || !strings.Contains(got[3], "signed") {
		t.Fatalf("badges where the repository signs: %q", got)
	}
}
