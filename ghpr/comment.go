package ghpr

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

// UpsertOwnershipComment makes body the pull request's one ownership
// comment: it edits the comment whose first line holds OwnershipMarker and
// whose author is the token's user, or posts one if there is none. An
// identical body is left alone, so re-running a claim changes nothing. It
// must be called only after the ownership swap in git succeeded. The POST
// is never retried: after an unclear failure, running the claim again finds
// the comment if it was made.
//
// Two processes upserting at once (two clones taking the same pull request
// over, a claim racing `session replace --claim-pr`) may both find no
// comment and both post. So after a POST the comments are listed again,
// and whenever more than one of ours carries the marker, every process
// applies the same rule: the oldest (lowest id) is kept and made to carry
// the body this process wrote, and the others of ours are deleted (someone
// else's comment is never edited or deleted). The oldest is never deleted
// by anyone, and each later one is deleted at the latest by the process
// that posted it, whose list after its own POST sees the older one; so
// they converge on exactly one comment whatever the interleaving, and any
// duplicate a failure left behind is swept by the next upsert. GitHub's
// comment endpoints have no compare-and-swap, so the body of that one
// comment is last-writer-wins: after a race it may describe either
// writer's view. It is a derived view for people; git (refs/ao/prs/...)
// stays the source of truth, and the next claim or transfer rewrites it.
//
// commentID is the kept comment; created is true only when the comment
// this call posted is the one kept.
func (c *Client) UpsertOwnershipComment(ctx context.Context, n int, body string) (commentID int64, created bool, err error) {
	return c.writeOwnership(ctx, n, body, true)
}

// EditOwnershipComment is UpsertOwnershipComment without the POST: it
// edits our ownership comment when there is one (and deletes our
// duplicates, by the same rule), and does nothing when there is none, so
// that saying a pull request was released never posts a comment that was
// not there. commentID is 0 when there was none.
func (c *Client) EditOwnershipComment(ctx context.Context, n int, body string) (commentID int64, err error) {
	id, _, err := c.writeOwnership(ctx, n, body, false)
	return id, err
}

func (c *Client) writeOwnership(ctx context.Context, n int, body string, mayPost bool) (commentID int64, created bool, err error) {
	op := fmt.Sprintf("writing the ownership comment on #%d", n)
	if err := checkNumber(n); err != nil {
		return 0, false, fmt.Errorf("%s: %w", op, err)
	}
	if err := c.needToken(op); err != nil {
		return 0, false, err
	}
	if !strings.HasPrefix(body, OwnershipMarker+"\n") {
		return 0, false, fmt.Errorf("%s: body must start with the marker line (use RenderOwnershipComment)", op)
	}
	if strings.Contains(body, c.token) {
		return 0, false, fmt.Errorf("%s: refusing: the body contains the GitHub token", op)
	}
	login, err := c.Login(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", op, err)
	}
	ours, err := c.ownershipComments(ctx, n, login)
	if err != nil {
		return 0, false, c.wrap(op, err)
	}
	var posted int64
	if len(ours) == 0 && !mayPost {
		return 0, false, nil
	}
	if len(ours) == 0 {
		cm, _, err := c.gh.Issues.CreateComment(ctx, c.repo.Owner, c.repo.Name, n, &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return 0, false, c.wrap(op, err)
		}
		posted = cm.GetID()
		// Someone may have posted at the same moment: look again.
		if ours, err = c.ownershipComments(ctx, n, login); err != nil {
			return posted, true, c.wrap(op+" (listing again after posting)", err)
		}
		if len(ours) == 0 {
			// Not listed yet (or already removed by hand): ours stands.
			return posted, true, nil
		}
	}
	keep := ours[0]
	if keep.GetBody() != body {
		_, _, err := c.gh.Issues.EditComment(ctx, c.repo.Owner, c.repo.Name, keep.GetID(), &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return 0, false, c.wrap(op, err)
		}
	}
	for _, dup := range ours[1:] {
		_, err := c.gh.Issues.DeleteComment(ctx, c.repo.Owner, c.repo.Name, dup.GetID())
		if err != nil && !isNotFound(err) { // a 404: another process deleted it first
			return keep.GetID(), keep.GetID() == posted, c.wrap(fmt.Sprintf("%s (deleting the duplicate comment %d)", op, dup.GetID()), err)
		}
	}
	return keep.GetID(), keep.GetID() == posted, nil
}

// ownershipComments returns the comments by login whose first line carries
// the marker, oldest (lowest id) first. Someone else's comment that quotes
// the marker is not ours to edit or delete.
func (c *Client) ownershipComments(ctx context.Context, n int, login string) ([]*github.IssueComment, error) {
	var ours []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, c.repo.Owner, c.repo.Name, n, opts)
		if err != nil {
			return nil, err
		}
		for _, cm := range page {
			first, _, _ := strings.Cut(cm.GetBody(), "\n")
			if strings.TrimSpace(strings.TrimSuffix(first, "\r")) == OwnershipMarker && strings.EqualFold(cm.GetUser().GetLogin(), login) {
				ours = append(ours, cm)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	// GitHub lists oldest first; sort anyway, since every process must
	// pick the same one to keep.
	slices.SortStableFunc(ours, func(a, b *github.IssueComment) int { return cmp.Compare(a.GetID(), b.GetID()) })
	return ours, nil
}

// isNotFound reports a 404 from GitHub.
func isNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// Assign adds login to the pull request's assignees. GitHub silently drops
// assignees who cannot be assigned, so that is checked and reported.
func (c *Client) Assign(ctx context.Context, n int, login string) error {
	op := fmt.Sprintf("assigning %s to #%d", login, n)
	if err := checkNumber(n); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := c.needToken(op); err != nil {
		return err
	}
	if login == "" {
		return errors.New(op + ": no login")
	}
	is, _, err := c.gh.Issues.AddAssignees(ctx, c.repo.Owner, c.repo.Name, n, []string{login})
	if err != nil {
		return c.wrap(op, err)
	}
	for _, a := range is.Assignees {
		if strings.EqualFold(a.GetLogin(), login) {
			return nil
		}
	}
	return fmt.Errorf("%s: GitHub did not assign them (no access to the repository?)", op)
}

// AddLabel adds one label to the pull request (GitHub creates a label that
// does not exist yet). It sends {"labels": [...]}, the form GitHub's
// description documents, not go-github's bare array.
func (c *Client) AddLabel(ctx context.Context, n int, label string) error {
	op := fmt.Sprintf("labelling #%d %q", n, label)
	if err := checkNumber(n); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := c.needToken(op); err != nil {
		return err
	}
	if strings.TrimSpace(label) == "" {
		return errors.New(op + ": empty label")
	}
	u := fmt.Sprintf("repos/%s/%s/issues/%d/labels", c.repo.Owner, c.repo.Name, n)
	req, err := c.gh.NewRequest("POST", u, map[string][]string{"labels": {label}})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var out []*github.Label
	if _, err := c.gh.Do(ctx, req, &out); err != nil {
		return c.wrap(op, err)
	}
	return nil
}
