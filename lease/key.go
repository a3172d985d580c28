package lease

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// The kinds of key. A key is "<kind>:<value>"; its ref is
// refs/ao/leases/<kind>/<value as one encoded component>.
const (
	KindIssue = "issue"
	KindPR    = "pr"
	KindPath  = "path"
	KindKey   = "key"
)

// Key is a canonical lease key: one string per thing leased, so that two
// spellings of one issue ("#42", an issue URL) take one lease.
type Key struct {
	Kind  string
	Value string
}

func (k Key) String() string { return k.Kind + ":" + k.Value }

// ErrBadKey is a key that names nothing leasable.
var ErrBadKey = errors.New("bad lease key")

// ParseKey reads a key as a user writes it and returns its canonical form:
//
//	issue:42, issue:#42, issue:<issue URL>, issue:owner/repo#42 → issue:42
//	pr:17 and the same spellings (a pull request URL)          → pr:17
//	#42, owner/repo#42, an issue or pull request URL alone     → issue:42 / pr:17
//	path:<pathspec>                                            → path:<pathspec, cleaned>
//	key:<anything non-empty>                                   → key:<it>
//
// Issue and pull request keys lose the repository: leases live in one
// repository's refs, so they are that repository's issues.
func ParseKey(s string) (Key, error) {
	s = strings.TrimSpace(s)
	kind, val, ok := strings.Cut(s, ":")
	if ok && (kind == "http" || kind == "https") {
		// A bare URL: its path says which.
		n, k, err := fromURL(s)
		if err != nil {
			return Key{}, err
		}
		return Key{k, strconv.Itoa(n)}, nil
	}
	if !ok {
		if strings.Contains(s, "#") {
			n, err := number(s, KindIssue)
			if err != nil {
				return Key{}, err
			}
			return Key{KindIssue, strconv.Itoa(n)}, nil
		}
		return Key{}, fmt.Errorf("%w %q: want issue:N, pr:N, path:PATHSPEC or key:NAME", ErrBadKey, s)
	}
	var k Key
	switch kind {
	case KindIssue, KindPR:
		n, err := number(val, kind)
		if err != nil {
			return Key{}, err
		}
		k = Key{kind, strconv.Itoa(n)}
	case KindPath:
		p, err := cleanPathspec(val)
		if err != nil {
			return Key{}, err
		}
		k = Key{kind, p}
	case KindKey:
		if strings.TrimSpace(val) == "" {
			return Key{}, fmt.Errorf("%w %q: key: needs a name", ErrBadKey, s)
		}
		k = Key{kind, val}
	default:
		return Key{}, fmt.Errorf("%w %q: unknown kind %q (issue, pr, path or key)", ErrBadKey, s, kind)
	}
	if _, err := k.Ref(); err != nil {
		return Key{}, fmt.Errorf("%w %q: %v", ErrBadKey, s, err)
	}
	return k, nil
}

// number reads "42", "#42", "owner/repo#42" or a URL of kind's page.
func number(v, kind string) (int, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		n, k, err := fromURL(v)
		if err != nil {
			return 0, err
		}
		if k != kind {
			return 0, fmt.Errorf("%w %q: a %s URL given for a %s key", ErrBadKey, v, k, kind)
		}
		return n, nil
	}
	if repo, num, ok := strings.Cut(v, "#"); ok {
		if repo != "" {
			owner, name, ok := strings.Cut(repo, "/")
			if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
				return 0, fmt.Errorf("%w %q: want OWNER/REPO#N", ErrBadKey, v)
			}
		}
		v = num
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || strings.HasPrefix(v, "+") || strings.HasPrefix(v, "0") {
		return 0, fmt.Errorf("%w %q: want a %s number", ErrBadKey, v, kind)
	}
	return n, nil
}

// fromURL reads https://host/owner/repo/issues/N or .../pull/N (anything
// after N, such as #issuecomment-1 or /files, is ignored).
func fromURL(s string) (int, string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return 0, "", fmt.Errorf("%w %q: not a URL", ErrBadKey, s)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[0] == "" || parts[1] == "" {
		return 0, "", fmt.Errorf("%w %q: want https://HOST/OWNER/REPO/issues/N or /pull/N", ErrBadKey, s)
	}
	var kind string
	switch parts[2] {
	case "issues":
		kind = KindIssue
	case "pull", "pulls":
		kind = KindPR
	default:
		return 0, "", fmt.Errorf("%w %q: want https://HOST/OWNER/REPO/issues/N or /pull/N", ErrBadKey, s)
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 || strings.HasPrefix(parts[3], "0") {
		return 0, "", fmt.Errorf("%w %q: %q is not a number", ErrBadKey, s, parts[3])
	}
	return n, kind, nil
}

// cleanPathspec canonicalizes a pathspec relative to the top of the
// worktree: "./" and "." components and repeated slashes go (git's
// pathspec code normalizes them the same way); a trailing slash stays,
// since "src/" matches no file named src and "src" does. Magic (":(glob)",
// ":!x"), absolute paths, ".." and a pattern that can match no file are
// refused: a lease must say plainly what it covers.
func cleanPathspec(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: path: needs a pathspec", ErrBadKey)
	}
	if strings.HasPrefix(p, ":") {
		return "", fmt.Errorf("%w %q: pathspec magic is not supported in a lease; write the pattern plainly", ErrBadKey, p)
	}
	if strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%w %q: a pathspec here is relative to the top of the worktree", ErrBadKey, p)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w %q: a NUL byte", ErrBadKey, p)
	}
	trailing := strings.HasSuffix(p, "/")
	var kept []string
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			return "", fmt.Errorf("%w %q: \"..\" leaves the worktree", ErrBadKey, p)
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		return "", fmt.Errorf("%w %q: names the whole worktree; use path:* for that", ErrBadKey, p)
	}
	out := strings.Join(kept, "/")
	if trailing {
		out += "/"
	}
	if _, err := Compile(out); err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrBadKey, p, err)
	}
	return out, nil
}

// Ref is where the key's lease is kept.
func (k Key) Ref() (string, error) {
	switch k.Kind {
	case KindIssue, KindPR, KindPath, KindKey:
	default:
		return "", fmt.Errorf("%w: kind %q", refstore.ErrBadName, k.Kind)
	}
	enc, err := refstore.EncodeComponent(k.Value)
	if err != nil {
		return "", err
	}
	return Prefix + k.Kind + "/" + enc, nil
}

// KeyOfRef reads the key a lease ref names.
func KeyOfRef(ref string) (Key, error) {
	parts, err := refstore.SplitRef(ref, Prefix, 2)
	if err != nil {
		return Key{}, err
	}
	return Key{parts[0], parts[1]}, nil
}
