package session

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

const (
	claudeID = "11111111-1111-4111-8111-111111111111"
	codexID  = "22222222-2222-4222-8222-222222222222"
)

func TestPlanLaunch(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	ran := map[string]Launched{
		"claude-code": {NativeID: claudeID, First: at, Last: at},
		"codex":       {NativeID: codexID, First: at, Last: at},
		"gemini":      {First: at, Last: at}, // ran, but its id never reported
	}
	br := Briefer{Brief: func(s Record) (string, error) { return "BRIEF for " + s.ID + "\n", nil }}
	tests := []struct {
		name     string
		s        Record
		mode     string
		argv     []string
		errIs    error
		contains string
	}{
		{"resume with its own id", Record{ID: "a", Harness: "claude-code", Launched: ran}, ModeResume,
			[]string{"claude", "--resume", claudeID}, nil, ""},
		{"an alias finds the same id", Record{ID: "a", Harness: "claude", Launched: ran}, ModeResume,
			[]string{"claude", "--resume", claudeID}, nil, ""},
		{"codex resumes codex's id", Record{ID: "a", Harness: "codex", Model: "gpt-5", Launched: ran}, ModeResume,
			[]string{"codex", "resume", "--model=gpt-5", "--", codexID}, nil, ""},
		{"ran without an id: fresh", Record{ID: "a", Harness: "gemini", Prompt: "do it", Launched: ran}, ModeFresh,
			[]string{"gemini", "--prompt-interactive=## Task\n\ndo it\n\nBRIEF for a\n"}, nil, ""},
		{"never ran: fresh", Record{ID: "a", Harness: "copilot", Prompt: "do it", Launched: ran}, ModeFresh,
			nil, nil, ""},
		{"a package is enough", Record{ID: "a", Harness: "codex", HandoffPackage: "PKG\n"}, ModeFresh,
			[]string{"codex", "--", "BRIEF for a\n"}, nil, ""},
		{"nothing to start with", Record{ID: "a", Harness: "codex"}, "", nil, ErrNoFirstMessage, "no saved prompt"},
		{"no harness", Record{ID: "a"}, "", nil, nil, "records no harness"},
		{"a person", Record{ID: "a", Harness: "shell"}, ModeNone, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PlanLaunch(tt.s, br)
			if tt.errIs != nil || tt.contains != "" {
				if err == nil || (tt.errIs != nil && !errors.Is(err, tt.errIs)) || !strings.Contains(err.Error(), tt.contains) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.errIs, tt.contains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Mode != tt.mode {
				t.Errorf("mode %q, want %q", p.Mode, tt.mode)
			}
			if tt.argv != nil && !slices.Equal(p.Argv, tt.argv) {
				t.Errorf("argv %q, want %q", p.Argv, tt.argv)
			}
			if p.Env[0] != "GIT_HANDOFF_SESSION=a" {
				t.Errorf("env %q", p.Env)
			}
			// One harness's id is never handed to another.
			for h, l := range ran {
				if l.NativeID != "" && canonical(tt.s.Harness) != h && slices.Contains(p.Argv, l.NativeID) {
					t.Errorf("%s was given %s's id: %q", tt.s.Harness, h, p.Argv)
				}
			}
		})
	}
}

