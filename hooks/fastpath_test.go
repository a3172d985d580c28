package hooks_test

import (
	"strings"
	"testing"
)

// bindRecord binds the worktree at dir to a session whose record is body,
// stored at the ref component enc.
func (e *env) bindRecord(dir, enc, body string) {
	e.t.Helper()
	blob := strings.TrimSpace(e.gitIn(dir, body, "hash-object", "-w", "--stdin"))
	e.git(dir, "update-ref", "refs/ao/sessions/"+enc, blob)
	e.git(dir, "symbolic-ref", "refs/worktree/ao/session", "refs/ao/sessions/"+enc)
}

// TestBoundMessageCommitSkipsTheBinary: an agent's `git commit -m` in a
// worktree bound to an active session gets its trailers from the shim
// itself (a git cat-file and a git interpret-trailers), without starting
// git-handoff; the trailers name the record's agent, not the test binary's.
func TestBoundMessageCommitSkipsTheBinary(t *testing.T) {
	e := newEnv(t)
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
