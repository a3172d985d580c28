// Package prown is pull-request ownership: which session owns a pull
// request, how ownership moves (claim, takeover, replacement, release), who
// should receive CI and review work now (Route), and what a merge does to
// the owner (MarkMerged).
//
// One record per pull request, at refs/ao/prs/<gh-owner>/<gh-repo>/<number>
// (schema "pr/v1"), and the owner session's `pr` pointer (lineage.Session.PR)
// always change in one ref transaction, by compare-and-swap: of any number of
// concurrent claimers at most one owns the pull request at any time, and a
// lost swap is re-read and re-decided a bounded number of times.
//
// prown never talks to GitHub. The command resolves the pull request there
// first (refusing closed and merged ones), swaps here, and only after the
// swap succeeded writes the ownership comment (prdata.RenderOwnershipComment
// with Comment(rec)).
package prown

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// Schema is the version tag of an ownership record.
const Schema = "pr/v1"

// Record is the ownership record of one pull request.
type Record struct {
	Schema string `json:"schema"`
	URL    string `json:"url,omitempty"`
	Number int    `json:"number"`
	Repo   string `json:"repo"` // owner/name on GitHub
	// OwnerSession is the owning session; "" once released.
	OwnerSession string    `json:"ownerSession"`
	ClaimedAt    time.Time `json:"claimedAt"`
	// History is every change of owner, oldest first, the current claim
	// included: the previous owners are the From of each entry.
	History []Transfer `json:"history"`
	// MergedAt is set once the pull request was seen merged (MarkMerged);
	// the record is then final.
	MergedAt *time.Time `json:"mergedAt,omitempty"`
	// rev and prev, which sync orders versions by (refstore.Cause).
	refstore.Cause
}

// Transfer is one change of owner.
type Transfer struct {
	Session string    `json:"session"`        // the new owner; "" for a release
	From    string    `json:"from,omitempty"` // the previous owner; "" for the first claim
	At      time.Time `json:"at"`
	Reason  string    `json:"reason"`
	Harness string    `json:"harness,omitempty"` // the new owner's agent, for the comment
}

// Stored is a record with the ref it lives at and the blob id read.
type Stored struct {
	Record
	Ref string `json:"-"`
	OID string `json:"-"`
	// Archived is the month whose archive holds the record (Find), ""
	// for a live one: the ownership of a merged pull request, retired.
	Archived string `json:"archived,omitempty"`
}

// Pointer is what the owning session's record says about the pull request.
func (r Record) Pointer() *session.PRPointer {
	return &session.PRPointer{Repo: r.Repo, Number: r.Number, URL: r.URL}
}

// Merged reports whether the pull request was recorded as merged.
func (r Record) Merged() bool { return r.MergedAt != nil }

// Comment is what the ownership comment on GitHub says about r; for a
// released record (no owner), that nobody owns it, released by whom and
// when.
func Comment(r Record) prdata.OwnershipInfo {
	in := prdata.OwnershipInfo{Session: r.OwnerSession, ClaimedAt: r.ClaimedAt}
	for _, t := range r.History {
		in.History = append(in.History, prdata.Transfer{At: t.At, From: t.From, To: t.Session, Harness: t.Harness, Reason: t.Reason})
	}
	n := len(r.History)
	if n > 0 && r.History[n-1].Session == r.OwnerSession {
		in.Harness = r.History[n-1].Harness
	}
	if r.OwnerSession == "" && n > 0 && r.History[n-1].Session == "" {
		// Released: say by whom and when.
		in.ReleasedBy, in.ReleasedAt = r.History[n-1].From, r.History[n-1].At
		in.ClaimedAt = time.Time{}
	}
	return in
}

// SplitRepo splits "owner/name".
func SplitRepo(repo string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("repository %q: want OWNER/NAME", repo)
	}
	return owner, name, nil
}

// Ref names the record of pull request number in repo ("owner/name").
// GitHub treats owner and repository names case-insensitively, so the ref
// uses them in lower case: two clones whose remotes differ only in case
// share one record.
func Ref(repo string, number int) (string, error) {
	owner, name, err := SplitRepo(repo)
	if err != nil {
		return "", err
	}
	return refstore.PRRef(strings.ToLower(owner), strings.ToLower(name), number)
}

func label(repo string, number int) string { return repo + "#" + strconv.Itoa(number) }

// Read reads the record of pull request number in repo. A missing record is
// an error wrapping refstore.ErrNotFound.
func Read(ctx context.Context, st refstore.Records, repo string, number int) (Stored, error) {
	ref, err := Ref(repo, number)
	if err != nil {
		return Stored{}, err
	}
	e, err := st.Get(ctx, ref)
	if err != nil {
		if errors.Is(err, refstore.ErrNotFound) {
			return Stored{}, &UnownedError{Repo: repo, Number: number, err: refstore.ErrNotFound}
		}
		return Stored{}, err
	}
	return Decode(e)
}

