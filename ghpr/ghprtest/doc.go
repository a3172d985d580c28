// Package ghprtest is a fake GitHub for tests of ghpr and of the commands
// built on it. It is strict on purpose: every REST request is routed and
// validated (path, query, body) against a slice of GitHub's published OpenAPI
// description, every GraphQL query and its variables against GitHub's
// published schema (both committed under spec/, see spec/PROVENANCE.md), and
// its own answers are validated too. A request that matches no operation or
// fails validation is answered with an error and recorded; NewServer reports
// the record with t.Error at cleanup.
//
// Answers start from GitHub's own example for the operation and carry the
// seeded State: pull requests (open, closed, merged, draft, mergeable null
// for the first N reads), check runs and commit statuses (paginated with Link
// headers), reviews, review comments, GraphQL review threads (paginated, with
// isResolved) and reviewDecision, conversation comments (list, create,
// edit, delete; deleted ones are kept in State.DeletedComments), assignees,
// labels and GET /user. Faults (see Fault) queue 401, 403 with permission
// headers, 404, 429 or secondary limits with Retry-After, or any canned
// answer for an operation. SetHook lets a test hold answers back to make
// races between clients real.
//
// Tokens: a request must carry "Authorization: Bearer|token <State.Token>";
// a wrong token is 401. Without one, reads of a Public repository are
// served, reads of a private one answer 404 (as GitHub does, rather than
// 401), and writes, GET /user and GraphQL answer 401.
//
// In process:
//
//	s := ghprtest.NewServer(t, ghprtest.WithState(ghprtest.State{Token: "t", PRs: ...}))
//	// REST under s.URL (".../prefix/"), GraphQL at s.GraphQLURL;
//	// ghprtest.Enterprise() mounts /api/v3/ and /api/graphql instead.
//	c, _ := ghpr.New(ctx, ghpr.Options{Repo: ..., Token: "t", APIURL: s.URL})
//	... s.Comments(7), s.PR(7), s.Requests(), s.AddFault(...), s.Update(...)
//
// As a process (cmd/fakegithub, or Main registered as a testscript command):
//
//	fakegithub serve -seed seed.json -url-file gh.url -env-file gh.env -state-file final.json &
//	fakegithub state gh.url          # live state, requests, failures as JSON
//	fakegithub fault gh.url '{"op": "pulls/get", "status": 429, "headers": {"Retry-After": "1"}}'
//	kill -TERM $pid                  # writes final.json; exit 1 if any request was not GitHub's
//
// The seed file is a State in JSON (unknown fields are refused). gh.env holds
// GITHUB_API_URL=, GITHUB_GRAPHQL_URL= and FAKEGITHUB_ADMIN= lines. Admin
// endpoints live under /_fake/ on the same host, outside the API prefix.
package ghprtest
