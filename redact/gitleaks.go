package redact

import (
	"fmt"
	"strings"

	gitleaks "github.com/zricethezav/gitleaks/v8/config"
)

// The rules come from gitleaks' default configuration, the gitleaks.toml
// its maintainers generate and its config package embeds: each rule's id,
// regex, secretGroup, entropy threshold, keywords and allowlists, read
// here as gitleaks reads them. Only the package's text is used, not its
// loader: that one compiles every regex up front (about 220 of them), and
// a note of one line needs none or two.

// gitleaksRules reads the rules and the global allowlist of a gitleaks
// configuration (src: gitleaks.toml's text). Rules that gitleaks applies
// only to files of a given path are left out: the texts redacted here have
// no path, and gitleaks finds nothing with such a rule in a text without
// one.
func gitleaksRules(src string) ([]*rule, []*allowlist, error) {
	entries, err := readTOML(src)
	if err != nil {
		return nil, nil, err
	}
	var (
		rules  []*rule
		global []*allowlist
		cur    *rule
		curAl  *allowlist
		// pathOnly: the rule being read has a path, so it is dropped.
		pathOnly = map[*rule]bool{}
	)
	for _, e := range entries {
		switch e.table {
		case "":
			switch e.key {
			case "title", "description", "minVersion", "":
			default:
				return nil, nil, fmt.Errorf("gitleaks config line %d: unknown top-level key %q", e.line, e.key)
			}
		case "allowlist", "allowlists":
			if e.newTable && (e.table == "allowlists" || len(global) == 0) {
				curAl = &allowlist{}
				global = append(global, curAl)
			}
			if e.key == "targetRules" {
				return nil, nil, fmt.Errorf("gitleaks config line %d: a global allowlist with targetRules, which this reader does not take", e.line)
			}
			if err := curAl.set(e); err != nil {
				return nil, nil, err
			}
		case "rules":
			if e.newTable {
				cur = &rule{}
				rules = append(rules, cur)
				curAl = nil
			}
			if err := cur.set(e); err != nil {
				return nil, nil, err
			}
			if e.key == "path" {
				pathOnly[cur] = true
			}
		case "rules.allowlists", "rules.allowlist":
			if cur == nil {
				return nil, nil, fmt.Errorf("gitleaks config line %d: an allowlist before any rule", e.line)
			}
			if e.newTable {
				curAl = &allowlist{}
				cur.allow = append(cur.allow, curAl)
			}
			if err := curAl.set(e); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("gitleaks config line %d: unknown table [%s]", e.line, e.table)
		}
	}
	var out []*rule
	for _, r := range rules {
		if r.id == "" {
			return nil, nil, fmt.Errorf("gitleaks config: a rule without an id")
		}
		if pathOnly[r] || r.source == "" {
			continue
		}
		out = append(out, r)
	}
	return out, global, nil
}

func (r *rule) set(e tomlEntry) error {
	var err error
	switch e.key {
	case "":
	case "id":
		r.id, err = str(e)
	case "description":
		r.description, err = str(e)
	case "regex":
		r.source, err = str(e)
	case "path":
		_, err = str(e)
	case "secretGroup":
		n, ok := e.value.(int64)
		if !ok || n < 0 {
			return fmt.Errorf("gitleaks config line %d: secretGroup %v is not a count", e.line, e.value)
		}
		r.secretGroup = int(n)
	case "entropy":
		switch v := e.value.(type) {
		case int64:
			r.entropy = float64(v)
		case float64:
			r.entropy = v
		default:
			return fmt.Errorf("gitleaks config line %d: entropy %v is not a number", e.line, e.value)
		}
	case "keywords":
		var kw []string
		kw, err = strs(e)
		for _, k := range kw {
			r.keywords = append(r.keywords, strings.ToLower(k))
		}
	case "tags":
		_, err = strs(e)
	default:
		return fmt.Errorf("gitleaks config line %d: rule key %q, which this reader does not take", e.line, e.key)
	}
	return err
}

func (a *allowlist) set(e tomlEntry) error {
	var err error
	switch e.key {
	case "", "description":
	case "condition":
		var c string
		c, err = str(e)
		switch strings.ToUpper(c) {
		case "AND", "&&":
			a.and = true
		case "", "OR", "||":
		default:
			return fmt.Errorf("gitleaks config line %d: allowlist condition %q", e.line, c)
		}
	case "regexTarget":
		a.target, err = str(e)
		switch a.target {
		case "secret":
			a.target = ""
		case "match", "line", "":
		default:
			return fmt.Errorf("gitleaks config line %d: allowlist regexTarget %q", e.line, a.target)
		}
	case "regexes":
		a.regexes, err = strs(e)
	case "stopwords":
		var sw []string
		sw, err = strs(e)
		for _, w := range sw {
			a.stopwords = append(a.stopwords, strings.ToLower(w))
		}
	case "paths", "commits":
		// What a text without a path or commit can never satisfy: under
		// AND the allowlist then allows nothing; under OR gitleaks looks
		// at paths and commits apart from the finding, so they are moot.
		var l []string
		l, err = strs(e)
		if len(l) > 0 {
			a.needsPathOrCommit = true
		}
	default:
		return fmt.Errorf("gitleaks config line %d: allowlist key %q, which this reader does not take", e.line, e.key)
	}
	return err
}

func str(e tomlEntry) (string, error) {
	s, ok := e.value.(string)
	if !ok {
		return "", fmt.Errorf("gitleaks config line %d: %s is not a string", e.line, e.key)
	}
	return s, nil
}

func strs(e tomlEntry) ([]string, error) {
	l, ok := e.value.([]string)
	if !ok {
		return nil, fmt.Errorf("gitleaks config line %d: %s is not an array of strings", e.line, e.key)
	}
	return l, nil
}

// defaultGitleaksConfig is the configuration the rules come from.
func defaultGitleaksConfig() string { return gitleaks.DefaultConfig }
