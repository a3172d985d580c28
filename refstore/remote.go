package refstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The remote side of the store: fetch and push of record refs with git
// itself (go-git's were slower, write tracking refs unsafely and need a
// tracking ref for a lease), and the git config that says which remotes take
// our records.

// Fetch runs `git fetch` of refspecs from remote (a name or a URL). Tags are
// not fetched; with prune, tracking refs under the refspecs' destinations
// whose source is gone are deleted, so tracking refs mirror the remote.
func (s *Store) Fetch(ctx context.Context, remote string, prune bool, refspecs ...string) error {
	// fetch.unpackLimit=1: git keeps what it fetched as a pack with a
	// .keep file until the tracking refs name it, which a concurrent
	// repack honours. Below the default limit (100 objects) it unpacks
	// loose objects instead, and a git gc --prune=now in that window
	// prunes them and leaves the tracking refs on missing objects (found
	// by the soak, beside gc --prune=now).
	args := []string{"-c", "fetch.unpackLimit=1", "fetch", "--quiet", "--no-tags", "--no-recurse-submodules"}
	if prune {
		args = append(args, "--prune")
	}
	args = append(args, "--", remote)
	args = append(args, refspecs...)
	_, err := Git(ctx, s.workDir, false, nil, args...)
	if err != nil {
		if lock := s.BackendLock(); lock != "" {
			// git's message names no file: say which one, and what to do.
			err = fmt.Errorf("%w: %w", &LockedError{Path: lock}, err)
		}
	}
	return err
}

// PushOptions tune Push.
type PushOptions struct {
	// Atomic asks the server to take all refs or none. A server that does
	// not support it gets the same push without it.
	Atomic bool
	// KeepOld logs every tracking ref git updates after the push, so the
	// value a push replaced stays reachable from a reflog.
	KeepOld bool
	// NoVerify skips the pre-push hook (hooks push records themselves).
	NoVerify bool
	// Track are fetch refspecs git is to read as the remote's for this
	// push only (git -c remote.<name>.fetch=...), so that it moves the
	// tracking refs they map, and takes a bare --force-with-lease from
	// them, as for a remote whose config names them. Our refspecs are
	// kept out of the user's config, so that a plain git fetch does not
	// fetch our records.
	Track []string
}

// PushError is a push that git refused, in whole or in part. Rejected names
// the refs git's porcelain output marked as not updated; which of them lost
// a lease is for the caller to find out by fetching again, not from git's
// wording. Reasons and Remote carry the server's own words, for the user:
// a hidden ref, a hook that said no, a branch-only rule.
type PushError struct {
	Rejected []string
	// Reasons maps a rejected ref to git's summary of why, as
	// "remote rejected: deny updating a hidden ref" or "rejected: stale info".
	Reasons map[string]string
	// Remote is what the server printed ("remote: " lines, prefix dropped).
	Remote []string
	Err    error
}

// Refused reports a push the remote received and answered by refusing
// refs of it (a lost lease, a hook that said no, a hidden ref): unlike one
// that could not reach it, or whose answer was lost, its outcome is
// known. Of an atomic push, nothing landed.
func Refused(err error) bool {
	var pe *PushError
	return errors.As(err, &pe) && len(pe.Rejected) > 0
}

// NameConflict reports whether the remote refused ref because a ref of
// its name's prefix exists there, or one under it does: the server's
// answer, not a race. Older gits (2.39 among them) word it "failed to update ref",
// as it words a lock another push held, so the server's message decides.
func (e *PushError) NameConflict(ref string) bool {
	if strings.Contains(e.Reasons[ref], "refname conflict") {
		return true
	}
	for _, line := range e.Remote {
		if strings.Contains(line, "exists; cannot create '"+ref+"'") {
			return true
		}
	}
	return false
}

