package prdata

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Repo names a repository on a GitHub host.
type Repo struct {
	Host  string `json:"host"`  // "github.com", or an Enterprise host
	Owner string `json:"owner"` // user or organisation
	Name  string `json:"name"`
}

// FullName is "owner/name".
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// String is "owner/name" on github.com and "host/owner/name" elsewhere, the
// forms GH_REPO accepts.
func (r Repo) String() string {
	if r.Host == "" || r.Host == DefaultHost {
		return r.FullName()
	}
	return r.Host + "/" + r.FullName()
}

// DefaultHost is where a repository lives when nothing says otherwise.
const DefaultHost = "github.com"

// ParseRemoteURL reads a git remote URL: scp-like "git@host:owner/repo.git",
// ssh://, git+ssh://, https:// and git:// forms. It drops user names,
// passwords and ports, a trailing slash or ".git", and "www."; ssh.github.com
// (GitHub's SSH-over-443 host) is github.com. Errors never repeat the URL's
// credentials.
func ParseRemoteURL(raw string) (Repo, error) {
	raw = strings.TrimSpace(raw)
	var host, path string
	switch {
	case strings.Contains(raw, "://"):
		u, err := url.Parse(raw)
		if err != nil {
			return Repo{}, fmt.Errorf("remote URL %q: not a URL", RedactURL(raw))
		}
		switch strings.ToLower(u.Scheme) {
		case "https", "http", "ssh", "git+ssh", "ssh+git", "git":
		default:
			return Repo{}, fmt.Errorf("remote URL %q: scheme %q is not one GitHub serves", RedactURL(raw), u.Scheme)
		}
		host, path = u.Hostname(), u.Path
	case isSCPLike(raw):
		// [user@]host:path, as git itself reads it: a colon before any slash.
		before, after, _ := strings.Cut(raw, ":")
		if i := strings.LastIndex(before, "@"); i >= 0 {
			before = before[i+1:]
		}
		host, path = before, after
	default:
		return Repo{}, fmt.Errorf("remote URL %q: a local path, not a GitHub repository", RedactURL(raw))
	}
	host = normalizeHost(host)
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	parts := strings.Split(path, "/")
	if host == "" || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return Repo{}, fmt.Errorf("remote URL %q: want HOST/OWNER/REPO", RedactURL(raw))
	}
	return Repo{Host: host, Owner: parts[0], Name: parts[1]}, nil
}

func isSCPLike(s string) bool {
	colon := strings.Index(s, ":")
	slash := strings.Index(s, "/")
	return colon > 0 && (slash < 0 || colon < slash)
}

func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if hh, port, ok := strings.Cut(h, ":"); ok {
		if _, err := strconv.Atoi(port); err == nil {
			h = hh
		}
	}
	h = strings.TrimPrefix(h, "www.")
	if h == "ssh.github.com" {
		h = DefaultHost
	}
	return h
}

// RedactURL drops any user:password@ from a URL-ish string, so errors and
// logs never carry a token that was pasted into a remote.
func RedactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		rest = rest[at+1:]
	}
	return scheme + "://" + rest
}

// ParseRepo reads the GH_REPO forms: "OWNER/REPO", "HOST/OWNER/REPO", or a
// URL. host is used when the value names none.
func ParseRepo(s, host string) (Repo, error) {
	if strings.Contains(s, "://") || isSCPLike(s) {
		return ParseRemoteURL(s)
	}
	parts := strings.Split(strings.Trim(s, "/"), "/")
	for _, p := range parts {
		if p == "" {
			return Repo{}, fmt.Errorf("repository %q: want OWNER/REPO or HOST/OWNER/REPO", s)
		}
	}
	switch len(parts) {
	case 2:
		if host == "" {
			host = DefaultHost
		}
		return Repo{Host: normalizeHost(host), Owner: parts[0], Name: strings.TrimSuffix(parts[1], ".git")}, nil
	case 3:
		return Repo{Host: normalizeHost(parts[0]), Owner: parts[1], Name: strings.TrimSuffix(parts[2], ".git")}, nil
	}
	return Repo{}, fmt.Errorf("repository %q: want OWNER/REPO or HOST/OWNER/REPO", s)
}
