package ghpr

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// TokenOptions says where FindToken may look. The zero value looks
// everywhere, in the process environment.
type TokenOptions struct {
	Getenv  func(string) string // default os.Getenv; also supplies PATH for finding gh
	Dir     string              // repository for `git credential fill` (its config applies)
	Timeout time.Duration       // per helper process; default 5s
	NoGH    bool                // skip `gh auth token`
	NoGit   bool                // skip `git credential fill`
}

// Token sources, as FindToken reports them. The token itself is never
// logged, printed or stored; the source is what may be shown.
const (
	SourceGHCLI         = "gh auth token"
	SourceGitCredential = "git credential"
)

// FindToken looks for a token for host in GitHub CLI's order: GH_TOKEN then
// GITHUB_TOKEN for github.com and *.ghe.com, GH_ENTERPRISE_TOKEN then
// GITHUB_ENTERPRISE_TOKEN for other hosts; then `gh auth token --hostname
// HOST` when gh is installed; then `git credential fill`. It returns the
// token and the name of its source, or ErrNoToken. Helper processes that
// fail or time out count as having no token.
func FindToken(ctx context.Context, host string, o TokenOptions) (token, source string, err error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	if host == "" {
		host = DefaultHost
	}
	vars := []string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}
	if isGitHubCom(host) {
		vars = []string{"GH_TOKEN", "GITHUB_TOKEN"}
	}
	for _, v := range vars {
		if t := strings.TrimSpace(getenv(v)); t != "" {
			return t, v, nil
		}
	}
	if !o.NoGH {
		if t := ghAuthToken(ctx, host, getenv("PATH"), timeout); t != "" {
			return t, SourceGHCLI, nil
		}
	}
	if !o.NoGit {
		if t := gitCredential(ctx, o.Dir, host, timeout); t != "" {
			return t, SourceGitCredential, nil
		}
	}
	return "", "", ErrNoToken
}

// isGitHubCom is true for the hosts whose tokens live in GH_TOKEN and
// GITHUB_TOKEN: github.com itself and GitHub's data-residency *.ghe.com.
func isGitHubCom(host string) bool {
	host = strings.ToLower(host)
	return host == DefaultHost || strings.HasSuffix(host, ".ghe.com")
}

func ghAuthToken(ctx context.Context, host, path string, timeout time.Duration) string {
	gh := lookPath("gh", path)
	if gh == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gh, "auth", "token", "--hostname", host)
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout = &out
	// gh explains a missing login on stderr; that is not ours to show.
	cmd.Stderr = nil
	if err := cmd.Run(); err != nil {
		return ""
	}
	return strings.TrimSpace(out.String())
}

// lookPath finds name in path (a PATH value), so tests can point at a fake
// gh without changing the process environment.
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// gitCredential asks git's credential helpers for the host's password, which
// for GitHub is a token. git would prompt on the terminal when no helper
// answers; refstore.Git cannot set GIT_TERMINAL_PROMPT=0, so core.askPass is
// set to `true` instead: it answers every prompt with an empty line, git then
// never opens the terminal, and an empty password means "none". (A
// GIT_ASKPASS in the environment still takes precedence over core.askPass.)
// credential.interactive=false asks Git Credential Manager not to pop up UI.
func gitCredential(ctx context.Context, dir, host string, timeout time.Duration) string {
	if dir == "" {
		dir = "."
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in := "protocol=https\nhost=" + host + "\n\n"
	out, err := refstore.Git(ctx, dir, true, []byte(in),
		"-c", "core.askPass=true", "-c", "credential.interactive=false",
		"credential", "fill")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "password="); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