// openAgain opens another store on st's repository: a Store is one
// process's view and is not shared between goroutines.
func openAgain(t *testing.T, st *refstore.Store) *refstore.Store {
	t.Helper()
	o, err := refstore.Open(context.Background(), st.Dir(), refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// testRepo makes a repository with one commit and opens it.
func testRepo(t *testing.T) *refstore.Store {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(dir, "repo")
	for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "commit", "-q", "--allow-empty", "-m", "first"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	st, err := refstore.Open(context.Background(), repo, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func create(t *testing.T, st refstore.Clone, s Record) {
	t.Helper()
	s.Owner, s.Branch, s.Worktree = "t@example.com", "main", st.Dir()
	if s.Status == "" {
		s.Status = StatusActive
	}
	s.CreatedAt, s.UpdatedAt = t0, t0
	if _, err := Create(context.Background(), st, s, "test"); err != nil {
		t.Fatal(err)
	}
}

func TestSwitchGuard(t *testing.T) {
	ctx := context.Background()
	st := memRepo(t)
	create(t, st, Record{ID: "app-1", Harness: "claude-code", Prompt: "fix it"})

	other := st // the first switch runs in a goroutine of its own
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := Switch(ctx, other, RelaunchOptions{ID: "app-1", Harness: "codex", By: "first",
			hold: func() { close(held); <-release }}, t0)
		done <- err
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("the first switch ended before it held the guard: %v", err)
	}
	// While the first switch holds the guard, a second is refused...
	_, err := Switch(ctx, st, RelaunchOptions{ID: "app-1", Harness: "gemini", By: "second"}, t0.Add(time.Minute))
	var se *SwitchingError
	if !errors.As(err, &se) || !errors.Is(err, refstore.ErrConflict) || se.Guard.By != "first" || se.Guard.To != "codex" {
		t.Fatalf("second switch: %v, want a SwitchingError naming the first", err)
	}
	// ...and a restore too: they share the guard.
	if _, err := Restore(ctx, st, RelaunchOptions{ID: "app-1", By: "third"}, t0); !errors.As(err, &se) {
		t.Fatalf("restore during a switch: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cur, err := Read(ctx, st, "app-1")
	if err != nil {
		t.Fatal(err)
	}
	if cur.Switching != nil || cur.Harness != "codex" {
		t.Fatalf("after the switch: harness %q, guard %+v", cur.Harness, cur.Switching)
	}

	// A guard left by a crashed switch holds until it expires, then is taken over.
	if _, err := Modify(ctx, st, "app-1", "test", func(s *Record) error {
		s.Switching = &Switching{By: "crashed", Since: t0, Until: t0.Add(GuardTTL), To: "gemini"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Switch(ctx, st, RelaunchOptions{ID: "app-1", Harness: "gemini", By: "me"}, t0.Add(time.Minute)); !errors.As(err, &se) {
		t.Fatalf("switch under a live guard: %v", err)
	}
	res, err := Switch(ctx, st, RelaunchOptions{ID: "app-1", Harness: "gemini", By: "me"}, t0.Add(GuardTTL+time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notices) == 0 || !strings.Contains(res.Notices[0], "stale switch guard held by crashed") {
		t.Errorf("notices %q", res.Notices)
	}
	if res.Session.Switching != nil {
		t.Errorf("guard left: %+v", res.Session.Switching)
	}
}

// TestSwitchConcurrent runs switches at once: each either completes or is
// refused by the guard, the record ends without a guard, and every launch
// that completed is recorded. It stays on git: each switch has a store of
// its own, and git's compare-and-swap decides between them.
func TestSwitchConcurrent(t *testing.T) {
	ctx := context.Background()
	st := testRepo(t)
	create(t, st, Record{ID: "app-1", Harness: "claude-code", Prompt: "fix it"})
	harnesses := []string{"codex", "gemini", "claude-code", "copilot", "opencode", "cursor"}
	var wg sync.WaitGroup
	errs := make([]error, len(harnesses))
	for i, h := range harnesses {
		wg.Add(1)
		own := openAgain(t, st)
		go func() {
			defer wg.Done()
			_, errs[i] = Switch(ctx, own, RelaunchOptions{ID: "app-1", Harness: h, By: h,
				hold: func() { time.Sleep(20 * time.Millisecond) }}, t0)
		}()
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		var se *SwitchingError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &se):
		default:
			t.Errorf("switch to %s: %v", harnesses[i], err)
		}
	}
	cur, err := Read(ctx, st, "app-1")
	if err != nil {
		t.Fatal(err)
	}
	if ok == 0 || cur.Switching != nil {
		t.Fatalf("%d switches completed; guard %+v", ok, cur.Switching)
	}
	if len(cur.Launched) < ok {
		t.Errorf("%d switches completed but %d launches recorded", ok, len(cur.Launched))
	}
}

func TestRecordNative(t *testing.T) {
	ctx := context.Background()
	st := memRepo(t)
	create(t, st, Record{ID: "app-1", Harness: "claude-code"})
	if _, err := RecordNative(ctx, st, "app-1", "goose", claudeID, t0); err == nil {
		t.Fatal("goose accepted a UUID")
	}
	if _, err := RecordNative(ctx, st, "app-1", "nope", claudeID, t0); err == nil {
		t.Fatal("unknown harness accepted")
	}
	s, err := RecordNative(ctx, st, "app-1", "claude", claudeID, t0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Launched["claude-code"].NativeID != claudeID {
		t.Fatalf("launched %+v", s.Launched)
	}
}
