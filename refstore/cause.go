package refstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ConflictReflog starts the reflog message of every local write the join
// made by a tie-break between concurrent versions ("handoff: sync conflict
// from <remote>: kept <id> over <id>"): the old side of that entry is the
// version dropped. `git handoff log` shows such entries as conflicts.
const ConflictReflog = "handoff: sync conflict"

// ArbiterKey is the git config key naming the one remote that arbitrates
// claims; the causal clock reads that remote's copies first.
const ArbiterKey = "handoff.arbiter"

// Cause is where a version of a record stands among the versions of its
// key: Rev is one more than the highest rev of that key this clone had seen
// when it wrote the version, Prev the blob id of the version it replaced
// ("" when it created the key). Sync orders versions by it instead of by
// wall clocks: a version written after seeing another has the higher rev,
// and its prev chain leads back to what it replaced. A record written
// before revs existed has rev 0, the oldest.
//
// Every record kind embeds a Cause inline ("rev", "prev": not
// "supersedes", which a session record already uses for its lineage
// link), and every writer fills it through WriteVersion, so all kinds
// count the same way.
type Cause struct {
	Rev  uint64 `json:"rev,omitempty"`
	Prev string `json:"prev,omitempty"`
}

// RevOf reads the cause of a record blob without knowing its kind. A blob
// that is not a record has rev 0.
func RevOf(data []byte) Cause {
	var c Cause
	if json.Unmarshal(data, &c) != nil {
		return Cause{}
	}
	return c
}

// NextCause is the cause of a new version of ref that replaces the blob old
// ("" on create): rev one more than the highest rev of ref this clone has
// seen, in the version replaced and in the copies fetched from the remotes
// (the arbiter named by handoff.arbiter when set, else every remote). Only
// in-process reads of single refs: no listing.
func (s *Store) NextCause(ctx context.Context, ref, old string) (Cause, error) {
	var top uint64
	if old != "" {
		e, err := s.ReadObject(ctx, old)
		if err != nil {
			return Cause{}, fmt.Errorf("reading the version of %s being replaced: %w", ref, err)
		}
		top = RevOf(e.Data).Rev
	}
	remotes, err := s.causeRemotes(ctx)
	if err != nil {
		return Cause{}, err
	}
	for _, r := range remotes {
		tr, err := RemoteRef(r, ref)
		if err != nil {
			continue
		}
		e, err := s.Get(ctx, tr)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Cause{}, fmt.Errorf("reading %s: %w", tr, err)
		}
		if rev := RevOf(e.Data).Rev; rev > top {
			top = rev
		}
	}
	return Cause{Rev: top + 1, Prev: old}, nil
}

// WriteVersion stores v as the new version of the record at ref that
// replaces the blob old ("" on create): it sets *cause (which must point
// into v) with NextCause, encodes v and writes the blob. It returns the
// blob id and bytes.
func (s *Store) WriteVersion(ctx context.Context, ref, old string, cause *Cause, v any) (string, []byte, error) {
	c, err := s.NextCause(ctx, ref, old)
	if err != nil {
		return "", nil, err
	}
	*cause = c
	data, err := Encode(v)
	if err != nil {
		return "", nil, err
	}
	oid, err := s.WriteBlob(ctx, data)
	if err != nil {
		return "", nil, err
	}
	return oid, data, nil
}

// causeRemotes are the remotes whose copies the clock reads, looked up once
// per Store: the arbiter when handoff.arbiter names one, else every
// configured remote.
func (s *Store) causeRemotes(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	done, names := s.causeDone, s.causeNames
	s.mu.Unlock()
	if done {
		return names, nil
	}
	names, err := s.readCauseRemotes(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the remotes: %w", err)
	}
	s.mu.Lock()
	s.causeDone, s.causeNames = true, names
	s.mu.Unlock()
	return names, nil
}

func (s *Store) readCauseRemotes(ctx context.Context) ([]string, error) {
	if s.repo != nil {
		if cfg, err := s.repo.Storer.Config(); err == nil && cfg.Raw != nil {
			if a := cfg.Raw.Section("handoff").Option("arbiter"); a != "" {
				return []string{a}, nil
			}
			var out []string
			for _, sub := range cfg.Raw.Section("remote").Subsections {
				out = append(out, sub.Name)
			}
			return out, nil
		}
	}
	vals, err := s.Config(ctx, ArbiterKey)
	if err != nil {
		return nil, err
	}
	if a := strings.TrimSpace(vals[ArbiterKey]); a != "" {
		return []string{a}, nil
	}
	return s.Remotes(ctx)
}
