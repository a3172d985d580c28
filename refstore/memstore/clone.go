package memstore

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/sign"
)

// The rest of a refstore.Writer in memory: a configuration set by the
// test, notes kept in a map, no signing.

var _ refstore.Writer = (*Store)(nil)

// Configure sets key to vals (the last is the value Config gives); no
// values unsets it. Keys are compared as git compares them, the section
// and the name without case.
func (s *Store) Configure(key string, vals ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.config == nil {
		s.config = map[string][]string{}
	}
	k := canonicalKey(key)
	if len(vals) == 0 {
		delete(s.config, k)
		return
	}
	s.config[k] = append([]string(nil), vals...)
}

// canonicalKey lower-cases a key's section and name, keeping a
// subsection's case, as git does.
func canonicalKey(key string) string {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// Config returns the value of each key that is set (refstore.Config).
func (s *Store) Config(ctx context.Context, keys ...string) (map[string]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[string]string{}
	for _, k := range keys {
		if v := s.config[canonicalKey(k)]; len(v) > 0 {
			out[strings.ToLower(k)] = v[len(v)-1]
		}
	}
	return out, nil
}

// PersonConfig is Config: the twin has no agent's shell to see through
// (refstore.Config).
func (s *Store) PersonConfig(ctx context.Context, keys ...string) (map[string]string, error) {
	return s.Config(ctx, keys...)
}

// ConfigValues returns every non-empty value of key (refstore.Config).
func (s *Store) ConfigValues(ctx context.Context, key string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for _, v := range s.config[canonicalKey(key)] {
		if v != "" {
			out = append(out, v)
		}
	}
	return out, nil
}

// Remotes lists the remotes that have a url, sorted (refstore.Config).
func (s *Store) Remotes(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var names []string
	for k := range s.config {
		if strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".url") {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(k, "remote."), ".url"))
		}
	}
	sort.Strings(names)
	return names, nil
}

// Seal stores records unsigned (refstore.Signer).
func (s *Store) Seal(ctx context.Context, data []byte) ([]byte, error) { return data, ctx.Err() }

// Verify says every record is unsigned (refstore.Signer).
func (s *Store) Verify(context.Context, string, string) sign.Result {
	return sign.Result{State: sign.Unverified, Reason: "the in-memory store does not sign"}
}

// Local is the clone's notes, in memory (refstore.Local).
func (s *Store) Local() refstore.Local {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.local == nil {
		s.local = NewLocal(fmt.Sprintf("/mem/store-%p/handoff", s))
	}
	return s.local
}

// Notes is an in-memory refstore.Local: a map of note names to bytes,
// and locks that are mutexes by name.
type Notes struct {
	root  string // what Path names them under: one clone's or worktree's
	mu    sync.Mutex
	notes map[string][]byte
	locks map[string]chan struct{}
}

// NewLocal returns empty notes whose Path names them under root.
func NewLocal(root string) *Notes {
	return &Notes{root: root, notes: map[string][]byte{}, locks: map[string]chan struct{}{}}
}

func cleanName(name string) (string, error) {
	c := path.Clean(name)
	if name == "" || c != name || strings.HasPrefix(c, "/") || c == "." || strings.HasPrefix(c, "../") || c == ".." {
		return "", fmt.Errorf("memstore: note name %q is not a clean relative path", name)
	}
	return c, nil
}

// Read returns a note (refstore.Local).
func (n *Notes) Read(name string) ([]byte, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	b, ok := n.notes[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), b...), nil
}

// Write replaces a note whole (refstore.Local).
func (n *Notes) Write(ctx context.Context, name string, data []byte) error {
	c, err := cleanName(name)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes[c] = append([]byte(nil), data...)
	return nil
}

// Remove deletes a note (refstore.Local).
func (n *Notes) Remove(name string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.notes, name)
	return nil
}

// List names the notes directly in dir (refstore.Local).
func (n *Notes) List(dir string) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []string
	for k := range n.notes {
		if rest, ok := strings.CutPrefix(k, prefix); ok && !strings.Contains(rest, "/") {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Lock holds the lock named name until the returned func runs
// (refstore.Local).
func (n *Notes) Lock(ctx context.Context, name string) (func(), error) {
	for {
		n.mu.Lock()
		held, busy := n.locks[name]
		if !busy {
			ch := make(chan struct{})
			n.locks[name] = ch
			n.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					n.mu.Lock()
					delete(n.locks, name)
					n.mu.Unlock()
					close(ch)
				})
			}, nil
		}
		n.mu.Unlock()
		select {
		case <-held:
		case <-ctx.Done():
			return nil, fmt.Errorf("locking %s: %w", name, ctx.Err())
		}
	}
}

// Snapshot copies every note: what survives a crash of the process that
// holds them (the simulation keeps a clone's notes across a crash).
func (n *Notes) Snapshot() map[string][]byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string][]byte, len(n.notes))
	for k, v := range n.notes {
		out[k] = append([]byte(nil), v...)
	}
	return out
}

// Rename moves a note (refstore.Local): fs.ErrNotExist when from is gone.
func (n *Notes) Rename(from, to string) error {
	c, err := cleanName(to)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	b, ok := n.notes[from]
	if !ok {
		return &fs.PathError{Op: "rename", Path: from, Err: fs.ErrNotExist}
	}
	delete(n.notes, from)
	n.notes[c] = b
	return nil
}

// Path names a note as if on disk, under the notes' own root (so that two
// clones' notes never share a name); the simulation hands it to no program.
func (n *Notes) Path(name string) string { return path.Join(n.root, name) }

// Signing says signing is off (refstore.Signer).
func (s *Store) Signing(context.Context) (sign.Config, error) { return sign.Config{}, nil }

// RemoteConfigs lists the remotes that have a url (refstore.Config).
func (s *Store) RemoteConfigs(ctx context.Context) ([]refstore.RemoteConfig, error) {
	names, err := s.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]refstore.RemoteConfig, 0, len(names))
	for _, n := range names {
		rc := refstore.RemoteConfig{Name: n, Fetch: append([]string(nil), s.config[canonicalKey("remote."+n+".fetch")]...)}
		if u := s.config[canonicalKey("remote."+n+".url")]; len(u) > 0 {
			rc.URL = u[0]
		}
		out = append(out, rc)
	}
	return out, nil
}

// SetConfig sets a single-valued key (refstore.Config).
func (s *Store) SetConfig(ctx context.Context, key, value string) error {
	s.Configure(key, value)
	return ctx.Err()
}

// AddConfig appends a value to a multi-valued key (refstore.Config).
func (s *Store) AddConfig(ctx context.Context, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.config == nil {
		s.config = map[string][]string{}
	}
	k := canonicalKey(key)
	s.config[k] = append(s.config[k], value)
	return ctx.Err()
}

// UnsetConfigValue removes every value of key equal to value
// (refstore.Config).
func (s *Store) UnsetConfigValue(ctx context.Context, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := canonicalKey(key)
	var keep []string
	for _, v := range s.config[k] {
		if v != value {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		delete(s.config, k)
	} else {
		s.config[k] = keep
	}
	return ctx.Err()
}
