package refstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// The configuration is read in process: a `git config` process per command
// cost more than all the rest of `start`. The reader follows git's own
// rules (config.c) — the files in git's order, its syntax and case rules,
// include.path and includeIf — and gives up on anything it does not
// understand (errConfigUnknown), where Config asks git instead. What git
// itself would reject (a bad line, a bad -c) is given up on the same way,
// so that git's error is the one the user sees.

// errConfigUnknown is a configuration the in-process reader cannot answer
// as git would: hasconfig: conditions, %(prefix) paths, syntax errors.
var errConfigUnknown = errors.New("configuration not understood in process")

// maxIncludeDepth is git's MAX_INCLUDE_DEPTH.
const maxIncludeDepth = 10

// configEntry is one variable as git's callbacks see it: the canonical
// name (section and key lower case, subsection as written) and the value;
// noValue is a key with no "=" (an implicit true).
type configEntry struct {
	name    string
	value   string
	noValue bool
}

// configDirs are the git dirs a configuration is read for: this
// worktree's (includeIf "gitdir:" and "onbranch:", config.worktree), also
// as git's setup gave it when that is not its real path (Layout), and the
// common one.
type configDirs struct {
	gitDir, givenGitDir, commonDir string
}

// configReader collects the entries of every file git would read.
type configReader struct {
	gitDir      string // this worktree's git dir: includeIf gitdir: and onbranch:
	givenGitDir string // the same before its real path, when it differs
	getenv      func(string) (string, bool)
	entries     []configEntry
	depth       int
	includes    bool
	headCache   *string
	// read is every file whose contents (or absence) the entries depend
	// on, stamped before it was read, and env every variable looked up,
	// for configCache to check.
	read []configFileStat
	env  []envLookup
}

// readConfig returns every configuration entry git would see in a
// repository with these git dirs, in git's order (later wins). A process
// asks for it several times (the identity, the signing keys, the reflog's
// ident, the hooks directory), and a reading parses every file: the last
// reading for these git dirs is kept, and read again only when a file it
// came from (or looked for and did not find) changed on disk, or a
// variable of the environment it looked at changed.
func readConfig(dirs configDirs) ([]configEntry, error) {
	v, _ := configCaches.LoadOrStore(dirs, &configCache{})
	c := v.(*configCache)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.current() {
		return c.entries, nil
	}
	// Each file is stamped before it is read, and each variable as it is
	// looked up: a change made while we read shows next time.
	r := &configReader{gitDir: dirs.gitDir, givenGitDir: dirs.givenGitDir, includes: true}
	r.getenv = func(k string) (string, bool) {
		v, ok := os.LookupEnv(k)
		r.env = append(r.env, envLookup{k, v, ok})
		return v, ok
	}
	if err := r.all(dirs.commonDir); err != nil {
		c.ok = false
		return nil, err
	}
	c.entries, c.stamps, c.env, c.ok = r.entries, r.read, r.env, true
	return c.entries, nil
}

// configCaches holds a configCache per configDirs.
var configCaches sync.Map

// configCache is the last reading of a repository's configuration and
// what it depended on.
type configCache struct {
	mu      sync.Mutex
	ok      bool
	entries []configEntry
	stamps  []configFileStat
	env     []envLookup
}

// envLookup is one variable the reader looked up, and what it found.
type envLookup struct {
	name, value string
	ok          bool
}

func (c *configCache) current() bool {
	for _, e := range c.env {
		if v, ok := os.LookupEnv(e.name); v != e.value || ok != e.ok {
			return false
		}
	}
	for _, st := range c.stamps {
		if !st.current() {
			return false
		}
	}
	return true
}

// configFileStat is what a file was when it was read: absent, or its identity,
// size and modification time.
type configFileStat struct {
	path string
	info fs.FileInfo // nil: it was not there
}

func statConfigFile(path string) configFileStat {
	fi, err := os.Stat(path)
	if err != nil {
		return configFileStat{path: path}
	}
	return configFileStat{path: path, info: fi}
}

