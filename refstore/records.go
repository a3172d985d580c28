package refstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Records is the narrow store the workflows' record core depends on: read
// a record, list a prefix, swap refs, write a blob, walk a record's
// history. *Store is its git-backed implementation; memstore keeps
// records in memory. Both run the conformance suite in recordstest, so
// that code written against Records means the same on either.
//
// Names and ids are checked alike in every implementation: a ref that
// CheckRef refuses, a prefix that CheckPrefix refuses and an update that
// CheckUpdates refuses are ErrBadName, whatever the store. The rest of a
// *Store (configuration, worktrees, HEAD, sync, signing) is git's and has
// no place here.
type Records interface {
	// Get reads the record at ref: ErrNotFound when ref does not exist.
	Get(ctx context.Context, ref string) (Entry, error)
	// ReadObject reads an object by its full id: ErrNotFound when the
	// store has none by that id (or oid is not an id of the store's
	// object format).
	ReadObject(ctx context.Context, oid string) (Entry, error)
	// RefIDs lists the refs under prefix with the ids they hold, in ref
	// order (bytewise), reading no object. A prefix matches a ref that
	// is the prefix itself, or continues it past a '/' (the prefix's last
	// byte or the ref's next one): refs/ao/a lists refs/ao/a/x, not
	// refs/ao/ab, as git for-each-ref does.
	RefIDs(ctx context.Context, prefix string) ([]RefID, error)
	// EachStreamed hands fn every ref under prefix (as RefIDs matches
	// them) with its object, in ref order. e.Data is valid only until fn
	// returns; an error from fn stops the listing and is returned.
	EachStreamed(ctx context.Context, prefix string, fn func(Entry) error) error
	// ReadEach hands fn the objects ids name, in the order given, each
	// with its ref (a missing object has Type TypeMissing): for a caller
	// that listed ids with RefIDs. e.Data is valid only until fn returns.
	ReadEach(ctx context.Context, ids []RefID, fn func(Entry) error) error
	// WriteBlob stores data as a blob and returns its id, as git hash-object
	// computes it: ErrTooLarge over MaxRecord.
	WriteBlob(ctx context.Context, data []byte) (string, error)
	// Apply swaps every update or none: a lost swap is a *ConflictError
	// (wrapping ErrConflict) naming the first ref, in the order given,
	// that did not hold its Old value.
	Apply(ctx context.Context, msg string, updates ...Update) error
	// ApplyEach swaps each update on its own: each ref moves if and only
	// if it held its Old value (and the store could make the swap). Having
	// tried every update, it returns the first refused for another reason
	// than a lost swap (that one needs the user), else the first lost swap
	// as a *ConflictError (that one only needs deciding again).
	ApplyEach(ctx context.Context, msg string, updates ...Update) error
	// History calls fn with each version of a record, newest first, from
	// the blob tip along the "prev" ids the versions name (WalkHistory).
	History(ctx context.Context, tip string, fn func(Entry) bool) error
}

var _ Records = (*Store)(nil)

// Object formats, as git names them (extensions.objectFormat).
const (
	FormatSHA1   = "sha1"
	FormatSHA256 = "sha256"
)

// HexLen is the length of a full object id in format (sha1 or sha256).
func HexLen(format string) int {
	if format == FormatSHA256 {
		return 64
	}
	return 40
}

// IsID reports whether id is a full object id of n hex digits, lower case
// as git prints them.
func IsID(id string, n int) bool {
	if len(id) != n {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// CheckUpdates refuses, as ErrBadName, a set of updates no store carries
// out: a ref CheckRef refuses, a ref updated twice, an id that is not a
// full id of n hex digits (n: HexLen of the store's format; "" stands for
// "absent"), or a delete of a ref expected absent (git refuses it: there
// is nothing to delete).
func CheckUpdates(updates []Update, n int) error {
	seen := make(map[string]bool, len(updates))
	for _, u := range updates {
		if err := CheckRef(u.Ref); err != nil {
			return err
		}
		if seen[u.Ref] {
			return fmt.Errorf("%w: %s is updated twice in one transaction", ErrBadName, u.Ref)
		}
		seen[u.Ref] = true
		for _, id := range []string{u.New, u.Old} {
			if id != "" && (!IsID(id, n) || strings.Trim(id, "0") == "") {
				return fmt.Errorf("%w: %s: %q is not an object id (%d hex digits)", ErrBadName, u.Ref, id, n)
			}
		}
		if u.New == "" && u.Old == "" {
			return fmt.Errorf("%w: %s: a delete needs the id the ref holds", ErrBadName, u.Ref)
		}
	}
	return nil
}

// UnderPrefix reports whether a listing of prefix includes ref: ref is
// the prefix, or continues it past a '/' (git for-each-ref's rule for a
// pattern without wildcards).
func UnderPrefix(ref, prefix string) bool {
	if prefix == "" || !strings.HasPrefix(ref, prefix) {
		return false
	}
	return len(ref) == len(prefix) || prefix[len(prefix)-1] == '/' || ref[len(prefix)] == '/'
}

// WalkHistory calls fn with each version of a record, newest first: the
// blob tip (read with read), then the version its "prev" names, and so on,
// for as long as read finds the objects and fn returns true. A version
// over MaxRecord (no Data) ends the walk before fn sees it. Every store's
// History is this walk.
func WalkHistory(ctx context.Context, read func(context.Context, string) (Entry, error), tip string, fn func(Entry) bool) error {
	seen := map[string]bool{}
	for cur := tip; cur != "" && !seen[cur]; {
		seen[cur] = true
		e, err := read(ctx, cur)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrMissingObject) {
			return nil // gc pruned it, or it was never fetched: history ends here
		}
		if err != nil {
			return err
		}
		if e.Data == nil || !fn(e) {
			return nil
		}
		cur = RevOf(e.Data).Prev
	}
	return nil
}
