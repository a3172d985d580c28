package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/webui"
)

// chromium finds Debian's chromium. Missing, the browser tests fail where
// CI_REQUIRE_TOOLS=1 (.ci/run installs it) and are skipped elsewhere.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	gittest.Missing(t, "chromium", "apt-get install -y chromium")
	return ""
}

// browser starts a fresh headless chromium for one test, with a window
// of 1400×900 (a supervisor's screen), bounded in time so that a hung
// page fails the test instead of hanging it.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	ctx, cancelTime := context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900)); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// artifacts is where screenshots are kept: $GIT_HANDOFF_ARTIFACTS when
// set (CI keeps that directory), else the test's temporary directory.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GIT_HANDOFF_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves what the window shows now (not the whole page: what
// a person sees without scrolling) as name.png in the artifacts.
func screenshot(t *testing.T, ctx context.Context, dir, name string) string {
	t.Helper()
	png := run(t, ctx, chromedp.CaptureScreenshot())
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// run runs one action in the browser and returns its value, failing the
// test on error.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// do runs steps in order, failing the test on the first error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

type css = chromedp.CSS

// eval runs one script and returns its value. Reads and actions go
// through one script each: the page may redraw between two protocol
// calls (a change event), and a script sees one state of the DOM.
func eval[T any](t *testing.T, ctx context.Context, script string) T {
	t.Helper()
	return run(t, ctx, chromedp.Evaluate[T](script))
}

// click waits for sel and clicks the first element it names.
func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(css(sel)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(`+jsString(sel)+`).click()`))
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// waitMessage waits until the page's message says want, or reports an
// error, and returns its text.
func waitMessage(t *testing.T, ctx context.Context, want string) string {
	t.Helper()
	msg := run(t, ctx, chromedp.Poll[string](`(m => !m.hidden && (m.textContent.includes(`+jsString(want)+`) || m.className === "error") ? m.textContent : null)(document.getElementById("message"))`,
		chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(0)))
	if !strings.Contains(msg, want) {
		t.Fatalf("the page says %q, want %q", msg, want)
	}
	return msg
}

// confirm waits for the dialog, sets its fields and presses its button.
func confirm(t *testing.T, ctx context.Context, fields map[string]string, ok bool) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(css(`dialog[open] #dialog-ok`)))
	if fields == nil {
		fields = map[string]string{}
	}
	b, _ := json.Marshal(fields)
	button := "#dialog-cancel"
	if ok {
		button = "#dialog-ok"
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(fields => {
		for (const [k, v] of Object.entries(fields)) document.querySelector('#dialog-body [name="' + k + '"]').value = v;
		document.querySelector(`+jsString(button)+`).click();
	})(`+string(b)+`)`), chromedp.WaitNotPresent(css(`dialog[open]`)))
}

func TestPageInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	f.modify(t, "s2", func(r *session.Record) { r.EndReason = session.EndAgentExit })
	url := f.start(t)
	ctx := browser(t)
	dir := artifacts(t)

	waiting := `#handoffs-body tr.baton[data-id="` + f.waiting + `"]`
	do(t, ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible(css(waiting)),
		chromedp.WaitVisible(css(`#lineage-list svg.lineage g.node[data-id="s5"]`)))
	notes := eval[string](t, ctx, `document.querySelector('`+waiting+` details.notes').textContent`)
	images := eval[int](t, ctx, `document.querySelectorAll("#handoffs-body img").length`)
	if !strings.Contains(notes, "wire the parser") || !strings.Contains(notes, hostile) || images != 0 {
		t.Fatalf("notes %q with %d images: a record's text must be shown as text", notes, images)
	}
	// One row per baton: the waiting ones, and the claimed one with the
	// session that claimed it.
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll("#handoffs-body tr.baton")].map(r => r.dataset.id + " " + r.querySelector(".state").textContent + " " + (r.querySelector(".claimed-by") || {textContent: "—"}).textContent)`)
	if len(rows) != 3 || !slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, f.claimed+" claimed → s3 ") }) || !slices.Contains(rows, f.shared+" waiting —") {
		t.Fatalf("baton rows = %q", rows)
	}
	// The repository does not sign: no badge and no warning on any
	// baton, one quiet line saying so.
	sigs := eval[[]string](t, ctx, `[String(document.querySelectorAll(".badge.sig, .fenced").length), document.getElementById("signing").textContent, String(document.body.classList.contains("signs"))]`)
	if sigs[0] != "0" || !strings.Contains(sigs[1], "unsigned") || sigs[2] != "false" {
		t.Fatalf("in a repository that does not sign: %q", sigs)
	}

	// Sessions: where each runs, what it works on, the baton it claimed.
	s5 := eval[[]string](t, ctx, `(r => [r.querySelector(".where").textContent, r.querySelector(".work").textContent, r.querySelector(".state").textContent])(document.querySelector('#sessions-body tr[data-id="s5"]'))`)
	if !strings.Contains(s5[0], "feat") || !strings.Contains(s5[0], filepath.Base(f.dir)) || !strings.Contains(s5[0], handoffHost(t)) ||
		!strings.Contains(s5[1], "finish the lexer") || !strings.Contains(s5[1], "took over from s3 (stuck)") ||
		!strings.Contains(s5[2], "active, not under tmux") {
		t.Fatalf("s5's row: where %q, work %q, state %q", s5[0], s5[1], s5[2])
	}
	if s2 := eval[string](t, ctx, `document.querySelector('#sessions-body tr[data-id="s2"] .state').textContent`); s2 != "ended (agent exited)" {
		t.Fatalf("s2, ended by its agent's exit, is shown %q", s2)
	}
	if s3 := eval[string](t, ctx, `document.querySelector('#sessions-body tr[data-id="s3"] .work').textContent`); !strings.Contains(s3, f.claimed+" bob's next step") {
		t.Fatalf("s3 claimed bob's baton, its row says %q", s3)
	}

	// The Agent dropdown offers installed agents only; merged sessions have none.
	agentSel := `select.agent-select[data-id="s5"]`
	offered := eval[[]string](t, ctx, `[...document.querySelector('`+agentSel+`').options].map(o => o.value)`)
	mergedSelects := eval[int](t, ctx, `document.querySelectorAll('tr[data-id="s6"] select, tr[data-id="s6"] button').length`)
	if strings.Join(offered, ",") != "claude-code,gemini,shell" || mergedSelects != 0 {
		t.Fatalf("agents offered %v, controls on the merged session %d", offered, mergedSelects)
	}
	screenshot(t, ctx, dir, "status-1400x900")

	// A narrower window: nothing wider than the window but the tables
	// and drawings, which scroll inside their own boxes.
	do(t, ctx, chromedp.EmulateViewport(800, 1000))
	if wide := tooWide(t, ctx); wide != "" {
		t.Fatalf("the page is wider than an 800px window: %s", wide)
	}
	// Beside an editor the rows' actions are still on screen.
	if off := eval[[]string](t, ctx, `[...document.querySelectorAll("td.actions button")].filter(b => b.getBoundingClientRect().right > Math.min(window.innerWidth, b.closest(".scroll").getBoundingClientRect().right)).map(b => b.getAttribute("aria-label"))`); len(off) != 0 {
		t.Fatalf("at 800px these actions are off screen: %q", off)
	}
	screenshot(t, ctx, dir, "status-800x1000")
	do(t, ctx, chromedp.EmulateViewport(380, 900))
	if wide := tooWide(t, ctx); wide != "" {
		t.Fatalf("the page is wider than a 380px window: %s", wide)
	}
}

// tooWide names what makes the page wider than the window ("" when
// nothing does): the elements reaching past its right edge, outside
// boxes that scroll.
func tooWide(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `document.documentElement.scrollWidth <= window.innerWidth ? "" :
		[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > window.innerWidth && !(e.parentElement && e.parentElement.closest(".scroll, figure")))
			.slice(0, 5).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right)).join(", ") || "scrollWidth " + document.documentElement.scrollWidth`)
}

// handoffHost is the host name session records carry here.
func handoffHost(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A page of another origin, open in the same browser, tries to change
// records through the API: every attempt is refused and nothing changes.
func TestOtherOriginRefusedInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	var mu sync.Mutex
	var foreign []string // status codes answered to requests from the evil origin
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		f.srv.ServeHTTP(rec, r)
		if o := r.Header.Get("Origin"); o != "" && !strings.HasSuffix(o, r.Host) {
			mu.Lock()
			foreign = append(foreign, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, rec.code))
			mu.Unlock()
		}
	}))
	t.Cleanup(target.Close)
	api := target.URL + "/api"
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>evil</title><body><script>
const api = %q, waiting = %q;
const out = [];
async function attempt(name, p) { try { const r = await p; out.push(name + ":" + r.type + ":" + r.status); } catch (e) { out.push(name + ":blocked"); } }
(async () => {
  // Simple requests, sent without asking: the server must refuse them itself.
  await attempt("dismiss", fetch(api + "/handoffs/" + waiting + "?project=repo", {method: "POST", mode: "no-cors", body: "x"}));
  await attempt("switch", fetch(api + "/sessions/s5/switch?project=repo", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: '{"harness":"gemini"}'}));
  // With a guessed token: the browser asks first (a preflight), and no answer allows it.
  await attempt("delete", fetch(api + "/handoffs/" + waiting + "?project=repo", {method: "DELETE", headers: {"Authorization": "Bearer guess"}}));
  // Reading the page to learn its token: cross-origin reads are not allowed.
  await attempt("read", fetch(api.replace(/\/api$/, "/")).then(r => r.text()).then(() => ({type: "read", status: 0})));
  document.body.dataset.done = out.join(" ");
})();
</script></body>`, api, f.waiting)
	}))
	t.Cleanup(evil.Close)

	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(evil.URL+"/"), chromedp.WaitVisible(css(`body[data-done]`)))
	done := run(t, ctx, chromedp.AttributeValue(css(`body`), "data-done")).Value
	t.Logf("the evil page saw: %s; the server answered: %v", done, foreign)
	if strings.Contains(done, "read:read") {
		t.Fatalf("another origin read the page (and its token): %s", done)
	}
	mu.Lock()
	defer mu.Unlock()
	posts := 0
	for _, f := range foreign {
		if !strings.HasSuffix(f, " 403") {
			t.Fatalf("a request from another origin was answered %s", f)
		}
		if strings.HasPrefix(f, "POST ") {
			posts++
		}
	}
	if posts != 2 {
		t.Fatalf("want both simple POSTs sent and refused, saw %v", foreign)
	}
	if !f.live(t, f.waiting) {
		t.Fatal("another origin dismissed a baton")
	}
	if s := f.session(t, "s5"); s.Harness != "claude-code" {
		t.Fatalf("another origin switched s5 to %q", s.Harness)
	}
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
