package refstore

import (
	"path/filepath"
	"strings"
)

// localConfig is the repository's own config file, includes not followed:
// what the store decides about the repository itself (its format, its
// remotes, whether it is shared) is the repository's, never the user's.
// A command asks several times; the file is parsed again only when it
// changed on disk (a command may change it meanwhile: init does), through
// the process's cache of plain files (config.go).
type localConfig []configEntry

func (s *Store) localConfig() localConfig {
	_, entries, err := readPlainFile(filepath.Join(s.commonDir, "config"))
	if err != nil {
		// A file git could not parse either: git's commands will say why;
		// here it reads as empty, as a missing file does.
		return nil
	}
	return entries
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
