package refstore

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Configuration is git's to read: one `git config --list -z --show-scope`
// per Store lists every setting with the scope it came from, includes,
// includeIf conditions, GIT_CONFIG_* and -c settings decided by git itself
// (reftable HEADs, symlinked directories and HOMEs, tabs and escapes in
// values: all as git reads them, because git reads them). Every lookup of
// the Store is answered from that one listing; the Store's own writes to
// the configuration drop it, so the next lookup lists again.

// configEntry is one setting as git lists it.
type configEntry struct {
	scope   string // "system", "global", "local", "worktree", "command"
	name    string // section and key lower case, a subsection as written
	value   string
	noValue bool // "[section] key" without "=": true as a boolean, "" as a value
}

// configList is every setting in the order git reads them.
type configList []configEntry

// parseConfigList reads `git config --list -z --show-scope`: per entry the
// scope, NUL, then the name, and a newline and the value unless the key has
// none, NUL.
func parseConfigList(out []byte) configList {
	var c configList
	for len(out) > 0 {
		scope, rest, ok := bytes.Cut(out, []byte{0})
		if !ok {
			break
		}
		kv, rest, _ := bytes.Cut(rest, []byte{0})
		out = rest
		k, v, has := bytes.Cut(kv, []byte{'\n'})
		c = append(c, configEntry{scope: string(scope), name: string(k), value: string(v), noValue: !has})
	}
	return c
}

// canonicalKey is a key as git lists it: section and key lower case, the
// subsection as written.
func canonicalKey(key string) string {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// get returns the last value of name (canonical), "" when unset.
func (c configList) get(name string) string {
	v := ""
	for _, e := range c {
		if e.name == name {
			v = e.value
		}
	}
	return v
}

// values returns every value of name, in order.
func (c configList) values(name string) []string {
	var out []string
	for _, e := range c {
		if e.name == name {
			out = append(out, e.value)
		}
	}
	return out
}

// subsections lists section's subsections in the order they first appear.
func (c configList) subsections(section string) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range c {
		sec, rest, ok := strings.Cut(e.name, ".")
		if !ok || sec != section {
			continue
		}
		i := strings.LastIndexByte(rest, '.')
		if i < 0 {
			continue
		}
		if sub := rest[:i]; !seen[sub] {
			seen[sub] = true
			out = append(out, sub)
		}
	}
	return out
}

// local is the repository's own settings: its config file and what that
// includes (git's "local" scope), never the user's.
func (c configList) local() configList {
	var out configList
	for _, e := range c {
		if e.scope == "local" {
			out = append(out, e)
		}
	}
	return out
}

// config lists the configuration through git, once per Store until the
// Store changes it.
func (s *Store) config(ctx context.Context) (configList, error) {
	s.mu.Lock()
	c, ok, pending, seen := s.cfg, s.cfgRead, s.cfgPending, s.cfgStamp
	s.cfgPending = nil
	s.mu.Unlock()
	// The repository's own config file changed under a Store that lives
	// on (a server's, a test's): list again. Only a change of that file
	// is noticed; git reads the rest.
	stamp := s.configStamp()
	if ok && stamp == seen {
		return c, nil
	}
	if pending != nil && stamp != s.openStamp {
		pending = nil
	}
	var r configResult
	if pending != nil {
		r = <-pending
	} else {
		r = listConfig(ctx, s.startDir)
	}
	if r.err != nil {
		return nil, r.err
	}
	out := r.out
	c = parseConfigList(out)
	s.mu.Lock()
	s.cfg, s.cfgRead, s.cfgStamp = c, true, stamp
	s.mu.Unlock()
	return c, nil
}

// configResult is a listing of the configuration, or why there is none.
type configResult struct {
	out []byte
	err error
}

// listConfig runs git config where the Store was opened, as the user's own
// git runs: an includeIf "gitdir:" is matched against the git dir as git's
// setup found it from there.
func listConfig(ctx context.Context, dir string) configResult {
	out, err := Git(ctx, dir, false, nil, "config", "--list", "-z", "--show-scope")
	return configResult{out, err}
}

// prefetchConfig starts the listing while Open asks rev-parse: every
// command reads the configuration, and two git processes at once cost the
// wall time of one on two cores.
func (s *Store) prefetchConfig() {
	ch := make(chan configResult, 1)
	dir := s.startDir
	go func() { ch <- listConfig(context.Background(), dir) }()
	s.cfgPending = ch
}

