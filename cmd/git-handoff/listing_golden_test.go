package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

var updateListing = flag.Bool("update-listing", false, "rewrite testdata/listing/*.json from this build's output")

// The listings' JSON: these goldens were written by the encoding/json
// listings before a hand-written encoder came and went (and the session
// table's by tabwriter), and every listing must still print them byte for
// byte, loose refs and packed.
// The records are written as raw blobs, so they hold what git-handoff
// would never write itself: hostile text, escapes of every kind, nulls,
// unknown and repeated keys, keys in the wrong case, times with offsets,
// and records that must be skipped with the same notice as before (not
// JSON, another schema, none, in the wrong place, trailing text, too
// large, not a blob, invalid UTF-8).
func TestListingsMatchGoldens(t *testing.T) {
	goldens, err := filepath.Abs(filepath.Join("testdata", "listing"))
	if err != nil {
		t.Fatal(err)
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	writeListingRecords(t, dir)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"list_all.json", []string{"list", "--all", "--json"}},
		{"list_mine.json", []string{"list", "--json"}},
		{"session_ls_all.json", []string{"session", "ls", "--all", "--json"}},
		{"session_ls.json", []string{"session", "ls", "--json"}},
		// The session table is written without tabwriter (writeTable):
		// these were written by the tabwriter table before that change.
		{"session_ls_all.txt", []string{"session", "ls", "--all"}},
		{"session_ls.txt", []string{"session", "ls"}},
	} {
		for _, layout := range []string{"loose", "packed"} {
			if layout == "packed" {
				gittest.Run(t, dir, "pack-refs", "--all")
			}
			for _, reader := range []string{""} { // one read path: git
				t.Setenv("GIT_HANDOFF_READER", reader)
				got := runListing(t, dir, c.args...)
				if strings.HasSuffix(c.golden, ".json") && !json.Valid(got) {
					// \x7f for DEL was once written into every --json
					// output holding one.
					t.Errorf("%s (%s refs, reader %q) is not JSON", strings.Join(c.args, " "), layout, reader)
				}
				path := filepath.Join(goldens, c.golden)
				if *updateListing && layout == "loose" && reader == "" {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s (%s refs, reader %q) differs from %s:\n%s", strings.Join(c.args, " "), layout, reader, path, firstDiff(got, want))
				}
			}
		}
	}
}

func runListing(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"git-handoff"}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes()
}

func firstDiff(got, want []byte) string {
	n := 0
	for n < len(got) && n < len(want) && got[n] == want[n] {
		n++
	}
	from := max(0, n-200)
	return fmt.Sprintf("at byte %d\ngot:  %q\nwant: %q", n, got[from:min(len(got), n+200)], want[from:min(len(want), n+200)])
}

