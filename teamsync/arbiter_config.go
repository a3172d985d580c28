package teamsync

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// One arbiter per team. Every clone must push its claims to the same
// repository, or two clones win one baton. A remote's name does not say
// which repository it is (one clone's "origin" is another's "upstream"), so
// the team's arbiter is a record the remotes carry: init writes the
// arbiter's URL, normalized, at refs/ao/config/arbiter on the remote it sets
// up, and every init and claim reads what each remote says. A clone
// arbitrates at the one of its remotes with that URL, names it in git config
// handoff.arbiter, and refuses to claim when it has none.

// ArbiterKey is the git config key naming the remote that decides claims
// (refstore reads it too, for the causal clock).
const ArbiterKey = refstore.ArbiterKey

// ArbiterRecordRef is where a remote holds the team's arbiter record.
const ArbiterRecordRef = "refs/ao/config/arbiter"

// arbitersPrefix holds each remote's arbiter record as last fetched, out of
// refs/ao/remotes/ so that sync and the lazy merge never take it for a
// record to merge.
const arbitersPrefix = "refs/ao/arbiters/"

const arbiterSchema = "arbiter/v1"

// ErrNoArbiter is a claim this clone cannot put to the team's arbiter.
var ErrNoArbiter = handoff.ErrNoArbiter

type arbiterRecord struct {
	Schema string    `json:"schema"`
	URL    string    `json:"url"` // normalized, see sameRepo
	SetAt  time.Time `json:"setAt"`
}

// arbiterRefspec fetches remote's arbiter record next to the others.
func arbiterRefspec(remote string) (string, error) {
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return "+refs/ao/config/*:" + arbitersPrefix + enc + "/*", nil
}

func arbiterCopy(remote string) (string, error) {
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return arbitersPrefix + enc + "/arbiter", nil
}

// teamArbiter is what the remotes of this clone say about the arbiter, as
// last fetched: the URL they name ("" when none does) and which remote said
// it. Remotes that name different URLs are an error.
func teamArbiter(ctx context.Context, st refstore.Records, rcs []refstore.RemoteConfig) (string, string, error) {
	var team, from string
	for _, rc := range rcs {
		ref, err := arbiterCopy(rc.Name)
		if err != nil {
			continue
		}
		e, err := st.Get(ctx, ref)
		if err != nil {
			continue
		}
		var rec arbiterRecord
		if err := refstore.Decode(e, arbiterSchema, &rec); err != nil || rec.URL == "" {
			continue
		}
		switch {
		case team == "":
			team, from = rec.URL, rc.Name
		case team != rec.URL:
			return "", "", fmt.Errorf("%w: remote %s says claims are decided at %s, remote %s says at %s: point them at one arbiter (the records are %s on each)", ErrNoArbiter, from, team, rc.Name, rec.URL, ArbiterRecordRef)
		}
	}
	return team, from, nil
}

// remoteAt is the first of rcs whose URL is the repository u, preferring
// the remote named prefer.
func remoteAt(st refstore.Clone, rcs []refstore.RemoteConfig, u, prefer string) string {
	found := ""
	for _, rc := range rcs {
		if normURL(rc.URL, st.Dir()) == u {
			if rc.Name == prefer {
				return rc.Name
			}
			if found == "" {
				found = rc.Name
			}
		}
	}
	return found
}

func findRemote(rcs []refstore.RemoteConfig, name string) (refstore.RemoteConfig, bool) {
	for _, rc := range rcs {
		if rc.Name == name {
			return rc, true
		}
	}
	return refstore.RemoteConfig{}, false
}

// normURL gives one spelling of a repository's URL, so that two clones
// naming it differently compare equal: the scheme and user are dropped
// (ssh, https and scp-like forms of one host and path are one repository),
// the host is lower-cased, a trailing "/" or ".git" is dropped, and a local
// path (or file:// URL) is made absolute against dir with symbolic links
// resolved. It does not apply url.<base>.insteadOf.
func normURL(raw, dir string) string {
	u := strings.TrimSpace(raw)
	if u == "" {
		return ""
	}
	trim := func(p string) string {
		p = strings.TrimRight(p, "/")
		return strings.TrimSuffix(p, ".git")
	}
	if rest, ok := strings.CutPrefix(u, "file://"); ok {
		return localURL(rest, dir, trim)
	}
	if strings.Contains(u, "://") {
		if pu, err := url.Parse(u); err == nil && pu.Host != "" {
			return strings.ToLower(pu.Host) + "/" + strings.TrimLeft(trim(pu.Path), "/")
		}
		return u
	}
	// scp-like [user@]host:path, when the colon comes before any slash.
	if i := strings.IndexByte(u, ':'); i > 0 && !strings.Contains(u[:i], "/") && !(i == 1 && filepath.VolumeName(u) != "") {
		host := u[:i]
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		return strings.ToLower(host) + "/" + strings.TrimLeft(trim(u[i+1:]), "/")
	}
	return localURL(u, dir, trim)
}

