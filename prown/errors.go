package prown

import (
	"fmt"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/refstore"
)

// UnownedError: nobody owns the pull request (no record, or released). It
// wraps refstore.ErrNotFound.
type UnownedError struct {
	Repo     string
	Number   int
	Released string // the session that released it, when it was released
	err      error
}

func (e *UnownedError) Error() string {
	msg := fmt.Sprintf("nobody owns %s", label(e.Repo, e.Number))
	if e.Released != "" {
		msg += fmt.Sprintf(" (session %q released it)", e.Released)
	}
	return msg
}

func (e *UnownedError) Unwrap() error { return refstore.ErrNotFound }

// OwnedError: another active session owns the pull request and takeover was
// not allowed. It wraps refstore.ErrConflict.
type OwnedError struct {
	Repo   string
	Number int
	Owner  string
}

func (e *OwnedError) Error() string {
	return fmt.Sprintf("%s is owned by active session %q", label(e.Repo, e.Number), e.Owner)
}

func (e *OwnedError) Unwrap() error { return refstore.ErrConflict }

// MergedError: the record says the pull request was merged; its ownership is
// history. It wraps prdata.ErrNotOpen.
type MergedError struct {
	Repo   string
	Number int
	Owner  string
}

func (e *MergedError) Error() string {
	msg := fmt.Sprintf("%s was merged", label(e.Repo, e.Number))
	if e.Owner != "" {
		msg += fmt.Sprintf(" (owned by %q)", e.Owner)
	}
	return msg + ": its ownership is final"
}

func (e *MergedError) Unwrap() error { return prdata.ErrNotOpen }

// BusyError: the claiming session already owns another pull request (a
// session's record points at one). It wraps refstore.ErrConflict.
type BusyError struct {
	Session string
	Repo    string
	Number  int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("session %q already owns %s", e.Session, label(e.Repo, e.Number))
}

func (e *BusyError) Unwrap() error { return refstore.ErrConflict }

// InactiveError: only an active session can become an owner.
type InactiveError struct {
	Session string
	Status  string
	Live    string // the newest session of its line, when it was replaced
}

func (e *InactiveError) Error() string {
	msg := fmt.Sprintf("session %q is %s: only an active session can own a pull request", e.Session, e.Status)
	if e.Live != "" && e.Live != e.Session {
		msg += fmt.Sprintf(" (its line now ends at %q)", e.Live)
	}
	return msg
}