func (e *PushError) Error() string {
	if len(e.Rejected) == 0 && len(e.Remote) == 0 {
		return e.Err.Error()
	}
	var b strings.Builder
	if len(e.Rejected) > 0 {
		b.WriteString("push rejected for ")
		for i, ref := range e.causesFirst()[:min(3, len(e.Rejected))] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ref)
			if r := e.Reasons[ref]; r != "" {
				b.WriteString(" (" + r + ")")
			}
		}
		if len(e.Rejected) > 3 {
			fmt.Fprintf(&b, " and %d more", len(e.Rejected)-3)
		}
	} else {
		b.WriteString("push failed")
	}
	if len(e.Remote) > 0 {
		b.WriteString("; the remote said: ")
		b.WriteString(strings.Join(e.Remote[:min(5, len(e.Remote))], " / "))
	} else if len(e.Reasons) == 0 {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// atomicEcho is what a server refusing an atomic push says of every ref
// but the one whose refusal failed it (git receive-pack's words).
const atomicEcho = "atomic push failure"

// causesFirst is Rejected with the refs whose reason is the atomic echo
// last: the ref that failed an atomic push of many may sort after the
// three the message shows, and its reason is the one to read (the soak's
// seed 11 showed three echoes "and 4 more").
func (e *PushError) causesFirst() []string {
	refs := slices.Clone(e.Rejected)
	slices.SortStableFunc(refs, func(a, b string) int {
		ea, eb := strings.Contains(e.Reasons[a], atomicEcho), strings.Contains(e.Reasons[b], atomicEcho)
		switch {
		case ea == eb:
			return 0
		case eb:
			return -1
		}
		return 1
	})
	return refs
}

// maxPushArgs bounds the bytes of refspecs and leases given to one git push,
// well below the kernel's limit on a command line. A larger set of updates
// goes in several pushes (each atomic on its own). A variable only so that
// a test can split a few hundred refs the way a real push splits many
// thousands (one refspec per ref makes git push quadratic: 1,500 refs at
// this bound took 20 to 90 s of CI).
var maxPushArgs = 512 << 10

// Push moves each update's Ref on remote from Old to New as a swap: every
// ref is pushed with --force-with-lease=<ref>:<Old> (Old "" = must not
// exist) and New "" deletes it. Blob refs can only be moved on a remote by a
// forced push; the lease is what makes it a compare-and-swap.
func (s *Store) Push(ctx context.Context, remote string, updates []Update, opts PushOptions) error {
	for len(updates) > 0 {
		n, size := 0, 0
		for n < len(updates) && (n == 0 || size < maxPushArgs) {
			size += 2*len(updates[n].Ref) + 2*len(updates[n].New) + 40
			n++
		}
		if err := s.pushChunk(ctx, remote, updates[:n], opts); err != nil {
			return err
		}
		updates = updates[n:]
	}
	return nil
}

func (s *Store) pushChunk(ctx context.Context, remote string, updates []Update, opts PushOptions) error {
	var leases, specs []string
	for _, u := range updates {
		if strings.ContainsAny(u.Ref, " \n\x00:") || !strings.HasPrefix(u.Ref, "refs/") {
			return fmt.Errorf("%w: %q", ErrBadName, u.Ref)
		}
		leases = append(leases, "--force-with-lease="+u.Ref+":"+u.Old)
		specs = append(specs, u.New+":"+u.Ref)
	}
	return s.push(ctx, remote, leases, specs, opts)
}

// PushMatching makes every ref under each of prefixes on remote what it is
// here: each local ref pushed to the same name, and each remote ref with no
// local one deleted (git push --prune), all under leases on the tracking
// refs git keeps for them (a bare --force-with-lease: a remote ref with no
// tracking ref here is expected absent, so a ref a teammate pushed since
// the last fetch fails the push rather than being deleted). Refs already
// equal on both sides are left alone. It exists because one refspec per
// ref makes git push quadratic: 5,000 refs took 57 s here against 4 s by
// pattern, and 6,000 deletes named one by one 27 s against 2 s pruned. The
// caller must hold locally every ref it wants kept on the remote, and pass
// the refspecs that map the tracking refs (PushOptions.Track).
func (s *Store) PushMatching(ctx context.Context, remote string, prefixes []string, opts PushOptions) error {
	var specs []string
	for _, p := range prefixes {
		if !strings.HasPrefix(p, Root) || !strings.HasSuffix(p, "/") {
			return fmt.Errorf("%w: prefix %q", ErrBadName, p)
		}
		specs = append(specs, p+"*:"+p+"*")
	}
	return s.push(ctx, remote, []string{"--prune", "--force-with-lease"}, specs, opts)
}

// push runs one git push; a server without --atomic gets it without.
func (s *Store) push(ctx context.Context, remote string, leases, specs []string, opts PushOptions) error {
	var args []string
	for _, spec := range opts.Track {
		args = append(args, "-c", "remote."+remote+".fetch="+spec)
	}
	if opts.KeepOld {
		args = append(args, "-c", "core.logAllRefUpdates=always")
	}
	args = append(args, "push", "--porcelain", "--no-follow-tags", "--no-recurse-submodules")
	if opts.NoVerify {
		args = append(args, "--no-verify")
	}
	args = append(args, leases...)
	run := func(atomic bool) ([]byte, error) {
		a := append([]string{}, args...)
		if atomic {
			a = append(a, "--atomic")
		}
		a = append(a, "--", remote)
		return Git(ctx, s.workDir, false, nil, append(a, specs...)...)
	}
	out, err := run(opts.Atomic)
	var ge *GitError
	if err != nil && opts.Atomic && errors.As(err, &ge) && strings.Contains(ge.Stderr, "does not support --atomic") {
		out, err = run(false)
	}
	if err != nil {
		pe := &PushError{Err: err}
		pe.Rejected, pe.Reasons = rejected(out)
		if errors.As(err, &ge) {
			pe.Remote = remoteLines(ge.Stderr)
		}
		return pe
	}
	return nil
}

// remoteLines picks what the server said out of git push's stderr: the
// lines git prefixes with "remote: ", without the prefix, the padding git
// adds to them, or control bytes (the text is the server's).
func remoteLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimRight(l, "\r")
		// A progress line git rewrote with \r keeps only its last state.
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		msg, ok := strings.CutPrefix(l, "remote: ")
		if !ok {
			continue
		}
		msg = strings.TrimSpace(strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' || r == 0x7f {
				return -1
			}
			return r
		}, msg))
		if msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

