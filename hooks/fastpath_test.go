package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// bindRecord binds the worktree at dir to a session whose record is body,
// stored at the ref component enc.
func (e *env) bindRecord(dir, enc, body string) {
	e.t.Helper()
	blob := strings.TrimSpace(e.gitIn(dir, body, "hash-object", "-w", "--stdin"))
	e.git(dir, "update-ref", "refs/ao/sessions/"+enc, blob)
	e.git(dir, "symbolic-ref", "refs/worktree/ao/session", "refs/ao/sessions/"+enc)
	e.refresh(dir)
}

// TestBoundMessageCommitSkipsTheBinary: an agent's `git commit -m` in a
// worktree bound to an active session gets its trailers from the shim
// itself (a git cat-file and a git interpret-trailers), without starting
// git-handoff; the trailers name the record's agent, not the test binary's.
func TestBoundMessageCommitSkipsTheBinary(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.bindRecord(dir, "app-7", `{"schema":"session/v1","id":"app-7","harness":"claude-code","status":"active","claimedHandoff":{"harness":"codex"}}`)
		e.resetLog()
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "subject\n\nbody")
		want := "subject\n\nbody\n\nHandoff-Session: app-7\nHandoff-Agent: claude-code\n\n"
		if got := e.headMessage(dir); got != want {
			t.Fatalf("message = %q, want %q", got, want)
		}
		if s := e.starts(); s != nil {
			t.Fatalf("git-handoff started: %v", s)
		}

		// The answer is cached under the record's blob id, which the shim
		// reads from the loose ref's file: a reftable repository has none,
		// so there every bound commit asks git (as the first one did).
		if gittest.RefFormat(t, dir) == "reftable" {
			return
		}
		// A changed record (here: the session ended) is read again.
		if _, err := os.Stat(filepath.Join(dir, ".git", "handoff-hook-cache")); err != nil {
			t.Fatalf("no cache after a bound commit: %v", err)
		}
		e.bindRecord(dir, "app-7", `{"schema":"session/v1","id":"app-7","harness":"claude-code","status":"ended"}`)
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "after the end")
		if got := e.headMessage(dir); got != "after the end\n\n" {
			t.Fatalf("message after the session ended = %q", got)
		}

		// A record without an agent: the session trailer alone, never the
		// claimed baton's agent.
		e.bindRecord(dir, "app-8", `{"schema":"session/v1","id":"app-8","status":"active","claimedHandoff":{"harness":"codex"}}`)
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "second")
		if got := e.headMessage(dir); got != "second\n\nHandoff-Session: app-8\n\n" {
			t.Fatalf("message = %q", got)
		}

		// An ended session gets nothing, still without the binary.
		e.bindRecord(dir, "app-9", `{"schema":"session/v1","id":"app-9","harness":"codex","status":"ended"}`)
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "third")
		if got := e.headMessage(dir); got != "third\n\n" {
			t.Fatalf("message = %q", got)
		}
		if s := e.starts(); s != nil {
			t.Fatalf("git-handoff started: %v", s)
		}
	})
}

// TestLessPlainCommitsGoToTheBinary: an encoded id, a message that already
// names a session, or a record the shim cannot read with certainty go to
// git-handoff, which decides with more care.
func TestLessPlainCommitsGoToTheBinary(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	for _, tc := range []struct{ enc, body, msg string }{
		{"we%20ird", `{"schema":"session/v1","id":"we ird","harness":"codex","status":"active"}`, "encoded id"},
		{"s1", `{"schema":"session/v1","id":"s1","harness":"codex","status":"active"}`, "names one\n\nHandoff-Session: other"},
		{"s2", `{"schema": "session/v1", "id": "s2", "status": "active"}`, "spaced record"},
	} {
		e.bindRecord(dir, tc.enc, tc.body)
		e.resetLog()
		e.git(dir, "commit", "-q", "--allow-empty", "-m", tc.msg)
		if s := e.starts(); s == nil {
			t.Errorf("%q: git-handoff was not started", tc.msg)
		}
	}
}

