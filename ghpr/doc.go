// Package ghpr is everything git-handoff says to and asks of GitHub: which
// repository a checkout belongs to, which token to use, a pull request's
// facts (state, checks, reviews, unresolved threads), and the outward half of
// an ownership transfer (one comment per pull request, an assignee, a label).
// It never touches refs; the ownership record itself lives in refstore, and
// callers write the comment only after the swap there succeeded.
//
// # Getting a client
//
//	c, source, err := ghpr.Connect(ctx, dir, "origin", os.Getenv)
//
// Connect = DetectRepo (GH_REPO, else `git remote get-url`, which applies
// insteadOf) + FindToken (GH_TOKEN/GITHUB_TOKEN for github.com and *.ghe.com,
// GH_ENTERPRISE_TOKEN/GITHUB_ENTERPRISE_TOKEN for other hosts, then `gh auth
// token --hostname HOST`, then `git credential fill`) + Endpoints (github.com,
// *.ghe.com, Enterprise Server /api/v3/ and /api/graphql, or GITHUB_API_URL
// and GITHUB_GRAPHQL_URL) + New. No token is not an error: reads still work
// on public repositories, and writes fail with an *AuthError before any
// request. source names where the token came from; the token itself is never
// logged, printed, stored or put in a comment. Build the client lazily: a
// command that does not need GitHub should not pay for it.
//
// # Claiming a pull request (`git handoff pr claim`)
//
//	_, n, err := ghpr.ParsePRRef(arg)             // "12", "#12" or a URL
//	pr, err := c.PR(ctx, n)                       // or c.OpenPRForBranch(ctx, "", branch)
//	if !pr.Open() { /* refuse: ErrNotOpen */ }
//	... swap refs/ao/prs/<owner>/<repo>/<n> in refstore; only if that succeeded:
//	body := ghpr.RenderOwnershipComment(ghpr.OwnershipInfo{...})
//	id, created, err := c.UpsertOwnershipComment(ctx, n, body)  // --no-comment skips
//	err = c.Assign(ctx, n, login)                 // --assign (login from c.Login)
//	err = c.AddLabel(ctx, n, label)               // --label L
//
// Every step is idempotent: the comment is found again by OwnershipMarker on
// its first line and the token's login as author, edited when it differs
// and left alone when it does not, so re-running a claim posts nothing new.
// A POST is never sent twice by this package. Concurrent upserts that both
// posted converge on one comment (the oldest of ours is kept, the others of
// ours deleted); its body is last-writer-wins, a derived view of the record
// in git, which stays the source of truth.
//
// # Status (`git handoff pr status`)
//
// c.Facts(ctx, n) returns the PR, its checks bucketed as GitHub's CLI does
// (fail, pending, pass, skipping; see BucketCheckRun), reviewDecision and who
// requested changes, and the unresolved review threads from GraphQL. When
// GraphQL fails (no token, an app without access, an error on HTTP 200) the
// threads come from REST review comments with ThreadsKnown false and a
// Warning, because REST cannot tell resolved from unresolved. FetchedAt says
// when; Warnings also flag checks on another commit than the head and a
// mergeability GitHub was still computing after a few polls.
//
// # Errors, for the CLI's exit codes
//
//   - *AuthError (errors.As): 401, 403, 404, or no token for a write → exit 4.
//     Its message says what is missing (X-Accepted-GitHub-Permissions,
//     X-Accepted-OAuth-Scopes, or "no token found: set GH_TOKEN or run gh auth
//     login"); ErrorHint gives the hint line. NotFound() tells a 404 apart
//     (GitHub answers 404 for private repositories the token cannot see).
//   - *RateLimitError: a limit whose wait was longer than Options.MaxWait (5s),
//     or hit by a write; RetryAt says when. Short waits on reads are taken once.
//   - *GraphQLError: an "errors" array on an HTTP 200.
//   - ErrNoPR (no pull request for the branch, exit 6), ErrNotOpen (closed or
//     merged), ErrNoRemote, ErrNoToken (from FindToken only).
//
// Tests use ghprtest, a fake GitHub that validates every request against
// GitHub's own OpenAPI description and GraphQL schema.
package ghpr