func (f configFileStat) current() bool {
	now := statConfigFile(f.path)
	if f.info == nil || now.info == nil {
		return f.info == nil && now.info == nil
	}
	return os.SameFile(f.info, now.info) && f.info.Size() == now.info.Size() && f.info.ModTime().Equal(now.info.ModTime())
}

func (r *configReader) all(commonDir string) error {
	env := func(k string) string { v, _ := r.getenv(k); return v }
	// System, unless GIT_CONFIG_NOSYSTEM says not to.
	noSystem := false
	if v, ok := r.getenv("GIT_CONFIG_NOSYSTEM"); ok {
		b, err := parseBool(v)
		if err != nil {
			return errConfigUnknown
		}
		noSystem = b
	}
	if !noSystem {
		path, ok := r.getenv("GIT_CONFIG_SYSTEM")
		if !ok {
			// Where git built with prefix /usr (every distribution's)
			// looks; a git built elsewhere would look elsewhere.
			path = "/etc/gitconfig"
		}
		if err := r.file(path); err != nil {
			return err
		}
	}
	// Global: GIT_CONFIG_GLOBAL replaces both the XDG file and ~/.gitconfig.
	if path, ok := r.getenv("GIT_CONFIG_GLOBAL"); ok {
		if err := r.file(path); err != nil {
			return err
		}
	} else {
		home := env("HOME")
		xdg := env("XDG_CONFIG_HOME")
		switch {
		case xdg != "":
			if err := r.file(filepath.Join(xdg, "git", "config")); err != nil {
				return err
			}
		case home != "":
			if err := r.file(filepath.Join(home, ".config", "git", "config")); err != nil {
				return err
			}
		}
		if home != "" {
			if err := r.file(filepath.Join(home, ".gitconfig")); err != nil {
				return err
			}
		}
	}
	if commonDir != "" {
		local := filepath.Join(commonDir, "config")
		if err := r.file(local); err != nil {
			return err
		}
		// config.worktree counts only where the repository format says
		// so, read from the common config alone as git reads it.
		if r.gitDir != "" && worktreeConfigOn(local) {
			if err := r.file(filepath.Join(r.gitDir, "config.worktree")); err != nil {
				return err
			}
		}
	}
	return r.parameters()
}

// worktreeConfigOn reports extensions.worktreeConfig in the file at path.
func worktreeConfigOn(path string) bool {
	vals, err := fileValues(path, "extensions.worktreeconfig")
	if err != nil || len(vals) == 0 {
		return false
	}
	last := vals[len(vals)-1]
	if last.noValue {
		return true
	}
	b, err := parseBool(last.value)
	return err == nil && b
}

// fileValues returns the entries for name in one file, includes not
// followed (as `git config --file` and the repository-format check read).
func fileValues(path, name string) ([]configEntry, error) {
	_, entries, err := readPlainFile(path)
	if err != nil {
		return nil, err
	}
	var out []configEntry
	for _, e := range entries {
		if e.name == name {
			out = append(out, e)
		}
	}
	return out, nil
}

// plainFiles holds, by path, each configuration file read without its
// includes, parsed once for the process and again only when the file's
// stamp moves: finding the layout, the Store's own settings and the hooks
// directory all look into .git/config, and each read it whole, seven
// times in one start.
var plainFiles sync.Map

type plainFile struct {
	mu      sync.Mutex
	ok      bool
	stamp   configFileStat
	entries []configEntry // shared: never changed once read
	err     error
}

// readPlainFile returns the file at path, includes not followed, and the
// stamp it was read at. What it returns is shared: callers do not change it.
func readPlainFile(path string) (configFileStat, []configEntry, error) {
	v, _ := plainFiles.LoadOrStore(path, &plainFile{})
	p := v.(*plainFile)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ok && p.stamp.current() {
		return p.stamp, p.entries, p.err
	}
	r := &configReader{getenv: os.LookupEnv}
	err := r.file(path)
	p.ok, p.stamp, p.entries, p.err = true, r.read[0], r.entries, err
	return p.stamp, p.entries, err
}

