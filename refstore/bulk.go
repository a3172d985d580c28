package refstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
)

// ApplyEach performs updates as independent compare-and-swaps: each ref
// moves if and only if it held its Old value, whatever happens to the
// others. It is for batches whose refs do not depend on each other (sync and
// the lazy merge join every key on its own), where one lost key only means
// deciding that key again. After trying every update it returns the first
// that stayed locked or was refused (an object the repository lacks, a
// name taken by a ref's path: ErrMissingObject, ErrBadName), else the
// first lost swap as a *ConflictError; any other error at once.
func (s *Store) ApplyEach(ctx context.Context, msg string, updates ...Update) error {
	s.forgetBinding() // as Apply does
	if err := CheckUpdates(updates, HexLen(s.layout.objectFormat)); err != nil {
		return err
	}
	if len(updates) > 0 {
		s.ensureGCConfig(ctx) // a clone whose records all come by sync writes them here
	}
	return s.applyEachByGit(ctx, msg, updates)
}

// applyEachByGit gives updates to git. One transaction is all or nothing,
// so when it loses a swap, or meets a lock that stays, the others are
// retried without that one: the result is the same as swapping each on its
// own. Each transaction is journaled like Apply's, so a git killed in the
// middle is settled by the next command (either way is right for
// independent swaps).
func (s *Store) applyEachByGit(ctx context.Context, msg string, updates []Update) error {
	var lost, hard error
	files := s.filesBackend()
	for len(updates) > 0 {
		var j *journal
		if files {
			var err error
			if j, err = s.beginJournal(ctx, reflogMsg(msg), updates); err != nil {
				return err
			}
		}
		err := s.applyGit(ctx, msg, updates, j, true)
		if err == nil {
			break
		}
		drop := ""
		var ce *ConflictError
		var le *LockedError
		var re *refusedError
		switch {
		case errors.As(err, &re):
			drop = re.ref
			if hard == nil {
				hard = err
			}
		case errors.As(err, &ce):
			drop = ce.Ref
			if lost == nil {
				lost = err
			}
		case errors.As(err, &le):
			for _, u := range updates {
				if le.Path == filepath.Join(s.commonDir, filepath.FromSlash(u.Ref)+".lock") {
					drop = u.Ref
				}
			}
			if hard == nil {
				hard = err
			}
		}
		if drop == "" {
			return err
		}
		rest := updates[:0:0]
		for _, u := range updates {
			if u.Ref != drop {
				rest = append(rest, u)
			}
		}
		updates = rest
	}
	// A lock that stays, or an update git refuses, needs the user; a lost
	// swap only needs deciding again.
	if hard != nil {
		return hard
	}
	return lost
}

// reflogMsg tidies msg as git does before logging it: runs of ASCII
// whitespace become one space, none at either end.
func reflogMsg(msg string) string {
	return strings.Join(strings.FieldsFunc(msg, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}), " ")
}
