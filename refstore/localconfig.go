package refstore

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// localConfig is the repository's own config file, includes not followed:
// what the store decides about the repository itself (its format, its
// remotes, whether it is shared) is the repository's, never the user's.
// A command asks several times; the file is parsed again only when it
// changed on disk (a command may change it meanwhile: init does).
type localConfig []configEntry

// localCache is the last parse of the file and the stat it was made from.
type localCache struct {
	mu      sync.Mutex
	ok      bool
	stat    configFileStat // config.go: taken before the file was read
	entries localConfig
}

func (s *Store) localConfig() localConfig {
	c := &s.local
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.stat.current() {
		return c.entries
	}
	r := &configReader{gitDir: s.gitDir, getenv: os.LookupEnv}
	if err := r.file(filepath.Join(s.commonDir, "config")); err != nil {
		// A file git could not parse either: git's commands will say why;
		// here it reads as empty, as a missing file does.
		c.ok, c.entries = false, nil
		return nil
	}
	c.ok, c.stat, c.entries = true, r.read[0], r.entries
	return c.entries
}

// get returns the last value of name (a canonical name: section and key
// lower case).
func (c localConfig) get(name string) string {
	v := ""
	for _, e := range c {
		if e.name == name {
			v = e.value
		}
	}
	return v
}

// subsections lists section's subsections in the order they first appear.
func (c localConfig) subsections(section string) []string {
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

// values returns every value of name, in file order.
func (c localConfig) values(name string) []string {
	var out []string
	for _, e := range c {
		if e.name == name {
			out = append(out, e.value)
		}
	}
	return out
}
