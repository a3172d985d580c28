package teamsync

import (
	"context"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// InitResult is what Init changed in the remote's configuration.
type InitResult struct {
	Remote  string   `json:"remote"`
	Added   []string `json:"added"`   // fetch refspecs added
	Present []string `json:"present"` // fetch refspecs already there
	// Arbiter is the remote that decides claims (git config
	// handoff.arbiter): remote itself, or the one of this clone's remotes
	// the team's arbiter record names.
	Arbiter  string   `json:"arbiter"`
	Warnings []string `json:"warnings"`
}

// Changed reports whether Init wrote anything.
func (r InitResult) Changed() bool { return len(r.Added) > 0 }

// Init adds the fetch refspecs of our kinds to remote, so that a plain `git
// fetch` brings the team's records into refs/ao/remotes/<remote>/, and
// settles which remote decides claims (see arbiter_config.go): the one the
// team's arbiter record names when a remote has one, else remote, which
// then gets the record. Running it again changes nothing.
//
// It adds no push refspec: a remote.<name>.push value replaces push.default
// for a plain `git push`, which would then stop pushing the current branch,
// and a forced glob would overwrite teammates' records without a lease.
// Records are pushed by sync and the pre-push hook, each ref with a lease.
func Init(ctx context.Context, st *refstore.Store, remote string) (InitResult, error) {
	res := InitResult{Remote: remote, Added: []string{}, Present: []string{}}
	if _, err := checkRemote(ctx, st, remote); err != nil {
		return res, err
	}
	specs, err := Refspecs(remote)
	if err != nil {
		return res, err
	}
	as, err := arbiterRefspec(remote)
	if err != nil {
		return res, err
	}
	specs = append(specs, as)
	have, err := st.ConfigValues(ctx, "remote."+remote+".fetch")
	if err != nil {
		return res, err
	}
	for _, s := range specs {
		if contains(have, s) {
			res.Present = append(res.Present, s)
			continue
		}
		if err := st.AddConfig(ctx, "remote."+remote+".fetch", s); err != nil {
			return res, err
		}
		res.Added = append(res.Added, s)
	}
	res.Arbiter, res.Warnings, err = settleArbiter(ctx, st, remote)
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return res, err
}

// initialized lists the remotes Init set up (whose fetch refspecs include
// ours), in config order.
func initialized(ctx context.Context, st *refstore.Store) ([]string, error) {
	rcs, err := st.RemoteConfigs(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, rc := range rcs {
		for _, spec := range rc.Fetch {
			if strings.HasPrefix(spec, "+"+refstore.HandoffsPrefix+"*:") {
				names = append(names, rc.Name)
				break
			}
		}
	}
	return names, nil
}

// Initialized reports whether Init set remote up, which is what makes the
// pre-push hook push our records there.
func Initialized(ctx context.Context, st *refstore.Store, remote string) (bool, error) {
	names, err := initialized(ctx, st)
	return contains(names, remote), err
}
