package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// deps holds what commands need, built only when a command asks: `list`
// never pays for what `start` needs.
type deps struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// notFound is a mistyped subcommand, reported after urfave/cli has
	// returned without an error.
	notFound error
	// dir is the directory whose repository Store opens; "" = the
	// working directory (an agent's hook names its project's).
	dir string

	store *refstore.Store
	forge // the GitHub connection (github.go)
	// readOnly is set for commands that only read (see readOnlyCommands):
	// their Store does not run the lazy merge, which writes refs.
	readOnly bool
	// readLater is set for commands that most likely read no record (see
	// readLaterCommands): their Store starts cat-file at the first read.
	readLater bool
	// retireHere is set for the commands after which a clone with no
	// remote retires what is final, when due (retireHereWhenDue): those
	// a person or an agent runs to write, not hooks.
	retireHere bool
	// json is set for a command run with --json: what opening the store
	// has to say waits in openNotices for the command's JSON.
	json        bool
	openNotices []string
	openSaid    map[string]bool // what opening the store printed, without --json
	// detach starts this binary with args in dir, in a session of its
	// own, and does not wait for it: work that must outlive a hook the
	// agent gives a second or two. nil runs that work in-process (tests,
	// and systems without detach.go's).
	detach func(dir string, args ...string) error
}

func newDeps(stdin io.Reader, stdout, stderr io.Writer) *deps {
	return &deps{stdin: stdin, stdout: stdout, stderr: stderr, detach: detachProcess}
}

// detachProcess is deps.detach: set by main, so that tests, which run the
// commands in their own process, run that work in-process.
var detachProcess func(dir string, args ...string) error

// Store opens the repository containing the working directory, once.
func (d *deps) Store(ctx context.Context) (*refstore.Store, error) {
	if d.store != nil {
		return d.store, nil
	}
	dir := d.dir
	if dir == "" {
		dir = "."
	}
	st, err := refstore.Open(ctx, dir, refstore.Options{ReadLater: d.readLater})
	if err != nil {
		return nil, err
	}
	d.store = st
	// A binding is written with the commit hook armed, under the hooks'
	// lock: no commit made while bound runs without it.
	st.GuardBindings(hooks.BindGuard(st.Dir(), st.Layout()))
	d.openNote(st.Recovered())
	// Teammates who only ever `git fetch` still see the team's records:
	// merge what a fetch brought since last time (a few file stats when
	// nothing came). Hooks skip it: they must stay cheap and never write.
	// So do commands that only read: `list` must not change a ref or race
	// a writer for one; they say what is not merged yet instead, and the
	// next writing command merges it.
	if os.Getenv(hooks.GuardEnv) == "" {
		d.openNote(teamsync.MergeFetched(ctx, st, !d.readOnly))
	}
	return st, nil
}

// openNote reports what opening the store found: on stderr at once, or,
// under --json, in the command's JSON (printJSON).
func (d *deps) openNote(notices []string) {
	if d.json {
		d.openNotices = append(d.openNotices, notices...)
		return
	}
	notify(d.stderr, notices)
	if d.openSaid == nil {
		d.openSaid = map[string]bool{}
	}
	for _, n := range notices {
		d.openSaid[n] = true
	}
}

// notYetSaid drops the notices opening the store printed already: a
// command that reads the same records again (sync reads the fetched
// copies the merge at open skipped) says each once.
func (d *deps) notYetSaid(notices []string) []string {
	var out []string
	for _, n := range notices {
		if !d.openSaid[n] {
			out = append(out, n)
		}
	}
	return out
}

// storeAndSession opens the store and names the session a session command
// acts on (sessionID: its argument, else GIT_HANDOFF_SESSION, else this
// worktree's binding).
func (d *deps) storeAndSession(c *cli.Context) (*refstore.Store, string, error) {
	st, err := d.Store(c.Context)
	if err != nil {
		return nil, "", err
	}
	id, err := sessionID(c, st)
	return st, id, err
}

// Now is the clock. GIT_HANDOFF_NOW (RFC 3339) pins it, for reproducible
// scripts and tests, much as GIT_COMMITTER_DATE pins git's.
func (d *deps) Now() time.Time {
	if v := os.Getenv("GIT_HANDOFF_NOW"); v != "" {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t
		}
	}
	return time.Now()
}

// retireHereWhenDue retires what is final in a clone with no remote, at
// most once an hour, after a command that writes (teamsync.RetireHere):
// such a clone never syncs, and kept a ref per session it ever ran. What
// fails is said and left for the next command; under --json nothing is
// said, the JSON being the answer.
func (d *deps) retireHereWhenDue(ctx context.Context) {
	if d.store == nil || !d.retireHere || os.Getenv(hooks.GuardEnv) != "" {
		return
	}
	now := d.Now()
	if !teamsync.RetireHereDue(ctx, d.store, now) {
		return
	}
	retention, err := teamsync.Retention(ctx, d.store)
	if err == nil {
		var res teamsync.Result
		res, err = teamsync.RetireHere(ctx, d.store, teamsync.Options{Retention: retention, Now: now})
		if err == nil && !d.json {
			notify(d.stderr, res.Warnings)
		}
	}
	if err != nil && !d.json {
		notify(d.stderr, []string{"final records were not retired here (no remote; the next command tries again): " + err.Error()})
	}
}

func (d *deps) close() {
	if d.store != nil {
		d.store.Close()
	}
}
