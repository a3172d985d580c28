package lease

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Expiry without trusting clocks across machines.
//
// The rule: a held lease is free for a contender once the contender has
// seen the SAME version of it (one blob id) unchanged for the lease's TTL,
// measured by the contender's own clock from the moment it first saw that
// version. The first sighting is a local note of the contender's clone
// (seenNote: version and time), never a field of the shared record, so no
// machine ever compares its clock with another's: only differences of one
// clock are taken, and a skew of hours between machines changes nothing.
//
// The holder renews by writing a new version (a new blob id, since every
// version's cause differs) once half the TTL has passed since its own
// last write, by its own clock (RenewDue); a renewal is a swap at the
// board like any other write.
//
// Why no two sessions both hold a key while each believes it does,
// assuming the clocks run at about the same rate (offsets arbitrary) and
// a renewal reaches the board within TTL/2 of being due:
//
//  1. A holder believes it holds the key only until TTL after its last
//     write, by its own clock (Fresh), counted from a reading taken just
//     before the swap was sent (plan.commit): no later than the moment
//     the board took the version. A holder whose renewals fail stops
//     believing at that moment, whatever the others do.
//  2. A contender takes over version V only after seeing V for a whole
//     TTL by its clock. The board took V before the contender first saw
//     it, so the takeover comes at least TTL (real time) after that:
//     after the holder of V stopped believing (1), unless the holder
//     wrote another version since — and then the board holds that one.
//     The same holds for a path lease overlapping V's: a take passing an
//     expired V writes V broken in the same swap.
//  3. The takeover is a swap from V at the board. If the holder renewed,
//     the board no longer holds V and the swap loses; the contender
//     re-reads, sees a new version, and its clock for it starts again.
//     So a holder that keeps renewing (every TTL/2, within its margin)
//     is never taken over, whatever the clocks say.
//
// A clock that steps backwards below a first sighting restarts it
// (longer wait: safe); a clone that loses its notes starts over (safe).

// seenNote names the note keeping when this clone first saw a version of
// ref.
func seenNote(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return "leases/seen/" + hex.EncodeToString(sum[:8])
}

// readSeen reads the note of ref: the version, when it was first seen,
// and whether this clone wrote it (its write landed then) rather than
// only saw it.
func readSeen(l refstore.NoteReader, ref string) (string, time.Time, bool, bool) {
	b, err := l.Read(seenNote(ref))
	if err != nil {
		return "", time.Time{}, false, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return "", time.Time{}, false, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return "", time.Time{}, false, false
	}
	return f[0], time.Unix(0, n), len(f) > 2 && f[2] == wroteMark, true
}

// wroteMark ends the note of a version this clone wrote. Only such a note
// lets the holder believe (Fresh): a sighting of its own version, noted
// by a reader (a brief, a listing) after a sighting of another's, would
// restart the holder's TTL on a lease already taken over (found by the
// simulation, seed 29 with continuation).
const wroteMark = "wrote"

// Seen is when this clone first saw version oid of ref, by its own clock:
// the note's time when the note names oid and is not in the future, else
// now, noted.
func Seen(ctx context.Context, l refstore.Local, ref, oid string, now time.Time) (time.Time, error) {
	if got, at, _, ok := readSeen(l, ref); ok && got == oid && !now.Before(at) {
		return at, nil
	}
	if err := noteSeen(ctx, l, ref, oid, now, false); err != nil {
		return time.Time{}, err
	}
	return now, nil
}

func noteSeen(ctx context.Context, l refstore.Local, ref, oid string, now time.Time, wrote bool) error {
	line := oid + " " + strconv.FormatInt(now.UnixNano(), 10)
	if wrote {
		line += " " + wroteMark
	}
	if err := l.Write(ctx, seenNote(ref), []byte(line+"\n")); err != nil {
		return fmt.Errorf("noting when this clone saw the lease %s: %w", ref, err)
	}
	return nil
}

// Expiry is what this clone's clock says of a version held by another.
type Expiry struct {
	FirstSeen time.Time // by this clone's clock
	FreesAt   time.Time // FirstSeen + TTL, by this clone's clock
	Expired   bool      // now is at or past FreesAt
}

// expiryOf notes and judges version cur of a lease held by another.
func expiryOf(ctx context.Context, l refstore.Local, cur Stored, now time.Time) (Expiry, error) {
	first, err := Seen(ctx, l, cur.Ref, cur.OID, now)
	if err != nil {
		return Expiry{}, err
	}
	frees := first.Add(cur.TTL())
	return Expiry{FirstSeen: first, FreesAt: frees, Expired: !now.Before(frees)}, nil
}

// RenewDue reports whether the holder should write a new version of cur:
// this clone wrote cur at least half its TTL ago, by its own clock, or
// has no note of writing it (it was written elsewhere: a successor on
// another machine renews at once, without reading the writer's clock).
// It reads this clone's notes (a Store's Local, or refstore.NotesIn of
// the common dir) and nothing else, so a hook can ask it of every lease.
func RenewDue(l refstore.NoteReader, cur Stored, now time.Time) bool {
	oid, at, wrote, ok := readSeen(l, cur.Ref)
	if !ok || !wrote || oid != cur.OID || now.Before(at) {
		return true
	}
	return now.Sub(at) >= cur.TTL()/2
}

// Fresh reports whether the holder may still believe it holds version cur:
// less than its TTL has passed, by this clone's clock, since this clone
// wrote it (noted when the write landed). A version this clone has no note
// of is not fresh: the holder renews before relying on it.
func Fresh(l refstore.Local, cur Stored, now time.Time) bool {
	oid, at, wrote, ok := readSeen(l, cur.Ref)
	return ok && wrote && oid == cur.OID && !now.Before(at) && now.Sub(at) < cur.TTL()
}