// TestShimTrailersMatchGitHandoff: for every message, the shim's own path
// and git-handoff (whose trailer writing is checked against git
// interpret-trailers) leave the same commit message.
func TestShimTrailersMatchGitHandoff(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		fast, slow := e.newRepo(), e.newRepo()
		e.install(fast)
		e.install(slow)
		e.bindRecord(fast, "s1", `{"schema":"session/v1","id":"s1","harness":"claude-code","status":"active"}`)
		// Spaced JSON is beyond the shim: this repository's commits go to the
		// binary, which the test stands in for with the same agent.
		e.bindRecord(slow, "s1", `{"schema": "session/v1", "id": "s1", "status": "active"}`)
		slowEnv := e.with(harnessEnv + "=claude-code")
		for _, msg := range []string{
			"subject",
			"subject\n\nbody",
			"subject\n\nbody line\nmore body",
			"Fix: looks like a trailer but is the subject",
			"subject\nsecond subject line: with a colon",
			"subject\n\nSigned-off-by: A <a@example.com>",
			"subject\n\nbody\n\nSigned-off-by: A <a@example.com>\nCo-authored-by: B <b@example.com>",
			"subject\n\nFix: thing\nand prose after it",
			"subject\n\nKey: value\n  continued",
			"subject\n\n\n\nbody after blank lines",
			"subject\n\nsee http://example.com/x: y",
			"subject\n\nKey:value",
			"subject\n\nKey : value",
			"subject\n\nbody\n\nReviewed-by: X\n\nSigned-off-by: Y",
			"sübject\n\nbödy: ünïcode",
			"subject\n\n(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)",
			"subject\n\nbody\n\n",
			"   indented subject\n\n\tindented body",
			"subject\n\nKey:  two spaces",
			"subject\n\nKey: value\nOther-Key: value two",
			"subject\n\nnot a token: x",
			"subject\n\nSigned-off-by:",
			"subject\n\nbody\n---\nKey: v",
			"subject\n\nbody\n--- not a divider",
			"subject\n\nKey: v\n\n",
			"subject\n\nA: b\nprose",
			"subject\n\nprose\nA: b",
		} {
			e.git(fast, "commit", "-q", "--allow-empty", "-m", msg)
			slowEnv.git(slow, "commit", "-q", "--allow-empty", "-m", msg)
			got, want := e.headMessage(fast), e.headMessage(slow)
			if got != want {
				t.Errorf("message %q:\nshim:        %q\ngit-handoff: %q", msg, got, want)
			}
			if !strings.Contains(got, "Handoff-Session: s1\n") {
				t.Errorf("message %q: no trailer in %q", msg, got)
			}
		}
	})
}

// The shim and the binary know git's trailer rules for git's default
// trailer settings only: with trailer.separators in the repository's or the
// user's config, or given with `git -c`, the message is exactly what git
// interpret-trailers makes of it.
//
// Each case first commits with no trailer setting anywhere, so that the
// shim keeps its plain answer, which the setting made after must undo.
func TestTrailerConfigIsLeftToGit(t *testing.T) {
	const msg = "subject\n\nbody\n\nKey=value"
	for _, where := range []string{"repository", "global", "command line", "another global file"} {
		t.Run(where, func(t *testing.T) {
			e := newEnv(t).with(harnessEnv + "=claude-code")
			dir := e.newRepo()
			e.install(dir)
			e.bindRecord(dir, "s1", `{"schema":"session/v1","id":"s1","harness":"claude-code","status":"active"}`)
			// Written before the plain answer is kept, so older than it.
			other := filepath.Join(t.TempDir(), "other.gitconfig")
			if err := os.WriteFile(other, []byte("[user]\n\tname = Other\n\temail = other@example.com\n[trailer]\n\tseparators = :=\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.git(dir, "commit", "-q", "--allow-empty", "-m", "plain first")
			if _, err := os.Stat(filepath.Join(dir, ".git", "handoff-hook-plain")); err != nil {
				t.Fatalf("the shim kept no plain answer: %v", err)
			}
			var cfg []string
			switch where {
			case "repository":
				e.git(dir, "config", "trailer.separators", ":=")
			case "global":
				e.git(dir, "config", "--global", "trailer.separators", ":=")
			case "command line":
				cfg = []string{"-c", "trailer.separators=:="}
			case "another global file":
				e = e.with("GIT_CONFIG_GLOBAL=" + other)
			}
			e.git(dir, append(cfg, "commit", "-q", "--allow-empty", "-m", msg)...)
			want := e.gitIn(dir, msg+"\n", append(cfg, "interpret-trailers", "--where", "end",
				"--if-exists", "doNothing", "--if-missing", "add",
				"--trailer", "Handoff-Session: s1", "--trailer", "Handoff-Agent: claude-code")...)
			if got := e.headMessage(dir); strings.TrimSpace(got) != strings.TrimSpace(want) {
				t.Errorf("commit message %q\nwant, as git interpret-trailers makes it: %q", got, want)
			}
		})
	}
}