// Find is Read for every pull request this clone can answer for: the live
// record, else the one the archive holds (package archive), marked
// Archived: a merged pull request's ownership retires there. Only for
// reads; writers use Read, so that an archived record is never changed
// and written back as a live one. A store other than git's has no
// archive: Find is Read there.
func Find(ctx context.Context, st refstore.Records, repo string, number int) (Stored, error) {
	s, err := Read(ctx, st, repo, number)
	gs, ok := st.(archive.Store)
	if !ok || !errors.Is(err, refstore.ErrNotFound) {
		return s, err
	}
	ref, rerr := Ref(repo, number)
	if rerr != nil {
		return Stored{}, rerr
	}
	e, month, aerr := findArchived(ctx, gs, repo, number)
	if errors.Is(aerr, refstore.ErrNotFound) {
		return Stored{}, err
	}
	if aerr != nil {
		return Stored{}, fmt.Errorf("%s in the archive: %w", label(repo, number), aerr)
	}
	rev := e.Ref
	e.Ref = ref
	out, derr := Decode(e)
	if derr != nil {
		return Stored{}, fmt.Errorf("archived in %s: %w", month, derr)
	}
	out.Ref, out.Archived = rev, month
	return out, nil
}

// findArchived finds the archived record of repo's pull request number:
// at the path in lower case, as its live ref is named (and retirement
// archives it), else as repo is written (archives of versions before
// that).
func findArchived(ctx context.Context, st archive.Store, repo string, number int) (refstore.Entry, string, error) {
	owner, name, err := SplitRepo(repo)
	if err != nil {
		return refstore.Entry{}, "", err
	}
	lower, err := archive.PRPath(strings.ToLower(owner), strings.ToLower(name), number)
	if err != nil {
		return refstore.Entry{}, "", err
	}
	e, month, err := archive.Find(ctx, st, lower)
	if !errors.Is(err, refstore.ErrNotFound) {
		return e, month, err
	}
	if asIs, perr := archive.PRPath(owner, name, number); perr == nil && asIs != lower {
		return archive.Find(ctx, st, asIs)
	}
	return e, month, err
}

// Decode reads one entry as an ownership record, refusing a record that
// belongs at another ref than e.Ref. Sync decodes with it too.
func Decode(e refstore.Entry) (Stored, error) {
	var r Record
	if err := refstore.Decode(e, Schema, &r); err != nil {
		return Stored{}, err
	}
	if want, err := Ref(r.Repo, r.Number); err != nil || want != e.Ref {
		return Stored{}, fmt.Errorf("%w: %s holds the record of %s, which belongs elsewhere", refstore.ErrInvalidRecord, e.Ref, label(r.Repo, r.Number))
	}
	return Stored{Record: r, Ref: e.Ref, OID: e.OID}, nil
}

// Warning is an ownership record that could not be read (refstore.Skipped).
type Warning = refstore.Skipped

// List reads every ownership record through one git process, in ref order.
func List(ctx context.Context, st refstore.Records) ([]Stored, []Warning, error) {
	out, warns, err := refstore.ListDecoded(ctx, st, refstore.PRPrefix, Decode)
	if err != nil {
		return nil, nil, fmt.Errorf("listing pull request owners: %w", err)
	}
	return out, warns, nil
}

// update builds the swap that stores r in place of old (old.OID "" = create).
func update(ctx context.Context, st refstore.Writer, r Record, old Stored) (refstore.Update, error) {
	ref, err := Ref(r.Repo, r.Number)
	if err != nil {
		return refstore.Update{}, err
	}
	r.Schema = Schema
	if r.History == nil {
		r.History = []Transfer{}
	}
	oid, _, err := refstore.WriteVersion(ctx, st, ref, old.OID, &r.Cause, &r)
	if err != nil {
		return refstore.Update{}, fmt.Errorf("%s: %w", label(r.Repo, r.Number), err)
	}
	return refstore.Update{Ref: ref, New: oid, Old: old.OID}, nil
}

// pointsAt reports whether a session's pointer names this pull request.
func pointsAt(p *session.PRPointer, repo string, number int) bool {
	return p != nil && p.Number == number && strings.EqualFold(p.Repo, repo)
}

// oneLine keeps a reason to one short line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// RecordSchema is the schema the record carried (refstore.Versioned).
func (r Record) RecordSchema() string { return r.Schema }
