package webui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

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
	if os.Getenv("CI_REQUIRE_TOOLS") == "1" {
		t.Fatal("chromium is not installed, and CI_REQUIRE_TOOLS=1 requires it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); CI_REQUIRE_TOOLS=1 makes this a failure")
	return ""
}

// browser starts a fresh headless chromium for one test, bounded in time
// so that a hung page fails the test instead of hanging it.
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
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// artifact is where a screenshot is kept after the test: under $TMPDIR,
// logged so a person (or CI) can look at it.
func artifact(t *testing.T, name string, png []byte) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "git-handoff-artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
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

func TestPageInBrowser(t *testing.T) {
	f := newFixture(t, webui.Options{})
	url := f.start(t)
	ctx := browser(t)

	waiting := `#handoffs-list li.baton[data-id="` + f.waiting + `"]`
	do(t, ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible(css(waiting)))
	// Reads and actions go through one script each: the page may redraw
	// between two protocol calls (a change event), and a script sees one
	// state of the DOM.
	nextSteps := run(t, ctx, chromedp.Evaluate[string](`document.querySelector('`+waiting+` ol.next').textContent`))
	images := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#handoffs-list img").length`))
	groups := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#handoffs-list section.group h3")].map(h => h.textContent)`))
	if !strings.Contains(nextSteps, "wire the parser") || !strings.Contains(nextSteps, hostile) || images != 0 {
		t.Fatalf("next steps %q with %d images: a record's text must be shown as text", nextSteps, images)
	}
	if len(groups) != 2 || !strings.Contains(strings.Join(groups, "|"), "carol · docs · shared") {
		t.Fatalf("groups = %q: want the waiting private baton and carol's shared one", groups)
	}
	// Each baton says who signed it; carol's unsigned notes, shown to
	// dev, are marked as data, dev's own are not.
	carol := `#handoffs-list li.baton[data-id="` + f.shared + `"]`
	sigs := run(t, ctx, chromedp.Evaluate[[]string](`[document.querySelector('`+waiting+` .badge.sig').textContent, document.querySelector('`+carol+` .badge.sig').textContent, String(document.querySelectorAll('`+waiting+` .untrusted').length), document.querySelector('`+carol+` .untrusted').textContent]`))
	if sigs[0] != "unverified" || sigs[1] != "unverified" || sigs[2] != "0" || !strings.Contains(sigs[3], "Not verifiably carol's") {
		t.Fatalf("signature badges and warnings = %q", sigs)
	}

	// The lineage graph: s3 replaced by s5, drawn as SVG.
	do(t, ctx,
		chromedp.WaitVisible(css(`#lineage-list svg.lineage g.node[data-id="s5"]`)),
		chromedp.WaitVisible(css(`#lineage-list svg.lineage g.node[data-id="s3"]`)))
	if edges := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#lineage-list svg.lineage line.edge").length`)); edges != 1 {
		t.Fatalf("lineage edges = %d, want 1", edges)
	}

	// The Agent dropdown offers installed agents only; merged sessions have none.
	agentSel := `select.agent-select[data-id="s5"]`
	do(t, ctx, chromedp.WaitVisible(css(agentSel)), chromedp.WaitVisible(css(`tr[data-id="s6"] .readonly`)))
	offered := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelector('`+agentSel+`').options].map(o => o.value)`))
	mergedSelects := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('tr[data-id="s6"] select').length`))
	if strings.Join(offered, ",") != "claude-code,gemini,shell" || mergedSelects != 0 {
		t.Fatalf("agents offered %v, selects on the merged session %d", offered, mergedSelects)
	}

	png := run(t, ctx, chromedp.FullScreenshot(100))
	artifact(t, "status-page.png", png)

	// Dismiss the baton with the keyboard: focus its button, press Enter.
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('button.dismiss[data-id="`+f.waiting+`"]').focus()`),
		chromedp.KeyEvent("\r"),
		chromedp.WaitNotPresent(css(waiting)))
	if f.live(t, f.waiting) {
		t.Fatal("the page showed the baton dismissed, but it is still there")
	}

	// Switch s5's agent from the dropdown.
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`(s => { s.value = "gemini"; s.dispatchEvent(new Event("change", {bubbles: true})) })(document.querySelector('`+agentSel+`'))`),
		chromedp.WaitVisible(css(agentSel+`:not([disabled])`)))
	// The answer to the switch, good or bad, replaces the dismissal's message.
	msg := run(t, ctx, chromedp.Poll[string](`(m => m.textContent.includes("s5") || m.className === "error" ? m.textContent : null)(document.getElementById("message"))`,
		chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(0)))
	if !strings.Contains(msg, "switched from claude-code to gemini") {
		t.Fatalf("message after the switch: %q", msg)
	}
	if s := f.session(t, "s5"); s.Harness != "gemini" {
		t.Fatalf("s5 runs %q after the switch from the page", s.Harness)
	}

	// A narrow window: nothing wider than the window but the tables and
	// drawings, which scroll inside their own boxes.
	do(t, ctx, chromedp.EmulateViewport(380, 900))
	if run(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)) {
		t.Fatal("the page is wider than a 380px window")
	}
	artifact(t, "status-page-narrow.png", run(t, ctx, chromedp.FullScreenshot(100)))
	if dst := os.Getenv("WEBUI_SCREENSHOT"); dst != "" {
		os.WriteFile(dst, png, 0o644)
	}
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
