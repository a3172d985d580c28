package prdata

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// PR is what we need to know about a pull request.
type PR struct {
	Number int    `json:"number"`
	URL    string `json:"url"` // the web page
	Title  string `json:"title"`
	State  string `json:"state"` // "open", "closed" or "merged"
	Draft  bool   `json:"draft"`
	Merged bool   `json:"merged"`
	// Mergeable is nil while GitHub is still computing it (PR asks again a
	// few times first) and for closed pull requests.
	Mergeable      *bool    `json:"mergeable"`
	MergeableState string   `json:"mergeableState"` // clean, dirty, blocked, behind, unstable, unknown…
	HeadBranch     string   `json:"headBranch"`
	HeadSHA        string   `json:"headSha"`
	HeadOwner      string   `json:"headOwner"` // differs from the repository owner for forks
	Base           string   `json:"base"`
	Author         string   `json:"author"`
	Assignees      []string `json:"assignees"`
	Labels         []string `json:"labels"`
}

// Open reports whether the pull request can still be worked on and claimed.
func (p PR) Open() bool { return p.State == "open" }

// ParsePRRef reads how a user names a pull request: "123", "#123", or its
// web URL ("https://HOST/OWNER/REPO/pull/123", with or without a trailing
// "/files" and the like). repo is set only for a URL, so the caller can check
// it is the repository it works in.
func ParsePRRef(s string) (repo Repo, number int, err error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "#")); err == nil {
		if n <= 0 {
			return Repo{}, 0, fmt.Errorf("pull request %q: number must be positive", s)
		}
		return Repo{}, n, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Repo{}, 0, fmt.Errorf("pull request %q: want a number, #number or a pull request URL", s)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" {
		return Repo{}, 0, fmt.Errorf("pull request %q: not a pull request URL (want HOST/OWNER/REPO/pull/NUMBER)", RedactURL(s))
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return Repo{}, 0, fmt.Errorf("pull request %q: bad number %q", RedactURL(s), parts[3])
	}
	return Repo{Host: normalizeHost(u.Hostname()), Owner: parts[0], Name: parts[1]}, n, nil
}