// fileStamp is what stat says of a file: enough to notice that git
// rewrote it (git writes a config file whole and renames it into place).
type fileStamp struct {
	ino, size, mtime int64
}

// configStamp stats the repository's config file and this worktree's.
func (s *Store) configStamp() [2]fileStamp {
	var st [2]fileStamp
	for i, p := range []string{filepath.Join(s.commonDir, "config"), filepath.Join(s.gitDir, "config.worktree")} {
		if fi, err := os.Stat(p); err == nil {
			st[i] = fileStamp{ino: inodeOf(fi), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		}
	}
	return st
}

// configChanged drops the listing after the Store wrote the configuration.
func (s *Store) configChanged() {
	s.mu.Lock()
	s.cfg, s.cfgRead, s.cfgPending = nil, false, nil
	s.mu.Unlock()
}

// localConfig is the repository's own settings (configList.local); a
// configuration git cannot read reads as empty here, and git's own
// commands will say why.
func (s *Store) localConfig() configList {
	c, err := s.config(context.Background())
	if err != nil {
		return nil
	}
	return c.local()
}

// Config returns the values the configuration has for keys (the last of
// each, after includes and environment overrides, as git reads them),
// missing keys omitted; a key given without a value reads as "". The map is
// keyed by the lower-cased key.
func (s *Store) Config(ctx context.Context, keys ...string) (map[string]string, error) {
	c, err := s.config(ctx)
	if err != nil {
		return nil, err
	}
	return c.pick(keys), nil
}

// pick returns the last value of each of keys that is set, keyed by the
// lower-cased key.
func (c configList) pick(keys []string) map[string]string {
	want := make(map[string]string, len(keys))
	for _, k := range keys {
		want[canonicalKey(k)] = strings.ToLower(k)
	}
	vals := map[string]string{}
	for _, e := range c {
		if out, ok := want[e.name]; ok {
			vals[out] = e.value
		}
	}
	return vals
}

// ConfigValues returns every non-empty value of a multi-valued key in the
// repository's own configuration (git's local scope), in order.
func (s *Store) ConfigValues(ctx context.Context, key string) ([]string, error) {
	c, err := s.config(ctx)
	if err != nil {
		return nil, err
	}
	var vals []string
	for _, v := range c.local().values(canonicalKey(key)) {
		if v != "" {
			vals = append(vals, v)
		}
	}
	return vals, nil
}

// Who a person is must not depend on which agent's shell asks. Gemini CLI
// runs its shell commands with GIT_CONFIG_GLOBAL pointing at the null
// device (and the system file hidden too), so that git inside the agent
// ignores the user's credential helpers, hooks and pagers; a user.email
// kept in ~/.gitconfig vanishes with them, and a baton left from inside
// that shell would go to another owner than one left outside it.
//
// Of the two ways out, reading the user's configuration as git would
// without that override was chosen over recording the owner once (at init
// or at the first session) in the repository: a record would pin whatever
// the first command saw, which is the wrong owner when that command ran
// inside such a shell, and would go stale when the person changes their
// user.email; asking git again needs no state and gives the answer git
// gives in the person's own terminal. A null GIT_CONFIG_GLOBAL is the
// sign: it hides the person's file without naming another, which nobody
// does to become someone else. A GIT_CONFIG_GLOBAL naming a file is
// honoured, as git honours it.

// nullGlobal says whether env points git's user configuration at the null
// device.
func nullGlobal(env []string) bool {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "GIT_CONFIG_GLOBAL" {
			return v == os.DevNull || v == "/dev/null"
		}
	}
	return false
}

// withoutVar returns env without the variable name.
func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return out
}

// PersonConfig returns the values of keys as Config does, except that a
// user configuration hidden by a GIT_CONFIG_GLOBAL naming the null device
// is read as git reads it when the variable is unset (see above): for who
// the person is (handoff.owner, user.email, user.name), never for how git
// behaves.
func (s *Store) PersonConfig(ctx context.Context, keys ...string) (map[string]string, error) {
	if !nullGlobal(os.Environ()) {
		return s.Config(ctx, keys...)
	}
	cmd := exec.CommandContext(ctx, "git", "config", "--list", "-z", "--show-scope")
	cmd.Dir = s.startDir
	cmd.Env = withoutVar(os.Environ(), "GIT_CONFIG_GLOBAL")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, &GitError{Args: cmd.Args[1:], Stderr: errb.String(), Err: err}
	}
	return parseConfigList(out).pick(keys), nil
}
