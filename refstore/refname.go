package refstore

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The kinds of record we own, one prefix each. refs/ao/preserved/ belongs to
// another tool and is deliberately absent: nothing here lists or pushes it.
const (
	Root            = "refs/ao/"
	HandoffsPrefix  = "refs/ao/handoffs/"
	PrivatePrefix   = "refs/ao/handoffs/private/"
	SharedPrefix    = "refs/ao/handoffs/shared/"
	ObjectivePrefix = "refs/ao/objectives/"
	SessionPrefix   = "refs/ao/sessions/"
	PRPrefix        = "refs/ao/prs/"
	LeasePrefix     = "refs/ao/leases/"
	RemotesPrefix   = "refs/ao/remotes/"
	// ArchivePrefix holds one ref per month, refs/ao/archive/<YYYY-MM>,
	// naming the TreeCommit of a tree (an older release's month, the tree
	// itself) of the records retired that month (package archive). Not in
	// Kinds: its refs are not records, and sync joins them as trees.
	ArchivePrefix = "refs/ao/archive/"
	// LostPrefix holds, at a remote, refs/ao/lost/<object id>: a clone
	// found a ref there naming that object, which the remote lost (its gc
	// raced a push), and could not push it back; a clone that holds it
	// does, then deletes the mark (teamsync/lost.go). The ref names an
	// empty blob. Never fetched.
	LostPrefix = "refs/ao/lost/"
	// WorktreeSession is this worktree's binding: a symbolic ref to
	// refs/ao/sessions/<id>, per worktree and never pushed.
	WorktreeSession = "refs/worktree/ao/session"
)

// Kinds are the record prefixes that travel between clones, in the order
// sync handles them.
var Kinds = []string{HandoffsPrefix, ObjectivePrefix, SessionPrefix, PRPrefix, LeasePrefix}

// maxComponent keeps an encoded component within a file name: 255 bytes on
// common file systems, less the ".lock" git appends while it writes.
const maxComponent = 240

// ErrBadName is returned for names that cannot become a ref component, and
// by every store for a ref, listing prefix or update it refuses before
// reading or writing (CheckRef, CheckPrefix, CheckUpdates).
var ErrBadName = errors.New("bad name")

// EncodeComponent turns any non-empty string into exactly one ref component
// that git accepts, such that DecodeComponent gives the string back. Bytes git
// forbids, and those that would end or start a component badly, become %XX.
func EncodeComponent(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: empty name", ErrBadName)
	}
	out := s
	if i := plainPrefix(s); i < len(s) {
		out = encodeFrom(s, i)
	}
	if len(out) > maxComponent {
		return "", fmt.Errorf("%w: %q is too long (%d bytes encoded, at most %d)", ErrBadName, truncate(s, 40), len(out), maxComponent)
	}
	return out, nil
}

// plainPrefix is the length of the start of s that encodes as itself: all
// of an ordinary id, which then costs no copy (a listing encodes every
// record's id to check it names its ref).
func plainPrefix(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return i
			}
			i += size
			continue
		}
		if mustEscape(s, i) {
			return i
		}
		i++
	}
	return i
}

// encodeFrom is EncodeComponent's encoding of s, whose first i bytes
// encode as themselves.
func encodeFrom(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				writeEscape(&b, c) // invalid UTF-8 would not survive JSON
				i++
				continue
			}
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		if mustEscape(s, i) {
			writeEscape(&b, c)
		} else {
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

func mustEscape(s string, i int) bool {
	c := s[i]
	switch {
	case c < 0x20 || c == 0x7f:
		return true
	case strings.IndexByte("%/ ~^:?*[\\", c) >= 0:
		return true
	case c == '.':
		// A leading dot, the second of "..", a trailing dot and the dot of
		// a ".lock" suffix are all refused by git.
		return i == 0 || s[i-1] == '.' || i == len(s)-1 || s[i:] == ".lock"
	case c == '@':
		return i+1 < len(s) && s[i+1] == '{'
	}
	return false
}

const hexDigits = "0123456789ABCDEF"

func writeEscape(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&15])
}

// DecodeComponent reverses EncodeComponent. It accepts only the canonical
// encoding, so two different components never decode to the same name.
func DecodeComponent(c string) (string, error) {
	if c == "" {
		return "", fmt.Errorf("%w: empty component", ErrBadName)
	}
	if !strings.Contains(c, "%") {
		if enc, err := EncodeComponent(c); err != nil || enc != c {
			return "", fmt.Errorf("%w: %q is not an encoded component", ErrBadName, c)
		}
		return c, nil
	}
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] != '%' {
			b.WriteByte(c[i])
			continue
		}
		if i+2 >= len(c) || !isUpperHex(c[i+1]) || !isUpperHex(c[i+2]) {
			return "", fmt.Errorf("%w: bad escape in %q", ErrBadName, c)
		}
		v, _ := strconv.ParseUint(c[i+1:i+3], 16, 8)
		b.WriteByte(byte(v))
		i += 2
	}
	s := b.String()
	if enc, err := EncodeComponent(s); err != nil || enc != c {
		return "", fmt.Errorf("%w: %q is not canonically encoded", ErrBadName, c)
	}
	return s, nil
}

func isUpperHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// join builds prefix + encoded parts separated by '/'.
func join(prefix string, parts ...string) (string, error) {
	if len(parts) == 1 {
		enc, err := EncodeComponent(parts[0])
		if err != nil {
			return "", err
		}
		return prefix + enc, nil
	}
	var b strings.Builder
	b.WriteString(prefix)
	for i, p := range parts {
		enc, err := EncodeComponent(p)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(enc)
	}
	return b.String(), nil
}

// HandoffRef names the baton ref of owner on branch.
func HandoffRef(shared bool, owner, branch string) (string, error) {
	if shared {
		return join(SharedPrefix, owner, branch)
	}
	return join(PrivatePrefix, owner, branch)
}

// ObjectiveRef names the objective ref of owner on branch.
func ObjectiveRef(owner, branch string) (string, error) {
	return join(ObjectivePrefix, owner, branch)
}

// SessionRef names a session's record.
func SessionRef(id string) (string, error) { return join(SessionPrefix, id) }

// PRRef names the ownership record of one pull request.
func PRRef(ghOwner, ghRepo string, number int) (string, error) {
	if number <= 0 {
		return "", fmt.Errorf("%w: pull request number %d", ErrBadName, number)
	}
	return join(PRPrefix, ghOwner, ghRepo, strconv.Itoa(number))
}

// SplitRef decodes the components of ref below prefix. It fails unless there
// are exactly n of them and each decodes.
func SplitRef(ref, prefix string, n int) ([]string, error) {
	rest, ok := strings.CutPrefix(ref, prefix)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not under %s", ErrBadName, ref, prefix)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != n {
		return nil, fmt.Errorf("%w: %q has %d components under %s, want %d", ErrBadName, ref, len(parts), prefix, n)
	}
	for i, p := range parts {
		d, err := DecodeComponent(p)
		if err != nil {
			return nil, err
		}
		parts[i] = d
	}
	return parts, nil
}

// RemoteRef is where a copy of ref fetched from remote is kept.
func RemoteRef(remote, ref string) (string, error) {
	rest, ok := strings.CutPrefix(ref, Root)
	if !ok {
		return "", fmt.Errorf("%w: %q is not under %s", ErrBadName, ref, Root)
	}
	r, err := EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return RemotesPrefix + r + "/" + rest, nil
}

// CheckRef reports, as an error wrapping ErrBadName, why ref cannot name a
// record: every store (the git one and memstore) refuses the same names
// before reading or writing, so that a name git would take as something
// other than a ref (`refs/ao/x@{1}`, a reflog entry; `refs/ao/x:path`, a
// path in a tree; `HEAD`) never reads or writes anything. A record's ref
// is under refs/ and passes git check-ref-format: CheckRef is git's
// check_refname_format (refs.c) without options, which
// TestCheckRefIsGitCheckRefFormat holds to git itself.
func CheckRef(ref string) error {
	if !strings.HasPrefix(ref, "refs/") {
		return fmt.Errorf("%w: %q is not under refs/", ErrBadName, ref)
	}
	if why := refFormatProblem(ref); why != "" {
		return fmt.Errorf("%w: %q is not a ref name git accepts: %s", ErrBadName, ref, why)
	}
	return nil
}

// refFormatProblem is what git check-ref-format finds wrong with ref, or
// "". Its rules: components separated by '/', none of them empty, none
// starting with '.' or ending in ".lock"; no "..", "@{", ASCII control
// characters, space, ':', '?', '*', '[', '\', '^' or '~' anywhere; not
// ending in '.'; not the single '@'; at least two components.
func refFormatProblem(ref string) string {
	if ref == "@" {
		return "the name @"
	}
	components := 0
	for rest := ref; ; {
		comp, tail, more := strings.Cut(rest, "/")
		switch {
		case comp == "":
			return "an empty component"
		case comp[0] == '.':
			return "a component starting with '.'"
		case strings.HasSuffix(comp, ".lock"):
			return "a component ending in .lock"
		}
		var last byte
		for i := 0; i < len(comp); i++ {
			c := comp[i]
			switch {
			case c < 0x20 || c == 0x7f:
				return "a control character"
			case strings.IndexByte(" :?*[\\^~", c) >= 0:
				return fmt.Sprintf("the character %q", c)
			case c == '.' && last == '.':
				return `".."`
			case c == '{' && last == '@':
				return `"@{"`
			}
			last = c
		}
		components++
		if !more {
			break
		}
		rest = tail
	}
	if strings.HasSuffix(ref, ".") {
		return "a trailing '.'"
	}
	if components < 2 {
		return "one component"
	}
	return ""
}

// CheckPrefix refuses a listing prefix that git for-each-ref would read
// as a pattern (wildmatch): a prefix is literal in every store.
func CheckPrefix(prefix string) error {
	if strings.ContainsAny(prefix, "*?[\\") {
		return fmt.Errorf("%w: listing prefix %q has a pattern character", ErrBadName, prefix)
	}
	return nil
}
