package refstore

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestIdentAgainstGitVar: where the identity is made in process it is the
// one git var gives (the time aside), from the environment and from each
// configuration key git takes it from.
func TestIdentAgainstGitVar(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	strip := func(id string) string { // drop "<time> <zone>"
		f := strings.Fields(id)
		if len(f) < 2 {
			return id
		}
		return strings.Join(f[:len(f)-2], " ")
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		cfg  map[string]string
		git  bool // left to git var
	}{
		{name: "environment", env: map[string]string{"GIT_COMMITTER_NAME": "Env Name", "GIT_COMMITTER_EMAIL": "env@example.com"}},
		{name: "user.*", env: map[string]string{"GIT_COMMITTER_NAME": "-", "GIT_COMMITTER_EMAIL": "-"}, cfg: map[string]string{"user.name": "Cfg User", "user.email": "user@example.com"}},
		{name: "committer.* over user.*", cfg: map[string]string{"user.name": "Cfg User", "user.email": "user@example.com", "committer.name": "Cfg Committer", "committer.email": "committer@example.com"}},
		{name: "EMAIL after user.email", cfg: map[string]string{"user.name": "N"}, env: map[string]string{"EMAIL": "mail@example.com"}},
		{name: "an empty user.email", cfg: map[string]string{"user.name": "N", "user.email": ""}, env: map[string]string{"EMAIL": "mail@example.com"}, git: true},
		{name: "crud git tidies", env: map[string]string{"GIT_COMMITTER_NAME": " .Odd Name, "}, git: true},
		{name: "a date to parse", env: map[string]string{"GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"}, git: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				if v == "-" {
					unsetenv(t, k)
				} else {
					t.Setenv(k, v)
				}
			}
			if c.cfg != nil {
				unsetenv(t, "GIT_COMMITTER_NAME")
				unsetenv(t, "GIT_COMMITTER_EMAIL")
				for k, v := range c.cfg {
					gittest.Run(t, dir, "config", k, v)
					t.Cleanup(func() { gittest.Run(t, dir, "config", "--unset", k) })
				}
			}
			want := gittest.Run(t, dir, "var", "GIT_COMMITTER_IDENT")
			got, ok := st.identInProcess(time.Now())
			if ok == c.git {
				t.Fatalf("made in process: %v, want %v (%q)", ok, !c.git, got)
			}
			if !ok {
				got, err = st.committerIdent(context.Background())
				if err != nil {
					t.Fatal(err)
				}
			}
			if strip(got) != strip(want) {
				t.Errorf("ident = %q, git var says %q", got, want)
			}
		})
	}
}

func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	os.Unsetenv(k)
}
