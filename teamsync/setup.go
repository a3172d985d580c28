package teamsync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/refstore"
)

// RemoteKey is the git config key (multi-valued) listing the remotes init
// set up to carry the team's records: sync's default remote is the first,
// and the pre-push hook pushes records to each.
const RemoteKey = "handoff.remote"

// InitResult is what Init changed in the repository's configuration.
type InitResult struct {
	Remote string `json:"remote"`
	// Marked says init added remote to git config handoff.remote now.
	Marked bool `json:"marked"`
	// Removed are the fetch refspecs of our records that an earlier
	// version of init put into remote.<name>.fetch, taken out again (see
	// Init).
	Removed []string `json:"removed"`
	// Arbiter is the remote that decides claims (git config
	// handoff.arbiter): remote itself, or the one of this clone's remotes
	// the team's arbiter record names.
	Arbiter  string   `json:"arbiter"`
	Warnings []string `json:"warnings"`
}

// Changed reports whether Init wrote anything.
func (r InitResult) Changed() bool { return r.Marked || len(r.Removed) > 0 }

// Init makes remote carry the team's records: it names remote in git config
// handoff.remote, and settles which remote decides claims (see
// arbiter_config.go): the one the team's arbiter record names when a remote
// has one, else remote, which then gets the record. Running it again
// changes nothing.
//
// It changes neither remote.<name>.fetch nor remote.<name>.push. Our
// records are fetched by sync, start and the hooks, each asking only for
// our prefixes, so a plain `git fetch` or `git pull` costs what it did
// before init however many records the team keeps. (Versions before this
// one added fetch refspecs of our kinds; Init and Sync take them out, with
// a notice.) A push refspec would replace push.default for a plain `git
// push`, and a forced glob would overwrite teammates' records without a
// lease: records are pushed by sync and the pre-push hook, each ref with
// a lease.
func Init(ctx context.Context, st refstore.Clone, remote string) (InitResult, error) {
	res := InitResult{Remote: remote, Removed: []string{}}
	if _, err := checkRemote(ctx, st, remote); err != nil {
		return res, err
	}
	var err error
	if res.Removed, err = migrateFetch(ctx, st, remote); err != nil {
		return res, err
	}
	if res.Marked, err = markRemote(ctx, st, remote); err != nil {
		return res, err
	}
	res.Arbiter, res.Warnings, err = settleArbiter(ctx, st, remote)
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	if len(res.Removed) > 0 {
		res.Warnings = append(res.Warnings, migrateNotice(remote, res.Removed))
	}
	return res, err
}

// legacyFetch reports a fetch refspec that an earlier init added: one that
// maps a prefix of ours to refs/ao/ (tracking copies or arbiter records).
// Nothing else under remote.<name>.fetch is ours to touch.
func legacyFetch(spec string) bool {
	src, dst, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
	return ok && strings.HasPrefix(src, refstore.Root) && strings.HasPrefix(dst, refstore.Root)
}

// migrateFetch takes the fetch refspecs an earlier init added out of
// remote's configuration and returns them.
func migrateFetch(ctx context.Context, st refstore.Config, remote string) ([]string, error) {
	have, err := st.ConfigValues(ctx, "remote."+remote+".fetch")
	if err != nil {
		return nil, err
	}
	removed := []string{}
	for _, s := range have {
		if !legacyFetch(s) || contains(removed, s) {
			continue
		}
		if err := st.UnsetConfigValue(ctx, "remote."+remote+".fetch", s); err != nil {
			return removed, fmt.Errorf("taking fetch refspec %s out of remote %s: %w", s, remote, err)
		}
		removed = append(removed, s)
	}
	return removed, nil
}

func migrateNotice(remote string, removed []string) string {
	return fmt.Sprintf("took %d fetch refspec(s) of git-handoff's records out of remote.%s.fetch: a plain `git fetch` now fetches only what it fetched before `git handoff init`; `git handoff sync`, `start` and the hooks fetch the records themselves", len(removed), remote)
}

// initialized lists the remotes Init set up, in the order git config
// handoff.remote names them, then those an earlier init set up by adding
// fetch refspecs (not migrated yet), in config order.
func initialized(ctx context.Context, st refstore.Config) ([]string, error) {
	names, err := st.ConfigValues(ctx, RemoteKey)
	if err != nil {
		return nil, err
	}
	rcs, err := st.RemoteConfigs(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if _, ok := findRemote(rcs, n); ok && !contains(out, n) {
			out = append(out, n)
		}
	}
	for _, rc := range rcs {
		for _, spec := range rc.Fetch {
			if legacyFetch(spec) && !contains(out, rc.Name) {
				out = append(out, rc.Name)
				break
			}
		}
	}
	return out, nil
}

// Initialized reports whether Init set remote up, which is what makes the
// pre-push hook push our records there.
func Initialized(ctx context.Context, st refstore.Config, remote string) (bool, error) {
	names, err := initialized(ctx, st)
	return contains(names, remote), err
}

// migrate is sync's part of the move away from fetch refspecs: a remote an
// earlier init set up loses them and is named in handoff.remote instead.
// It returns the notice to show, "" when there was nothing to do.
func migrate(ctx context.Context, st refstore.Config, remote string) (string, error) {
	removed, err := migrateFetch(ctx, st, remote)
	if err != nil || len(removed) == 0 {
		return "", err
	}
	if _, err := markRemote(ctx, st, remote); err != nil {
		return "", err
	}
	return migrateNotice(remote, removed), nil
}

// sealedNote is the local note that says this clone's archive months all
// name commits (archive.Seal), so that sync asks no more.
const sealedNote = "archive-sealed"

// sealArchive moves the months an older release left naming trees to
// their commits, once: a month that names a tree costs every git fetch a
// read of all of it. The next join carries them to the remote, and a
// month fetched later as a tree is sealed by the join (archive.Union).
// It returns the notes of a month it put right first.
func sealArchive(ctx context.Context, st refstore.Clone) ([]string, error) {
	if _, err := st.Local().Read(sealedNote); err == nil {
		return nil, nil
	}
	var notes []string
	_, err := archive.Seal(ctx, st)
	if errors.Is(err, refstore.ErrMissingObject) {
		// A month whose commit a prune took: put right first (its
		// earlier versions), then sealed as the rest.
		if notes, err = archive.Mend(ctx, st, refstore.ArchivePrefix); err == nil {
			_, err = archive.Seal(ctx, st)
		}
	}
	if err != nil {
		return notes, err
	}
	return notes, st.Local().Write(ctx, sealedNote, []byte("archive months name commits\n"))
}

// markRemote names remote in git config handoff.remote, once; it reports
// whether it added it now.
func markRemote(ctx context.Context, st refstore.Config, remote string) (bool, error) {
	have, err := st.ConfigValues(ctx, RemoteKey)
	if err != nil || contains(have, remote) {
		return false, err
	}
	if err := st.AddConfig(ctx, RemoteKey, remote); err != nil {
		return false, err
	}
	return true, nil
}
