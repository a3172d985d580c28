package refstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
//
// Seen is a version vector: for every clone that wrote a version this one
// descends from, how many of its writes it descends from. Rev orders (a
// total order, the same on every clone); Seen tells, from the two records
// alone, whether one version was written after seeing the other or the two
// were written without seeing each other, which the join then reports as a
// conflict. A prev chain could only tell that with every intermediate blob
// at hand, and fetches bring only tips.
//
// Back names the versions before Prev and the remotes' versions this one
// was written after seeing (the copies NextCause read), newest first, by
// the first BackIDLen hex digits of their blob ids, up to MaxBack of
// them: whether a remote held one exact blob (a claim a process died
// before it heard the answer to) must be answerable from what the remote
// holds now, and a fetch brings only the tip, not the blobs between (found
// by the simulation: a claim that landed, then two versions written over
// it before the next start of its clone, was taken for refused and its
// baton delivered to nobody; and a version written over a stale local copy
// after seeing the claim at the remote).
//
// JumpBy and JumpBase are set when this clone's count jumped: its own count in
// Seen is one past the highest it ever issued for the key (issued.go),
// above what the versions this one builds on carry (JumpBase). The counts in
// between are other writes of this clone's that this version did not see
// (a concurrent process's end while a start claimed the baton the end
// replaced): Descends does not count them as covered (found by the soak:
// such a claim silently replaced the end's newer baton).
type Cause struct {
	Rev  uint64            `json:"rev,omitempty"`
	Prev string            `json:"prev,omitempty"`
	Back []string          `json:"back,omitempty"`
	Seen map[string]uint64 `json:"seen,omitempty"`
	// JumpBy is the writer whose count jumped (its WriterID), JumpBase
	// its count in what this version builds on.
	JumpBy   string `json:"jumpBy,omitempty"`
	JumpBase uint64 `json:"jumpBase,omitempty"`
}

// MaxBack and BackIDLen bound Back: 24 versions of 16 hex digits each, a
// few hundred bytes a version. 64 bits tell apart the versions of one key.
const (
	MaxBack   = 24
	BackIDLen = 16
)

// Follows reports whether this version was written over the blob oid
// (Prev), or after it (Back: up to MaxBack versions before, or seen at a
// remote).
func (c Cause) Follows(oid string) bool {
	if oid == "" {
		return false
	}
	if c.Prev == oid {
		return true
	}
	return slices.Contains(c.Back, shortID(oid))
}

// backOf is Back for a version replacing one with cause c.
func backOf(c Cause) []string {
	var back []string
	if c.Prev != "" {
		back = append(back, shortID(c.Prev))
	}
	return append(back, c.Back...)
}

func shortID(oid string) string { return oid[:min(len(oid), BackIDLen)] }

