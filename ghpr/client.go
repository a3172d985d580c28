package ghpr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/google/go-github/v60/github"
)

// Options configure a Client. Only Repo is required.
type Options struct {
	Repo  Repo
	Token string // empty: anonymous; reads work on public repositories, writes are refused
	// APIURL is the REST root. Default: from Repo.Host (see Endpoints).
	APIURL string
	// GraphQLURL is the GraphQL endpoint. Default: APIURL + "graphql", or
	// APIURL + "../graphql" when APIURL ends in /api/v3/ (Enterprise Server).
	GraphQLURL string
	HTTPClient *http.Client // default: a client with a 30s timeout
	// Sleep waits between tries (rate limits, mergeable polling). Tests
	// inject one that returns at once and records the durations.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxWait is the longest rate-limit wait taken without telling anyone;
	// a longer one is returned as a RateLimitError. Default 5s.
	MaxWait time.Duration
	// MergeablePolls is how many times PR asks again while GitHub is still
	// computing mergeability (mergeable: null). Default 3; negative: never.
	MergeablePolls int
	Now            func() time.Time // default time.Now
}

// Client talks to one GitHub repository. It is safe for concurrent use.
type Client struct {
	gh         *github.Client
	repo       Repo
	token      string
	graphqlURL string
	sleep      func(context.Context, time.Duration) error
	polls      int
	now        func() time.Time

	mu    sync.Mutex
	login string
}

// Endpoints returns the REST root and GraphQL endpoint for a host:
// github.com → api.github.com; *.ghe.com → api.HOST; any other host is
// Enterprise Server, at HOST/api/v3/ and HOST/api/graphql. GITHUB_API_URL and
// GITHUB_GRAPHQL_URL (set in GitHub Actions, and by tests) override them;
// with only GITHUB_API_URL set, GraphQL is derived from it.
func Endpoints(host string, getenv func(string) string) (api, graphql string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	host = strings.ToLower(host)
	switch {
	case host == "" || host == DefaultHost:
		api = "https://api.github.com/"
	case strings.HasSuffix(host, ".ghe.com"):
		api = "https://api." + host + "/"
	default:
		api = "https://" + host + "/api/v3/"
	}
	if v := getenv("GITHUB_API_URL"); v != "" {
		api = v
	}
	graphql = getenv("GITHUB_GRAPHQL_URL")
	if graphql == "" {
		graphql, _ = graphQLFor(api)
	}
	return api, graphql
}

// graphQLFor derives the GraphQL endpoint from a REST root: beside it for
// Enterprise Server (/api/v3/ → /api/graphql), under it otherwise.
func graphQLFor(api string) (string, error) {
	u, err := url.Parse(ensureSlash(api))
	if err != nil {
		return "", err
	}
	rel := "graphql"
	if strings.HasSuffix(u.Path, "/api/v3/") {
		rel = "../graphql"
	}
	return u.ResolveReference(&url.URL{Path: rel}).String(), nil
}

func ensureSlash(s string) string {
	if !strings.HasSuffix(s, "/") {
		return s + "/"
	}
	return s
}

// New builds a Client. It makes no request.
func New(ctx context.Context, o Options) (*Client, error) {
	if o.Repo.Owner == "" || o.Repo.Name == "" {
		return nil, errors.New("github client: repository owner and name are required")
	}
	if o.APIURL == "" {
		o.APIURL, _ = Endpoints(o.Repo.Host, func(string) string { return "" })
	}
	base, err := url.Parse(ensureSlash(o.APIURL))
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("github API URL %q is not an absolute URL", prdata.RedactURL(o.APIURL))
	}
	if o.GraphQLURL == "" {
		if o.GraphQLURL, err = graphQLFor(base.String()); err != nil {
			return nil, err
		}
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.MaxWait == 0 {
		o.MaxWait = 5 * time.Second
	}
	if o.MergeablePolls == 0 {
		o.MergeablePolls = 3
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if o.HTTPClient != nil {
		cp := *o.HTTPClient
		hc = &cp
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = &limitTransport{base: rt, sleep: o.Sleep, maxWait: o.MaxWait, now: o.Now}

	gh := github.NewClient(hc)
	if o.Token != "" {
		gh = gh.WithAuthToken(o.Token)
	}
	// Set directly rather than through WithEnterpriseURLs, which would
	// append /api/v3/ to any root that lacks it, including a test prefix.
	gh.BaseURL = base
	gh.UploadURL = base
	gh.UserAgent = "git-handoff"
	return &Client{
		gh:         gh,
		repo:       o.Repo,
		token:      o.Token,
		graphqlURL: o.GraphQLURL,
		sleep:      o.Sleep,
		polls:      o.MergeablePolls,
		now:        o.Now,
	}, nil
}

// Connect is what a command needs: the repository from GH_REPO or the
// remote, a token from FindToken (none is not an error: reads go
// anonymous), and the endpoints for the host. source names where the token
// came from ("" when there is none).
func Connect(ctx context.Context, dir, remote string, getenv func(string) string) (c *Client, source string, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	repo, err := DetectRepo(ctx, dir, remote, getenv)
	if err != nil {
		return nil, "", err
	}
	tok, source, err := FindToken(ctx, repo.Host, TokenOptions{Getenv: getenv, Dir: dir})
	if err != nil && !errors.Is(err, ErrNoToken) {
		return nil, "", err
	}
	api, gql := Endpoints(repo.Host, getenv)
	c, err = New(ctx, Options{Repo: repo, Token: tok, APIURL: api, GraphQLURL: gql})
	return c, source, err
}

// Repo is the repository the client talks to.
func (c *Client) Repo() Repo { return c.repo }

// HasToken reports whether calls are authenticated.
func (c *Client) HasToken() bool { return c.token != "" }

// needToken refuses a write before any request when there is no token.
func (c *Client) needToken(op string) error {
	if c.token == "" {
		return &AuthError{Op: op, NoToken: true}
	}
	return nil
}

// Login is the user the token belongs to, asked once per client. GitHub App
// installation tokens cannot call it and get an AuthError.
func (c *Client) Login(ctx context.Context) (string, error) {
	c.mu.Lock()
	login := c.login
	c.mu.Unlock()
	if login != "" {
		return login, nil
	}
	const op = "reading the token's user"
	if err := c.needToken(op); err != nil {
		return "", err
	}
	u, _, err := c.gh.Users.Get(ctx, "")
	if err != nil {
		return "", c.wrap(op, err)
	}
	c.mu.Lock()
	c.login = u.GetLogin()
	c.mu.Unlock()
	return u.GetLogin(), nil
}

func checkNumber(n int) error {
	if n <= 0 {
		// Zero matters most: several list endpoints read number 0 as
		// "the whole repository".
		return fmt.Errorf("pull request number %d: must be positive", n)
	}
	return nil
}
