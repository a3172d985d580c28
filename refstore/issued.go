package refstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// The issued marks: for every key this clone ever wrote, the highest
// count it issued for it in version vectors (NextCause says why a mark
// must outlive the versions that carry it). Every session is a key of its
// own, so the marks grow with the clone's history: a file per key, as
// releases before this one kept them ("issued/<hash>"), cost a block of
// disk each, 400 MB for a year of 100,000 sessions. They are kept in 256
// files instead, a key's in the one its hash picks ("marks/<xx>", a line
// "<hash> <count>" per key, sorted), rewritten whole under a lock, so
// that two processes raising marks in one file at once lose neither:
// about 3 MB for that year.

// issuedBuckets is how many files hold the marks.
const issuedBuckets = 256

// issuedKey is the mark's name for ref: the first 8 bytes of its SHA-256,
// hex, as the per-key note of earlier releases was named.
func issuedKey(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return hex.EncodeToString(sum[:8])
}

// issuedBucket is the file holding key's mark, and legacyIssued the note
// an earlier release kept it in.
func issuedBucket(key string) string { return "marks/" + key[:2] }
func legacyIssued(key string) string { return "issued/" + key }

// issuedLock is the lock a bucket is rewritten under: one for every 16
// buckets (its first hex digit), so that the locks add 16 files, not 256.
func issuedLock(bucket string) string { return bucket[:len(bucket)-1] + ".lock" }

// readMarks parses a bucket: key to count. A line that does not parse
// is skipped (no write leaves one: the file is replaced whole).
func readMarks(l NoteReader, bucket string) map[string]uint64 {
	b, err := l.Read(bucket)
	if err != nil {
		return map[string]uint64{}
	}
	marks := make(map[string]uint64, bytes.Count(b, []byte{'\n'}))
	for _, line := range strings.Split(string(b), "\n") {
		key, n, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if c, err := strconv.ParseUint(n, 10, 64); err == nil && c > marks[key] {
			marks[key] = c
		}
	}
	return marks
}

// legacyMark is the count an earlier release noted for key in a file of
// its own; 0 when none.
func legacyMark(l NoteReader, key string) uint64 {
	b, err := l.Read(legacyIssued(key))
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	return n
}

// issued is the highest count this clone issued for ref; 0 when unknown.
func issued(l NoteReader, ref string) uint64 {
	key := issuedKey(ref)
	return max(readMarks(l, issuedBucket(key))[key], legacyMark(l, key))
}

// raiseIssued notes n as issued for ref, keeping a higher mark already
// there (two processes raising one mark at once leave the higher).
func raiseIssued(ctx context.Context, l Local, ref string, n uint64) error {
	key := issuedKey(ref)
	return foldMarks(ctx, l, issuedBucket(key), map[string]uint64{key: n})
}

// foldMarks raises the marks of one bucket to at least what adds says,
// under the bucket's lock, and then removes the per-key notes of an
// earlier release it took in (a crash between leaves a note the bucket
// already covers).
func foldMarks(ctx context.Context, l Local, bucket string, adds map[string]uint64) error {
	unlock, err := l.Lock(ctx, issuedLock(bucket))
	if err != nil {
		return err
	}
	defer unlock()
	marks := readMarks(l, bucket)
	changed := false
	for key, n := range adds {
		n = max(n, legacyMark(l, key))
		if n > marks[key] {
			marks[key], changed = n, true
		}
	}
	if changed {
		keys := make([]string, 0, len(marks))
		for k := range marks {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %d\n", k, marks[k])
		}
		if err := l.Write(ctx, bucket, []byte(b.String())); err != nil {
			return err
		}
	}
	for key := range adds {
		if err := l.Remove(legacyIssued(key)); err != nil {
			return err
		}
	}
	return nil
}

// FoldIssued moves the marks an earlier release kept a file each
// ("issued/<hash>") into their buckets and removes those files, bucket by
// bucket: once, on the first sync after an upgrade, for a clone with
// years of sessions (a missing directory costs one read of it). What
// fails is left for the next sync; issued reads both meanwhile.
func FoldIssued(ctx context.Context, l Local) error {
	names, err := l.List("issued")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	byBucket := map[string]map[string]uint64{}
	for _, key := range names {
		if len(key) != 16 || strings.Trim(key, "0123456789abcdef") != "" {
			continue // a temp file of a write in flight, or not ours
		}
		bucket := issuedBucket(key)
		if byBucket[bucket] == nil {
			byBucket[bucket] = map[string]uint64{}
		}
		byBucket[bucket][key] = 0 // foldMarks reads the note's count
	}
	buckets := make([]string, 0, len(byBucket))
	for b := range byBucket {
		buckets = append(buckets, b)
	}
	sort.Strings(buckets)
	for _, b := range buckets {
		if err := foldMarks(ctx, l, b, byBucket[b]); err != nil {
			return fmt.Errorf("folding this clone's issued marks into %s: %w", b, err)
		}
	}
	// The directory, once empty, goes too (an older release's process
	// that wrote a note meanwhile keeps it for the next sync).
	_ = l.Remove("issued")
	return nil
}
