// Package handoff holds the workflows the commands run: a session starting
// (claim the baton, set the objective, print the brief) and ending (leave a
// baton), built from the baton, lineage, brief and refstore packages.
package handoff

import (
	"context"
	"os"
	"os/user"
	"strings"

	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/sign"
)

// Who is the owner and branch a command acts for.
type Who struct {
	Owner  string
	Branch string
	Head   string // commit HEAD points at; "" on an unborn branch
}

// ownerKeys are the configuration that names the owner, first found wins.
var ownerKeys = []string{"handoff.owner", "user.email", "user.name"}

// Resolve decides owner and branch: the flags, else git config
// handoff.owner, user.email, user.name, the OS user, else "local"; the
// current branch, else "unknown" (detached HEAD, unborn, bare).
func Resolve(ctx context.Context, st refstore.Clone, owner, branch string) (Who, error) {
	h, err := st.Head(ctx)
	if err != nil {
		return Who{}, err
	}
	w := Who{Owner: strings.TrimSpace(owner), Branch: strings.TrimSpace(branch), Head: h.Commit}
	if w.Owner == "" {
		// The signing setup comes from the same git process: every
		// command that resolves who it is for also reads or writes
		// records, and would otherwise ask git config again.
		cfg, err := st.Config(ctx, append(append([]string(nil), ownerKeys...), sign.Keys...)...)
		if err != nil {
			return Who{}, err
		}
		if p, ok := st.(interface{ PreloadSigning(map[string]string) }); ok {
			p.PreloadSigning(cfg) // the git adapter's: saves it a git process
		}
		// The owner is read as the person's own git reads it, also in an
		// agent's shell that hides their user configuration (Gemini
		// CLI's): one person, one owner, whichever agent runs this.
		// Outside such a shell this is the listing above, no new process.
		person, err := st.PersonConfig(ctx, ownerKeys...)
		if err != nil {
			return Who{}, err
		}
		for _, k := range ownerKeys {
			if v := strings.TrimSpace(person[k]); v != "" {
				w.Owner = v
				break
			}
		}
	}
	if w.Owner == "" {
		if u, err := user.Current(); err == nil && u.Username != "" {
			w.Owner = u.Username
		} else if v := os.Getenv("USER"); v != "" {
			w.Owner = v
		} else {
			w.Owner = "local"
		}
	}
	if w.Branch == "" {
		w.Branch = h.Branch
	}
	if w.Branch == "" {
		w.Branch = "unknown"
	}
	return w, nil
}

// SessionID picks the session a command acts for: the flag, else
// GIT_HANDOFF_SESSION, else this worktree's binding. "" means none.
func SessionID(st refstore.Clone, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if v := os.Getenv("GIT_HANDOFF_SESSION"); v != "" {
		return v, nil
	}
	return st.BoundSession()
}

// callerSession is SessionID's answer with no flag where the worktree's
// binding was read already, without git (bound, when known): known false
// when only git can say.
func callerSession(bound string, boundKnown bool) (id string, known bool) {
	if v := os.Getenv("GIT_HANDOFF_SESSION"); v != "" {
		return v, true
	}
	return bound, boundKnown
}

// HarnessName is the catalogue's name for the agent a session runs: the
// first non-empty of names (an alias such as "claude" becomes
// "claude-code"; a name the catalogue does not know is kept as typed), else
// the agent detected from the environment, else "".
func HarnessName(names ...string) string {
	for _, n := range names {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if h, err := harness.Lookup(n); err == nil {
			return h.Name
		}
		return n
	}
	return harness.Detect(os.Getenv)
}