// rejected reads `git push --porcelain` output: "<flag>\t<from>:<to>\t<summary>",
// flag "!" for a ref that was not updated, the summary "[what] (why)".
func rejected(out []byte) ([]string, map[string]string) {
	var refs []string
	reasons := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) < 2 || f[0] != "!" {
			continue
		}
		_, to, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		refs = append(refs, to)
		if len(f) == 3 {
			if r := summary(f[2]); r != "" {
				reasons[to] = r
			}
		}
	}
	return refs, reasons
}

// summary turns git's "[remote rejected] (deny updating a hidden ref)" into
// "remote rejected: deny updating a hidden ref".
func summary(s string) string {
	s = strings.TrimSpace(s)
	what, why := s, ""
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i > 0 {
			what, why = s[1:i], strings.TrimSpace(s[i+1:])
		}
	}
	why = strings.TrimSuffix(strings.TrimPrefix(why, "("), ")")
	if why == "" {
		return what
	}
	return what + ": " + why
}

// Remotes lists the configured remotes, in config order.
func (s *Store) Remotes(ctx context.Context) ([]string, error) {
	rcs, err := s.RemoteConfigs(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(rcs))
	for i, rc := range rcs {
		names[i] = rc.Name
	}
	return names, nil
}

// AddConfig appends value to a multi-valued key in the repository's config.
func (s *Store) AddConfig(ctx context.Context, key, value string) error {
	_, err := Git(ctx, s.workDir, false, nil, "config", "--local", "--add", key, value)
	s.configChanged()
	return err
}

// UnsetConfigValue removes every value of key in the repository's config
// that is exactly value (git config --fixed-value), leaving its other
// values as they are.
func (s *Store) UnsetConfigValue(ctx context.Context, key, value string) error {
	_, err := Git(ctx, s.workDir, false, nil, "config", "--local", "--fixed-value", "--unset-all", key, value)
	s.configChanged()
	return err
}

// SetConfig sets a single-valued key in the repository's config.
func (s *Store) SetConfig(ctx context.Context, key, value string) error {
	_, err := Git(ctx, s.workDir, false, nil, "config", "--local", key, value)
	s.configChanged()
	return err
}

// RemoteConfig is a remote as the repository's own config file names it.
type RemoteConfig struct {
	Name  string
	URL   string   // its first url
	Fetch []string // its fetch refspecs, in file order
}

// RemoteConfigs lists the remotes of the repository's config file, in file
// order, from the Store's one listing of the configuration.
func (s *Store) RemoteConfigs(ctx context.Context) ([]RemoteConfig, error) {
	cfg := s.localConfig()
	var out []RemoteConfig
	for _, name := range cfg.subsections("remote") {
		out = append(out, RemoteConfig{Name: name, URL: cfg.get("remote." + name + ".url"), Fetch: cfg.values("remote." + name + ".fetch")})
	}
	return out, nil
}