// file reads one configuration file; one that does not exist (or is not
// readable, as git's ACCESS_EACCES_OK lets it be) is skipped.
func (r *configReader) file(path string) error {
	if path == "" {
		return nil
	}
	r.read = append(r.read, statConfigFile(path))
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) || isNotDir(err) {
			return nil
		}
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return r.parse(b, path)
}

func isNotDir(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// configScanner hands out bytes as git's get_next_char does: CRLF is one
// newline, and the end of the data reads as a newline with eof set.
type configScanner struct {
	b   []byte
	i   int
	eof bool
}

func (s *configScanner) next() byte {
	if s.i >= len(s.b) {
		s.eof = true
		return '\n'
	}
	c := s.b[s.i]
	s.i++
	if c == '\r' && s.i < len(s.b) && s.b[s.i] == '\n' {
		s.i++
		return '\n'
	}
	return c
}

// isSpace is git's isspace (sane_ctype): space, tab, newline and carriage
// return only; a form feed is not white space to git.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
func isAlpha(c byte) bool   { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool   { return isAlpha(c) || c >= '0' && c <= '9' }
func isKeyChar(c byte) bool { return isAlnum(c) || c == '-' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// parse reads one file's text (path "" for text not from a file).
func (r *configReader) parse(b []byte, path string) error {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	s := &configScanner{b: b}
	var name []byte
	base := 0 // length of "section[.sub]." in name (git takes a key before any section as it is)
	comment := false
	for {
		c := s.next()
		if c == '\n' {
			if s.eof {
				return nil
			}
			comment = false
			continue
		}
		if comment || isSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			name = name[:0]
			var ok bool
			if name, ok = sectionHeader(s, name); !ok || len(name) == 0 {
				return errConfigUnknown
			}
			name = append(name, '.')
			base = len(name)
			continue
		}
		if !isAlpha(c) {
			return errConfigUnknown
		}
		name = append(name[:base], lower(c))
		for {
			c = s.next()
			if s.eof || !isKeyChar(c) {
				break
			}
			name = append(name, lower(c))
		}
		for c == ' ' || c == '\t' {
			c = s.next()
		}
		e := configEntry{name: string(name), noValue: true}
		if c != '\n' {
			if c != '=' {
				return errConfigUnknown
			}
			v, ok := parseValue(s)
			if !ok {
				return errConfigUnknown
			}
			e.value, e.noValue = v, false
		}
		if err := r.add(e, path); err != nil {
			return err
		}
	}
}

// sectionHeader reads what follows "[": "name]", "name.sub]" (the old
// form, all lower case) or `name "sub"]` (the subsection as written).
func sectionHeader(s *configScanner, name []byte) ([]byte, bool) {
	for {
		c := s.next()
		if s.eof {
			return name, false
		}
		if c == ']' {
			return name, true
		}
		if isSpace(c) {
			for isSpace(c) {
				if c == '\n' {
					return name, false
				}
				c = s.next()
			}
			if c != '"' {
				return name, false
			}
			name = append(name, '.')
			for {
				c = s.next()
				if c == '\n' {
					return name, false
				}
				if c == '"' {
					break
				}
				if c == '\\' {
					c = s.next()
					if c == '\n' {
						return name, false
					}
				}
				name = append(name, c)
			}
			return name, s.next() == ']'
		}
		if !isKeyChar(c) && c != '.' {
			return name, false
		}
		name = append(name, lower(c))
	}
}

// parseValue reads a value after "=" as git's parse_value: whitespace
// outside quotes is kept one space per character between words and dropped
// at either end, comments end it, quotes group, and \t \n \b \\ \" and a
// backslash-newline are the only escapes.
func parseValue(s *configScanner) (string, bool) {
	var v []byte
	quote, comment := false, false
	space := 0
	for {
		c := s.next()
		if c == '\n' {
			if quote {
				return "", false
			}
			return string(v), true
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(v) > 0 {
				space++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; space > 0; space-- {
			v = append(v, ' ')
		}
		if c == '\\' {
			c = s.next()
			switch c {
			case '\n':
				continue // a continuation line (or a backslash at the very end)
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			v = append(v, c)
			continue
		}
		if c == '"' {
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

// add records e and follows it when it is an include (after recording it,
// as git lists include.path among the variables).
func (r *configReader) add(e configEntry, path string) error {
	r.entries = append(r.entries, e)
	if !r.includes {
		return nil
	}
	if e.name == "include.path" {
		return r.include(e, path)
	}
	rest, ok := strings.CutPrefix(e.name, "includeif.")
	if !ok {
		return nil
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 || rest[dot+1:] != "path" {
		return nil
	}
	match, err := r.condition(rest[:dot], path)
	if err != nil || !match {
		return err
	}
	return r.include(e, path)
}

func (r *configReader) include(e configEntry, from string) error {
	if e.noValue {
		return errConfigUnknown // git: "missing value for include.path"
	}
	p, err := expandPath(e.value, r.getenv)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(p) {
		if from == "" {
			return errConfigUnknown // relative includes must come from files
		}
		p = filepath.Join(filepath.Dir(from), p)
	}
	r.read = append(r.read, statConfigFile(p)) // a missing include may appear later
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) || isNotDir(err) {
			return nil
		}
		return errConfigUnknown
	}
	r.depth++
	if r.depth > maxIncludeDepth {
		return errConfigUnknown
	}
	err = r.file(p)
	r.depth--
	return err
}

// condition evaluates an includeIf condition; conditions git does not know
// are false, as in git, and hasconfig: (which needs the whole
// configuration first) is left to git.
func (r *configReader) condition(cond, from string) (bool, error) {
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return r.byGitDir(cond[len("gitdir:"):], from, false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return r.byGitDir(cond[len("gitdir/i:"):], from, true)
	case strings.HasPrefix(cond, "onbranch:"):
		return r.byBranch(cond[len("onbranch:"):]), nil
	case strings.HasPrefix(cond, "hasconfig:"):
		return false, errConfigUnknown
	}
	return false, nil
}

// byGitDir matches the git dir against pat as include_by_gitdir does: ~
// expanded, "./" the including file's directory, a relative pattern
// anywhere ("**/" before it), a trailing "/" everything below; tried on
// the real path, then on the path as git's setup gave it.
func (r *configReader) byGitDir(pat, from string, fold bool) (bool, error) {
	if r.gitDir == "" {
		return false, nil
	}
	p, err := expandPath(pat, r.getenv)
	if err != nil {
		return false, err
	}
	prefix := 0
	if len(p) >= 2 && p[0] == '.' && p[1] == '/' {
		if from == "" {
			return false, errConfigUnknown
		}
		dir := from
		if real, err := filepath.EvalSymlinks(from); err == nil {
			dir = real
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		dir = filepath.Dir(dir)
		p = dir + p[1:]
		prefix = len(dir) + 1
	} else if !filepath.IsAbs(p) {
		p = "**/" + p
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	try := func(text string) bool {
		if prefix > 0 {
			if len(text) < prefix {
				return false
			}
			a, b := p[:prefix], text[:prefix]
			if fold {
				if !strings.EqualFold(a, b) {
					return false
				}
			} else if a != b {
				return false
			}
		}
		return wildmatch(p[prefix:], text[prefix:], fold)
	}
	real := r.gitDir
	if rp, err := filepath.EvalSymlinks(r.gitDir); err == nil {
		real = rp
	}
	if try(real) {
		return true, nil
	}
	return r.givenGitDir != "" && try(r.givenGitDir), nil
}

// byBranch matches the branch HEAD names (unborn or not) against pat.
func (r *configReader) byBranch(pat string) bool {
	if r.gitDir == "" {
		return false
	}
	if r.headCache == nil {
		head := ""
		r.read = append(r.read, statConfigFile(filepath.Join(r.gitDir, "HEAD")))
		if b, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD")); err == nil {
			if t, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:"); ok {
				head = strings.TrimSpace(t)
			}
		}
		r.headCache = &head
	}
	short, ok := strings.CutPrefix(*r.headCache, "refs/heads/")
	if !ok {
		return false
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	return wildmatch(pat, short, false)
}

// expandPath expands a leading ~ or ~user as git's interpolate_path does;
// %(prefix)/ (git's install prefix) is left to git.
func expandPath(p string, getenv func(string) (string, bool)) (string, error) {
	if strings.HasPrefix(p, "%(prefix)/") {
		return "", errConfigUnknown
	}
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var home string
	if name == "" {
		h, ok := getenv("HOME")
		if !ok || h == "" {
			return "", errConfigUnknown
		}
		home = h
	} else {
		u, err := user.Lookup(name)
		if err != nil {
			return "", errConfigUnknown
		}
		home = u.HomeDir
	}
	if rest == "" && !strings.Contains(p, "/") {
		return home, nil
	}
	return strings.TrimSuffix(home, "/") + "/" + rest, nil
}

// parameters adds what `git -c` and GIT_CONFIG_COUNT give, in git's order:
// the numbered variables, then GIT_CONFIG_PARAMETERS.
func (r *configReader) parameters() error {
	if v, ok := r.getenv("GIT_CONFIG_COUNT"); ok {
		n := 0
		if v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 0 {
				return errConfigUnknown
			}
		}
		for i := 0; i < n; i++ {
			k, ok1 := r.getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			val, ok2 := r.getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
			if !ok1 || !ok2 {
				return errConfigUnknown
			}
			if err := r.pair(k, val, false); err != nil {
				return err
			}
		}
	}
	v, ok := r.getenv("GIT_CONFIG_PARAMETERS")
	if !ok {
		return nil
	}
	for {
		v = strings.TrimLeft(v, " \t\n")
		if v == "" {
			return nil
		}
		key, rest, ok := sqDequote(v)
		if !ok {
			return errConfigUnknown
		}
		switch {
		case rest == "" || isSpace(rest[0]):
			// The old form, 'key=value' (no "=": an implicit true).
			k, val, has := strings.Cut(key, "=")
			k = strings.TrimSpace(k)
			if k == "" {
				return errConfigUnknown
			}
			if err := r.pair(k, val, !has); err != nil {
				return err
			}
		case rest[0] == '=':
			rest = rest[1:]
			var val string
			noValue := false
			switch {
			case rest != "" && rest[0] == '\'':
				if val, rest, ok = sqDequote(rest); !ok || rest != "" && !isSpace(rest[0]) {
					return errConfigUnknown
				}
			case rest == "" || isSpace(rest[0]):
				noValue = true
			default:
				return errConfigUnknown
			}
			if err := r.pair(key, val, noValue); err != nil {
				return err
			}
		default:
			return errConfigUnknown
		}
		v = rest
	}
}

// pair adds a variable given on the command line, its name made canonical.
func (r *configReader) pair(key, val string, noValue bool) error {
	name, ok := canonicalKey(key)
	if !ok {
		return errConfigUnknown
	}
	return r.add(configEntry{name: name, value: val, noValue: noValue}, "")
}

// sqDequote reads one single-quoted word as git's sq_dequote_step: a
// backslash and a quote (or "!") between two quoted parts stand for
// that character.
func sqDequote(s string) (word, rest string, ok bool) {
	if s == "" || s[0] != '\'' {
		return "", "", false
	}
	var out []byte
	i := 1
	for {
		if i >= len(s) {
			return "", "", false
		}
		c := s[i]
		i++
		if c != '\'' {
			out = append(out, c)
			continue
		}
		if i+2 < len(s) && s[i] == '\\' && (s[i+1] == '\'' || s[i+1] == '!') && s[i+2] == '\'' {
			out = append(out, s[i+1])
			i += 3
			continue
		}
		return string(out), s[i:], true
	}
}

// canonicalKey makes "Section.Sub.Key" canonical as git_config_parse_key:
// section and key lower case, the subsection as given; false when git
// would reject the name.
func canonicalKey(key string) (string, bool) {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 {
		return "", false
	}
	b := []byte(key)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\n' {
			return "", false
		}
		if i > first && i < last {
			continue // the subsection: anything but a newline, case kept
		}
		if c == '.' && (i == first || i == last) {
			continue
		}
		if !isKeyChar(c) || i == last+1 && !isAlpha(c) {
			return "", false
		}
		b[i] = lower(c)
	}
	return string(b), true
}

// parseBool reads a boolean as git_parse_maybe_bool does (an integer is
// true unless zero).
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off", "":
		return false, nil
	}
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil {
		return false, fmt.Errorf("bad boolean %q", v)
	}
	return n != 0, nil
}

// configLookup returns the last value of each key (canonical names) in
// entries, missing keys omitted; the map is keyed by the lower-cased name,
// as callers of Config look values up.
func configLookup(entries []configEntry, keys []string) map[string]string {
	want := make(map[string]string, len(keys))
	for _, k := range keys {
		if c, ok := canonicalKey(k); ok {
			want[c] = strings.ToLower(k)
		}
	}
	vals := map[string]string{}
	for _, e := range entries {
		if out, ok := want[e.name]; ok {
			vals[out] = e.value
		}
	}
	return vals
}

// Config returns the values the configuration has for keys (the last of
// each, after includes and environment overrides), missing keys omitted; a
// key given without a value reads as "". It is read in process as git
// reads it; a configuration the reader does not understand is asked of
// git.
func (s *Store) Config(ctx context.Context, keys ...string) (map[string]string, error) {
	entries, err := readConfig(s.layout.configDirs())
	if err != nil {
		return s.configCLI(ctx, keys...)
	}
	return configLookup(entries, keys), nil
}

// configCLI is Config through `git config`.
func (s *Store) configCLI(ctx context.Context, keys ...string) (map[string]string, error) {
	pat := make([]string, len(keys))
	for i, k := range keys {
		if c, ok := canonicalKey(k); ok {
			k = c
		}
		pat[i] = regexpQuote(k)
	}
	out, err := Git(ctx, s.startDir, false, nil, "config", "-z", "--get-regexp", "^("+strings.Join(pat, "|")+")$")
	if err != nil && !noSuchKey(err) {
		return nil, err
	}
	vals := map[string]string{}
	for _, kv := range bytes.Split(out, []byte{0}) {
		k, v, _ := bytes.Cut(kv, []byte{'\n'})
		if len(k) > 0 {
			vals[strings.ToLower(string(k))] = string(v)
		}
	}
	return vals, nil
}

// regexpQuote escapes what an extended regular expression gives meaning.
func regexpQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ConfigValues returns every value of a multi-valued key in the
// repository's own config file (not the user's, includes not followed, as
// `git config --local` reads it), in order.
func (s *Store) ConfigValues(ctx context.Context, key string) ([]string, error) {
	name, ok := canonicalKey(key)
	if !ok {
		return s.configValuesCLI(ctx, key)
	}
	entries, err := fileValues(filepath.Join(s.commonDir, "config"), name)
	if err != nil {
		return s.configValuesCLI(ctx, key)
	}
	var vals []string
	for _, e := range entries {
		if e.value != "" {
			vals = append(vals, e.value)
		}
	}
	return vals, nil
}

func (s *Store) configValuesCLI(ctx context.Context, key string) ([]string, error) {
	out, err := Git(ctx, s.workDir, false, nil, "config", "--local", "-z", "--get-all", key)
	if err != nil {
		if noSuchKey(err) {
			return nil, nil
		}
		return nil, err
	}
	var vals []string
	for _, v := range bytes.Split(out, []byte{0}) {
		if len(v) > 0 {
			vals = append(vals, string(v))
		}
	}
	return vals, nil
}