func localURL(p, dir string, trim func(string) string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if fi, err := os.Stat(filepath.Join(p, ".git")); err == nil && fi.IsDir() {
		p = filepath.Join(p, ".git") // a non-bare repository is its .git
	}
	return "file://" + trim(p)
}

// chooseArbiter decides which remote of this clone decides claims: the one
// at the URL the remotes' records name; without records, the one git config
// handoff.arbiter names, else fallback. It returns the team's URL with it.
func chooseArbiter(ctx context.Context, st refstore.Clone, rcs []refstore.RemoteConfig, fallback string) (name, team string, err error) {
	team, from, err := teamArbiter(ctx, st, rcs)
	if err != nil {
		return "", "", err
	}
	configured, err := st.ConfigValues(ctx, ArbiterKey)
	if err != nil {
		return "", "", err
	}
	prefer := fallback
	if len(configured) > 0 {
		prefer = configured[len(configured)-1]
	}
	if team == "" && prefer == "" {
		return "", "", nil // undecided: the caller falls back
	}
	if team != "" {
		name := remoteAt(st, rcs, team, prefer)
		if name == "" {
			return "", team, fmt.Errorf("%w: remote %s says the team decides claims at %s, and no remote of this clone points there: add it (`git remote add <name> <its url>`), then run `git handoff init --remote <name>`", ErrNoArbiter, from, team)
		}
		return name, team, nil
	}
	rc, ok := findRemote(rcs, prefer)
	if !ok {
		return "", "", fmt.Errorf("%w: %s names remote %q, which is not configured", ErrNoArbiter, ArbiterKey, prefer)
	}
	return rc.Name, normURL(rc.URL, st.Dir()), nil
}

// settleArbiter is init's part: fetch what every remote says about the
// arbiter, choose it, record it in git config and on remote (when remote
// has no record yet, so that its other clones learn it). It returns the
// arbiter's name and warnings about remotes it could not ask.
func settleArbiter(ctx context.Context, st refstore.Clone, remote string) (string, []string, error) {
	rcs, err := st.RemoteConfigs(ctx)
	if err != nil {
		return "", nil, err
	}
	var warns []string
	for _, rc := range rcs {
		spec, err := arbiterRefspec(rc.Name)
		if err != nil {
			continue
		}
		if err := st.Fetch(ctx, rc.Name, true, spec); err != nil {
			// Decided from what is known; init again once it is reachable.
			warns = append(warns, fmt.Sprintf("could not ask remote %s which remote decides claims (run init again once it is reachable): %v", rc.Name, err))
		}
	}
	name, team, err := chooseArbiter(ctx, st, rcs, remote)
	if err != nil {
		return "", warns, err
	}
	if vals, err := st.ConfigValues(ctx, ArbiterKey); err != nil {
		return "", warns, err
	} else if len(vals) != 1 || vals[0] != name {
		if err := st.SetConfig(ctx, ArbiterKey, name); err != nil {
			return "", warns, err
		}
	}
	// The arbiter itself and the remote being set up carry the record.
	for _, r := range []string{name, remote} {
		cp, err := arbiterCopy(r)
		if err != nil {
			return "", warns, err
		}
		if _, err := st.Get(ctx, cp); err == nil {
			continue
		} else if !errors.Is(err, refstore.ErrNotFound) {
			return "", warns, err
		}
		data, err := refstore.Encode(arbiterRecord{Schema: arbiterSchema, URL: team, SetAt: time.Now().UTC()})
		if err != nil {
			return "", warns, err
		}
		oid, err := st.WriteBlob(ctx, data)
		if err != nil {
			return "", warns, err
		}
		if err := st.Push(ctx, r, []refstore.Update{{Ref: ArbiterRecordRef, New: oid}}, refstore.PushOptions{NoVerify: true}); err != nil {
			// Unreachable, or a teammate's init just recorded one: the
			// next init here reads it and says whether it agrees.
			warns = append(warns, fmt.Sprintf("the arbiter was not recorded on %s (run init again): %v", r, err))
			continue
		}
		if err := st.Apply(ctx, "handoff: arbiter recorded on "+r, refstore.Update{Ref: cp, New: oid}); err != nil && !errors.Is(err, refstore.ErrConflict) {
			return "", warns, err
		}
	}
	return name, warns, nil
}
