package hooks

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// A commit is never blocked by a lease: the commit hook only warns when
// the commit touches files under another session's path lease, so that the
// person or agent committing knows before the work collides at merge time.

// PathLease is a path lease held by another session, as this clone's
// copies of the leases have it.
type PathLease struct {
	Key                   string // path:PATHSPEC
	Session, Owner, Agent string
	// FreesAt is when it frees by this clone's clock unless renewed; zero
	// when this clone cannot tell.
	FreesAt time.Time
}

// LeaseReader is what Deps implement to have commits checked against path
// leases.
type LeaseReader interface {
	// PathLeases returns the path leases held by sessions other than
	// session ("" for none: every holder is another).
	PathLeases(ctx context.Context, session string) ([]PathLease, error)
}

// pathLeasePrefix is where path leases are kept; a repository without a
// ref under it has none and pays one git process per checked commit.
const pathLeasePrefix = refstore.LeasePrefix + lease.KindPath + "/"

// maxLeasedPaths bounds the paths a warning names for one lease.
const maxLeasedPaths = 3

// warnLeased writes one warning line per lease of another session that the
// staged paths fall under. session is the committing session ("" none).
func warnLeased(ctx context.Context, stderr io.Writer, deps Deps, session string) error {
	lr, ok := deps.(LeaseReader)
	if !ok {
		return nil
	}
	out, err := refstore.Git(ctx, ".", false, nil, "for-each-ref", "--count=1", "--format=x", pathLeasePrefix)
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return err
	}
	leases, err := lr.PathLeases(ctx, session)
	if err != nil || len(leases) == 0 {
		return err
	}
	// The index git commits (GIT_INDEX_FILE for `commit -a` or `commit
	// PATH` is inherited); both names of a rename, since moving a file
	// out of a leased directory touches it too.
	staged, err := refstore.Git(ctx, ".", false, nil, "diff", "--cached", "--name-only", "--no-renames", "-z")
	if err != nil {
		return fmt.Errorf("listing the staged paths: %w", err)
	}
	paths := strings.Split(strings.TrimRight(string(staged), "\x00"), "\x00")
	now := time.Now()
	for _, l := range leases {
		if line := leasedLine(l, paths, now); line != "" {
			fmt.Fprintln(stderr, line)
		}
	}
	return nil
}

// leasedLine is the warning for lease l if some of paths fall under it, else
// "".
func leasedLine(l PathLease, paths []string, now time.Time) string {
	k, err := lease.ParseKey(l.Key)
	if err != nil || k.Kind != lease.KindPath {
		return ""
	}
	pat, err := lease.Compile(k.Value)
	if err != nil {
		return ""
	}
	var hit []string
	for _, p := range paths {
		if p != "" && pat.Match(p) {
			hit = append(hit, p)
		}
	}
	if len(hit) == 0 {
		return ""
	}
	sort.Strings(hit)
	what := strings.Join(hit[:min(len(hit), maxLeasedPaths)], ", ")
	if more := len(hit) - maxLeasedPaths; more > 0 {
		what += fmt.Sprintf(" and %d more", more)
	}
	who := "session " + l.Session
	if l.Agent != "" {
		who = l.Agent + " " + who
	}
	if l.Owner != "" {
		who += " of " + l.Owner
	}
	frees := ""
	if !l.FreesAt.IsZero() {
		frees = fmt.Sprintf(" until %s unless renewed", l.FreesAt.Local().Format("15:04"))
	}
	return fmt.Sprintf("warning: git-handoff: this commit touches %s, leased to %s%s (%s); the commit goes on: check with its holder before pushing", what, who, frees, l.Key)
}
