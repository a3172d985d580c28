package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestSyncMigratesPerRecordRefsOfAnEarlierRelease: a remote as releases
// before retirement left it, a ref per record (bench/yearpop's year: 1,500
// sessions over 365 days, batons, objectives and pull-request records in
// proportion, a few hundred live), and two clones as those releases set
// them up (their fetch refspecs, and a tracking ref per record from a
// plain git fetch). The first clone's next sync retires every final record
// to the archive, here and at the remote, and loses none: each session and
// each baton version the remote held is afterwards live there or in an
// archive month. The second clone's sync then converges on it, and
// answers for a session the first retired.
func TestSyncMigratesPerRecordRefsOfAnEarlierRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("a year of 1,500 sessions through real git")
	}
	deadline := time.Now().Add(4 * time.Minute)
	// go build below keeps the user's build cache (under HOME unless set),
	// or it compiles the standard library again.
	goEnv := append(os.Environ(), "HOME="+os.Getenv("HOME"))
	c := newCLI(t)
	dir := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		if time.Now().After(deadline) {
			t.Fatalf("deadline passed before git %s", strings.Join(args, " "))
		}
		return c.must(dir, args...)
	}
	// run runs a program other than git, with env.
	run := func(dir string, env []string, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	lines := func(s string) []string {
		if s = strings.TrimSpace(s); s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}

	remote := filepath.Join(dir, "remote.git")
	git(dir, "init", "-q", "--bare", remote)
	seed := filepath.Join(dir, "seed")
	git(dir, "init", "-q", seed)
	git(seed, "commit", "-q", "--allow-empty", "-m", "first")
	git(seed, "push", "-q", remote, "main")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pop := filepath.Join(dir, "yearpop")
	run(root, goEnv, "go", "build", "-o", pop, "./bench/yearpop")
	now := time.Now().UTC().Truncate(time.Hour).Format(time.RFC3339)
	run(dir, nil, pop, "-repo", remote, "-n", "1500", "-now", now)

	// What the remote holds before: every session, and every baton
	// version (by blob: a baton ref's id changes from one baton to the
	// next).
	sessionsBefore := lines(git(remote, "for-each-ref", "--format=%(refname:lstrip=3)", "refs/ao/sessions/"))
	batonsBefore := lines(git(remote, "for-each-ref", "--format=%(objectname)", "refs/ao/handoffs/"))
	if len(sessionsBefore) != 1500 || len(batonsBefore) == 0 {
		t.Fatalf("the year wrote %d sessions and %d batons", len(sessionsBefore), len(batonsBefore))
	}

	// Two clones as an earlier release's init left them.
	legacy := []string{"handoffs", "sessions", "objectives", "prs"}
	clone := func(name, owner string) string {
		c := filepath.Join(dir, name)
		git(dir, "clone", "-q", "--no-local", remote, c)
		git(c, "config", "handoff.owner", owner)
		for _, k := range legacy {
			git(c, "config", "--add", "remote.origin.fetch", "+refs/ao/"+k+"/*:refs/ao/remotes/origin/"+k+"/*")
		}
		git(c, "config", "--add", "remote.origin.fetch", "+refs/ao/config/*:refs/ao/arbiters/origin/*")
		git(c, "fetch", "-q", "origin")
		if n := len(lines(git(c, "for-each-ref", "--format=x", "refs/ao/remotes/origin/sessions/"))); n != 1500 {
			t.Fatalf("%s: %d tracking refs of sessions, want a ref per record", name, n)
		}
		return c
	}
	a, b := clone("a", "a@example.com"), clone("b", "b@example.com")

	git(a, "handoff", "sync")

	// Nothing lost: each session and baton version is live at the remote
	// or in one of its archive months.
	months := lines(git(remote, "for-each-ref", "--format=%(refname)", "refs/ao/archive/"))
	if len(months) == 0 {
		t.Fatal("the remote has no archive month after the migration")
	}
	archived := map[string]bool{} // paths and blob ids in the months
	for _, m := range months {
		for _, l := range lines(git(remote, "ls-tree", "-r", m)) {
			meta, path, _ := strings.Cut(l, "\t")
			f := strings.Fields(meta)
			archived[path], archived[f[2]] = true, true
		}
	}
	liveSessions := map[string]bool{}
	for _, id := range lines(git(remote, "for-each-ref", "--format=%(refname:lstrip=3)", "refs/ao/sessions/")) {
		liveSessions[id] = true
	}
	liveBatons := map[string]bool{}
	for _, oid := range lines(git(remote, "for-each-ref", "--format=%(objectname)", "refs/ao/handoffs/")) {
		liveBatons[oid] = true
	}
	var lost []string
	var retired []string
	for _, id := range sessionsBefore {
		switch {
		case liveSessions[id]:
		case archived["sessions/"+id]:
			retired = append(retired, id)
		default:
			lost = append(lost, "session "+id)
		}
	}
	for _, oid := range batonsBefore {
		if !liveBatons[oid] && !archived[oid] {
			lost = append(lost, "baton version "+oid)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("the migration lost %d records, such as %v", len(lost), lost[:min(5, len(lost))])
	}
	if len(retired) < 1000 || len(liveSessions) > 500 {
		t.Fatalf("after the migration the remote holds %d sessions live and retired %d: the year's final ones should have gone", len(liveSessions), len(retired))
	}

	// The clone: live records and months, tracking refs for those alone.
	for _, kind := range []string{"refs/ao/sessions/", "refs/ao/remotes/origin/sessions/"} {
		if n := len(lines(git(a, "for-each-ref", "--format=x", kind))); n != len(liveSessions) {
			t.Errorf("a holds %d refs under %s, want the %d sessions live at the remote", n, kind, len(liveSessions))
		}
	}

	// The second clone converges, and answers for a retired session.
	git(b, "handoff", "sync")
	if got, want := git(b, "for-each-ref", "--format=%(refname) %(objectname)", "refs/ao/sessions/", "refs/ao/handoffs/", "refs/ao/archive/"),
		git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/ao/sessions/", "refs/ao/handoffs/", "refs/ao/archive/"); got != want {
		t.Fatalf("b after its sync differs from the remote:\n%s\nwant\n%s", got, want)
	}
	sort.Strings(retired)
	for _, id := range []string{retired[0], retired[len(retired)/2], retired[len(retired)-1]} {
		if out := git(b, "handoff", "session", "show", id); !strings.Contains(out, "archived") {
			t.Errorf("b's session show %s:\n%s\nwant it archived", id, out)
		}
	}
}