// joinBack is the lists in order, each id once, at most MaxBack.
func joinBack(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, id := range l {
			if len(out) == MaxBack {
				return out
			}
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// Descends reports whether a version with cause c was written after seeing
// (directly or through others) the version with cause o: c's vector covers
// o's and counts at least one write more. ok is false when either has no vector (a record older than vectors),
// and then the vectors say nothing.
func (c Cause) Descends(o Cause) (descends, ok bool) {
	if len(c.Seen) == 0 || len(o.Seen) == 0 {
		return false, false
	}
	for w, n := range o.Seen {
		if c.Seen[w] < n || w == c.JumpBy && n > c.JumpBase && n < c.Seen[w] {
			return false, true
		}
	}
	// Covering is not enough: two versions one clone wrote from the same
	// base (two processes racing, one of which loses its swap) have equal
	// vectors, and neither saw the other. Descending takes one more write.
	for w, n := range c.Seen {
		if n > o.Seen[w] {
			return true, true
		}
	}
	return false, true
}

func mergeSeen(into map[string]uint64, from map[string]uint64) {
	for w, n := range from {
		if n > into[w] {
			into[w] = n
		}
	}
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
// single reads: no listing.
//
// Seen is the union of those versions' vectors with this clone's own count
// one higher: the new version descends from everything this clone has seen
// of the key.
func NextCause(ctx context.Context, w Writer, ref, old string) (Cause, error) {
	var top uint64
	var back, seenThere, seenBack []string
	seen := map[string]uint64{}
	if old != "" {
		e, err := w.ReadObject(ctx, old)
		if err != nil {
			return Cause{}, fmt.Errorf("reading the version of %s being replaced: %w", ref, err)
		}
		c := RevOf(e.Data)
		top = c.Rev
		back = backOf(c)
		mergeSeen(seen, c.Seen)
	}
	remotes, err := clockRemotes(ctx, w)
	if err != nil {
		return Cause{}, err
	}
	for _, r := range remotes {
		tr, err := RemoteRef(r, ref)
		if err != nil {
			continue
		}
		e, err := w.Get(ctx, tr)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Cause{}, fmt.Errorf("reading %s: %w", tr, err)
		}
		c := RevOf(e.Data)
		if c.Rev > top {
			top = c.Rev
		}
		mergeSeen(seen, c.Seen)
		if e.OID != old {
			// Written after seeing what the remote held: a version the
			// remote held counts as one this one follows (Follows), as
			// its prev does, though it is not the one replaced here.
			seenThere = append(seenThere, shortID(e.OID))
			seenBack = append(seenBack, backOf(c)...)
		}
	}
	back = joinBack(seenThere, back, seenBack)
	local := w.Local()
	me, err := WriterID(ctx, local)
	if err != nil {
		return Cause{}, err
	}
	// This clone's count must never repeat for the key: a version of ours
	// that lost a join is in no version we build on, so counting from
	// those alone would give the next write the dropped one's count, and
	// a teammate's version that descends from the dropped one would then
	// seem to follow the new one, which the join would drop unreported
	// (found by the soak). The high-water mark of what this clone issued
	// for the key is a local note (issued.go).
	hw := issued(local, ref)
	base := seen[me]
	if seen[me] < hw {
		seen[me] = hw
	}
	seen[me]++
	by := ""
	if seen[me] > base+1 {
		by = me
	} else {
		base = 0
	}
	if seen[me] > hw {
		// Two processes writing the key at once may both write it: each
		// wrote a count the other reads as at least its own base, which
		// is all the mark must give. A mark that could not be raised
		// fails the write: once retirement takes the version that carries
		// this count, the next version of the key would issue it again,
		// look like what it follows, and win a join it should have been
		// reported in (found by the simulation, a note write failing).
		if err := raiseIssued(ctx, local, ref, seen[me]); err != nil {
			return Cause{}, fmt.Errorf("noting this clone's count for %s: %w", ref, err)
		}
	}
	return Cause{Rev: top + 1, Prev: old, Back: back, Seen: seen, JumpBy: by, JumpBase: base}, nil
}

// writerNote names this clone in version vectors.
const writerNote = "writer"

// WriterID names this clone in version vectors: a random id kept as a
// local note (so every worktree of the clone is one writer, which is safe
// because their writes of one key are serialised by its ref's swap). Of
// two processes naming the clone at once, the first to write wins and both
// read its name.
func WriterID(ctx context.Context, l Local) (string, error) {
	if b, err := l.Read(writerNote); err == nil && len(bytes.TrimSpace(b)) > 0 {
		return string(bytes.TrimSpace(b)), nil
	}
	var buf [6]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return "", err
	}
	unlock, err := l.Lock(ctx, writerNote+".lock")
	if err != nil {
		return "", fmt.Errorf("naming this clone: %w", err)
	}
	defer unlock()
	if b, err := l.Read(writerNote); err == nil && len(bytes.TrimSpace(b)) > 0 {
		return string(bytes.TrimSpace(b)), nil
	}
	fresh := hex.EncodeToString(buf[:])
	if err := l.Write(ctx, writerNote, []byte(fresh+"\n")); err != nil {
		return "", fmt.Errorf("naming this clone: %w", err)
	}
	return fresh, nil
}

// WriteVersion stores v as the new version of the record at ref that
// replaces the blob old ("" on create): it sets *cause (which must point
// into v) with NextCause, encodes v, seals it (signing, when handoff.sign
// says so) and writes the blob. It returns the blob id and bytes.
func WriteVersion(ctx context.Context, w Writer, ref, old string, cause *Cause, v any) (string, []byte, error) {
	c, err := NextCause(ctx, w, ref, old)
	if err != nil {
		return "", nil, err
	}
	*cause = c
	data, err := Encode(v)
	if err != nil {
		return "", nil, err
	}
	if data, err = w.Seal(ctx, data); err != nil {
		return "", nil, err
	}
	oid, err := w.WriteBlob(ctx, data)
	if err != nil {
		return "", nil, err
	}
	return oid, data, nil
}

// clockRemotes are the remotes whose copies the clock reads: the arbiter
// when handoff.arbiter names one, else every configured remote.
func clockRemotes(ctx context.Context, c Config) ([]string, error) {
	vals, err := c.Config(ctx, ArbiterKey)
	if err != nil {
		return nil, fmt.Errorf("reading the remotes: %w", err)
	}
	if a := strings.TrimSpace(vals[ArbiterKey]); a != "" {
		return []string{a}, nil
	}
	names, err := c.Remotes(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the remotes: %w", err)
	}
	return names, nil
}