// writeListingRecords writes the batons and sessions the goldens show.
func writeListingRecords(t *testing.T, dir string) {
	t.Helper()
	var refs strings.Builder
	put := func(ref, data string) {
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hash-object: %v", err)
		}
		fmt.Fprintf(&refs, "create %s %s\n", ref, strings.TrimSpace(string(out)))
	}
	baton := func(shared bool, owner, branch, body string) {
		ref, err := refstore.HandoffRef(shared, owner, branch)
		if err != nil {
			t.Fatal(err)
		}
		put(ref, body)
	}
	head := func(shared bool, owner, branch string) string {
		return fmt.Sprintf(`"schema":"handoff/v1","owner":%q,"branch":%q,"shared":%v`, owner, branch, shared)
	}
	me := "dev@example.com"

	// Batons.
	baton(false, me, "main", `{`+head(false, me, "main")+`,"id":"h-plain","nextSteps":["go on"],"createdAt":"2026-11-01T12:00:00Z"}`)
	baton(false, me, "hostile", `{`+head(false, me, "hostile")+`,"id":"h-hostile","nextSteps":["quote \" back \\ slash \/ tab\t nl\n cr\r bs\b ff\f nul\u0000 us\u001f del`+"\x7f"+`","<script>&amp;</script>","line\u2028sep\u2029","bidi \u202e reversed \u2066","caf\u00e9 日本 😀","","   "],"failedApproaches":["surrogate pair \ud83d\ude00","lone \udc00 surrogate"],"openQuestions":["C1 `+"\u0085 \u009b"+`"],"createdAt":"2026-11-01T12:00:01.123456789+02:00","head":"0123456789abcdef0123456789abcdef01234567"}`)
	baton(false, me, "claimed", `{`+head(false, me, "claimed")+`,"id":"h-claimed","nextSteps":["a","b"],"failedApproaches":["c"],"openQuestions":[],"harness":"codex","sessionId":"s-1","createdAt":"2026-11-01T12:00:02Z","claimed":true,"claimedAt":"2026-11-01T13:00:00.5-07:00","claimedBySession":"s-2","rev":7,"prev":"abc","seen":{"w1":3,"w2":18446744073709551615},"extra":{"nested":[1,2.5e3,-0,true,false,null,{"x":[]}]}}`)
	baton(true, "teammate@example.com", "feature/x", `{`+head(true, "teammate@example.com", "feature/x")+`,"id":"h-shared","nextSteps":["theirs"],"createdAt":"2026-11-01T12:00:03Z"}`)
	baton(false, "teammate@example.com", "theirs", `{`+head(false, "teammate@example.com", "theirs")+`,"id":"h-theirs","nextSteps":["private, someone else's"],"createdAt":"2026-11-01T12:00:03Z"}`)
	baton(false, me, "tomb", `{`+head(false, me, "tomb")+`,"id":"h-tomb","nextSteps":["gone"],"createdAt":"2026-11-01T12:00:04Z","deleted":{"reason":"cancelled","at":"2026-11-01T12:30:00Z"}}`)
	baton(false, me, "nulls", `{`+head(false, me, "nulls")+`,"id":"h-nulls","nextSteps":null,"failedApproaches":null,"harness":null,"claimedAt":null,"deleted":null,"createdAt":"2026-11-01T12:00:05Z"}`)
	baton(false, me, "cases", `{`+head(false, me, "cases")+`,"ID":"h-cases","NextSteps":["in another case"],"createdAt":"2026-11-01T12:00:06Z","id":"h-cases-2"}`)
	baton(false, me, "repeat", `{`+head(false, me, "repeat")+`,"id":"h-first","id":"h-repeat","nextSteps":["one","two"],"nextSteps":["three"],"createdAt":"2026-11-01T12:00:07Z"}`)
	baton(false, me, "ws", " \n\t{ "+head(false, me, "ws")+` , "id" : "h-ws" , "nextSteps" : [ "spaced" ] , "createdAt" : "2026-11-01T12:00:08Z" }`+" \n")
	baton(false, me, "escaped-key", `{`+head(false, me, "escaped-key")+`,"\u0069d":"h-escaped-key","nextSteps":["a key spelt with an escape"],"createdAt":"2026-11-01T12:00:09Z"}`)
	// Two batons with the same time and id: the order between them is ref order.
	baton(false, me, "tie-a", `{`+head(false, me, "tie-a")+`,"id":"h-tie","nextSteps":["first by ref"],"createdAt":"2026-11-01T12:00:10Z"}`)
	baton(false, me, "tie-b", `{`+head(false, me, "tie-b")+`,"id":"h-tie","nextSteps":["second by ref"],"createdAt":"2026-11-01T12:00:10Z"}`)
	baton(false, me, "trailing", `{`+head(false, me, "trailing")+`,"id":"h-trailing","nextSteps":["text after the object"],"createdAt":"2026-11-01T12:00:11Z"} and more`)
	baton(false, me, "unicode-名前", `{`+head(false, me, "unicode-名前")+`,"id":"h-unicode","nextSteps":["名前"],"createdAt":"2026-11-01T12:00:12Z"}`)
	// Skipped, with notices.
	baton(false, me, "not-json", `hello`)
	baton(false, me, "v2", `{"schema":"handoff/v2","owner":"dev@example.com","branch":"v2"}`)
	baton(false, me, "no-schema", `{"owner":"dev@example.com","branch":"no-schema"}`)
	baton(false, me, "misplaced", `{`+head(false, me, "elsewhere")+`,"id":"h-misplaced","nextSteps":["x"],"createdAt":"2026-11-01T12:00:13Z"}`)
	baton(false, me, "bad-utf8", `{"schema":"handoff/v1","owner":"dev`+"\xff"+`@example.com","branch":"bad-utf8","id":"h-bad","nextSteps":["x"],"createdAt":"2026-11-01T12:00:14Z"}`)
	baton(false, me, "bad-time", `{`+head(false, me, "bad-time")+`,"id":"h-bad-time","nextSteps":["x"],"createdAt":"yesterday"}`)
	baton(false, me, "wrong-type", `{`+head(false, me, "wrong-type")+`,"id":"h-wrong-type","nextSteps":"not a list","createdAt":"2026-11-01T12:00:15Z"}`)
	baton(false, me, "array", `[]`)
	baton(false, me, "huge", `{`+head(false, me, "huge")+`,"id":"h-huge","nextSteps":["`+strings.Repeat("x", refstore.MaxRecord)+`"],"createdAt":"2026-11-01T12:00:16Z"}`)
	commit := gittest.Run(t, dir, "rev-parse", "HEAD")
	ref, _ := refstore.HandoffRef(false, me, "commit")
	fmt.Fprintf(&refs, "create %s %s\n", ref, commit)

	// Sessions.
	session := func(id, body string) {
		ref, err := refstore.SessionRef(id)
		if err != nil {
			t.Fatal(err)
		}
		put(ref, body)
	}
	s := func(id, rest string) string {
		return fmt.Sprintf(`{"schema":"session/v1","id":%q,"owner":"dev@example.com","branch":"main","createdAt":"2026-11-01T12:00:00Z","updatedAt":"2026-11-01T12:05:00Z"%s}`, id, rest)
	}
	session("app-1", s("app-1", `,"status":"replaced","worktree":"/w/1","host":"h","harness":"claude-code","model":"m","prompt":"p \" \\ \u2028 <&>","summary":"日本 😀 \u202e","replacedBy":"app-2","handoffAt":"2026-11-01T13:00:00+01:00","endedAt":"2026-11-01T13:00:00Z","launched":{"codex":{"nativeId":"n2","first":"2026-11-01T12:00:00Z","last":"2026-11-01T12:01:00Z"},"claude-code":{"nativeId":"n1","first":"2026-11-01T12:00:00Z","last":"2026-11-01T12:59:59.999Z"}},"rev":2,"seen":{"w":2}`))
	session("app-2", s("app-2", `,"status":"active","harness":"codex","supersedes":"app-1","handoffReason":"stuck","handoffContextMode":"summary","handoffPackage":"left out of listings","switching":{"by":"s-x","since":"2026-11-01T12:00:00Z","until":"2026-11-01T12:10:00Z","to":"gemini"},"pr":{"repo":"o/r","number":12,"url":"https://example.com/o/r/pull/12"},"claimedHandoff":{"schema":"handoff/v1","id":"h-copy","owner":"dev@example.com","branch":"main","nextSteps":["copied"],"createdAt":"2026-11-01T11:00:00Z","claimed":true,"claimedAt":"2026-11-01T12:00:00Z","claimedBySession":"app-2"}`))
	session("app-3", s("app-3", `,"status":"active","claimedHandoff":{"not":"a baton"},"launched":{},"extra":[1,{"a":null}],"startHead":"abc"`))
	session("app-4", s("app-4", `,"status":"merged","supersedes":"app-gone","summary":null,"launched":null,"pr":null`))
	session("app-5", s("app-5", `,"status":"ended","endedAt":"2026-11-01T14:00:00Z","replacedBy":"app-6"`))
	session("app-6", s("app-6", `,"status":"active","supersedes":"app-1"`))
	session("app-7", s("app-7", `,"Status":"active","status":"terminated","id":"app-7"`))
	session("app-8", s("app-8", `,"status":"active"`)+` trailing`)
	session("app-9", `{"schema":"session/v2","id":"app-9"}`)
	session("app-10", `not json`)
	session("app-11", s("app-elsewhere", `,"status":"active"`))
	session("app-12", s("app-12", `,"status":"active","summary":"bad `+"\xfe"+` byte"`))
	session("app-13", s("app-13", `,"status":"active","launched":{"x":{"first":"never"}}`))
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(refs.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("update-ref: %v\n%s", err, out)
	}
}
