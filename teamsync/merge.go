package teamsync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/refstore"
	recsign "github.com/git-handoff/git-handoff/sign"
)

// version is one side's record for a key: its blob id, bytes and decoded
// value, of its kind's own type (recordKind).
type version struct {
	oid  string
	data []byte
	rec  any
}

// read decodes entry e found at ref (a local ref, or a tracking ref whose
// record belongs at local) into a version.
func read(k *kind, local string, e refstore.Entry) (*version, error) {
	e.Ref = local
	rec, err := k.decode(e)
	if err != nil {
		return nil, err
	}
	return &version{oid: e.OID, data: e.Data, rec: rec}, nil
}

// lookup reads the cause of a blob by id, for walking a prev chain;
// false when the blob is not here. A nil lookup knows no blob.
type lookup func(oid string) (refstore.Cause, bool)

// storeLookup looks blobs up in st.
func storeLookup(ctx context.Context, st refstore.Records) lookup {
	return func(oid string) (refstore.Cause, bool) {
		e, err := st.ReadObject(ctx, oid)
		if err != nil || e.Data == nil {
			return refstore.Cause{}, false
		}
		return refstore.RevOf(e.Data), true
	}
}

// maxWalk bounds a walk down a prev chain: a clone that wrote more
// versions of one key than this between two syncs is not told of a fork.
const maxWalk = 64

type relation int

const (
	unknown relation = iota // the chain ends before it says
	follows                 // the later version's chain reaches the earlier one
	forked                  // the chain holds another version of the earlier one's rev
)

// relate walks w's prev chain down to l's rev.
func relate(w refstore.Cause, l *version, lc refstore.Cause, look lookup) relation {
	cur := w.Prev
	for range maxWalk {
		if cur == "" {
			return unknown
		}
		if cur == l.oid {
			return follows
		}
		if look == nil {
			return unknown
		}
		c, ok := look(cur)
		switch {
		case !ok:
			return unknown
		case c.Rev == lc.Rev && lc.Rev > 0:
			return forked // cur and l: two versions of one rev, neither saw the other
		case c.Rev <= lc.Rev:
			return unknown // jumped past l's rev: its writer may have seen l fetched
		}
		cur = c.Prev
	}
	return unknown
}

// concurrent reports whether keeping w over l was a tie-break between
// versions written without seeing each other (or a rule of the kind
// overruling a later write), rather than w following l. Such a decision is
// reported as a conflict.
func concurrent[T any](k *recordKind[T], w, l *version, look lookup) bool {
	wr, lr := recOf[T](w), recOf[T](l)
	if bytes.Equal(canonical(wr), canonical(lr)) {
		return false
	}
	wc, lc := k.causeOf(wr), k.causeOf(lr)
	if wc.Rev == 0 && lc.Rev == 0 {
		return !k.ordered(wr, lr) // both older than revs: the old rules
	}
	if wc.Rev <= lc.Rev {
		return true // one rev: concurrent; l's higher: a final state overruled it
	}
	if d, ok := wc.Descends(lc); ok {
		// The vectors tell exactly: w was written after seeing l, or
		// without seeing it.
		return !d
	}
	switch relate(wc, l, lc, look) {
	case follows:
		return false
	case forked:
		return true
	}
	return k.undoes(wr, lr)
}

// extends reports whether the claimed baton c may replace theirs at the
// arbiter: it claims the same waiting baton, or was written after theirs
// (its chain reaches it). A chain that ends before saying falls back to
// the clock, as before revs.
func extends(c, theirs *version, look lookup) bool {
	cb, tb := recOf[baton.Baton](c), recOf[baton.Baton](theirs)
	if cb.ID == tb.ID {
		return tb.Live()
	}
	if d, ok := cb.Cause.Descends(tb.Cause); ok {
		return d
	}
	switch relate(cb.Cause, theirs, tb.Cause, look) {
	case follows:
		return true
	case forked:
		return false
	}
	return baton.Newer(&cb, &tb)
}

// decision is the outcome of joining one key.
type decision struct {
	ref           string
	local, remote *version // nil = absent
	winner        *version // nil = the key goes away (collected)
	conflict      bool     // the two could not be ordered; a tie-break chose
	collected     bool
	withheld      bool // the remote dropped it since it was seen there: not pushed back (seen.go)
	unsettled     bool // a claim made here of the waiting baton it would push is not settled: not pushed (holdUnsettled)
	// retired is where a record retention removed goes (retire.go); nil
	// for a key that stays, or goes without retiring.
	retired *retirement
	// dropped is where the other baton a tie-break dropped at this key
	// goes, with the final versions only it carried: the archive, so that
	// no copy of it comes back and no claim is forgotten (archiveDropped).
	dropped []retirement
	// final is the winner this sync retired (winner is nil then): what
	// the join kept, for what is said of it (kept).
	final *version
	// archived is the archived version a local one lost to when the
	// remote no longer held the key (archiveView.outjoined): the other
	// side of its conflict.
	archived *version
}

// kept is the version the join kept: the winner, or the one this sync
// retired.
func (d *decision) kept() *version {
	if d.winner != nil {
		return d.winner
	}
	return d.final
}

// lost is the side the join did not keep: the local version when the
// remote's won, else the remote's (nil where that side is absent).
func (d *decision) lost() *version {
	if d.winner == d.remote {
		return d.local
	}
	return d.remote
}

func (d *decision) localChange() bool { return oidOf(d.winner) != oidOf(d.local) }
func (d *decision) remoteChange() bool {
	return !d.withheld && !d.unsettled && oidOf(d.winner) != oidOf(d.remote)
}

func oidOf(v *version) string {
	if v == nil {
		return ""
	}
	return v.oid
}

// decide joins the local and remote versions of one key. look finds
// the blobs of a prev chain, to tell a version that follows another
// from a concurrent one; it only ever changes whether a conflict is
// reported, never the winner, which depends on the two records alone.
func decide(k *kind, ref string, l, r *version, look lookup) decision {
	d := decision{ref: ref, local: l, remote: r}
	k.decide(&d, look)
	return d
}

// joinKey decides d (decide) by the rules of the versions' kind.
func joinKey[T any](k *recordKind[T], d *decision, look lookup) {
	l, r := d.local, d.remote
	switch {
	case l == nil && r == nil:
	case l == nil:
		d.winner = r
	case r == nil:
		d.winner = l
	case l.oid == r.oid:
		d.winner = l
	default:
		c, _ := decideBy(k.rules, recOf[T](l), recOf[T](r))
		if c == 0 {
			// Equal records in different blobs: a signed copy beats an
			// unsigned one, so stripping a record's signature never
			// wins a sync; then the blob id decides. Whether a
			// signature is good is not asked here: that depends on each
			// clone's trust, and the join must be the same everywhere.
			if c = cmpBool(recsign.Signed(l.data), recsign.Signed(r.data)); c == 0 {
				c = strings.Compare(l.oid, r.oid)
			}
		}
		var loser *version
		d.winner, loser = r, l
		if (c > 0) != simdefect.On(simdefect.JoinPrefersOlder) { // planted defect (package sim), off without the simdefects tag
			d.winner, loser = l, r
		}
		d.conflict = concurrent(k, d.winner, loser, look)
	}
	if l != nil && simdefect.On(simdefect.SyncDropsRemoteNewer) { // planted defect (package sim), off without the simdefects tag
		d.winner = l
	}
}

// whyKept says why win was kept over lose: the rule of their kind that
// told them apart, else the tie-breaks decide applies to equal records.
func whyKept(k *kind, win, lose *version) string {
	if why := k.why(win, lose); why != "" {
		return why
	}
	if recsign.Signed(win.data) && !recsign.Signed(lose.data) {
		return "the two say the same, and a signed copy beats an unsigned one"
	}
	return "the two say the same: a fixed tie-break on the blob ids chose it (the same on every clone)"
}

// conflictMsg is the reflog message of a local write that settles conflict
// d with the remote's version (refstore.ConflictReflog).
func conflictMsg(d *decision, remote string) string {
	return fmt.Sprintf("%s from %s: kept %s over %s", refstore.ConflictReflog, remote, oidOf(d.kept()), oidOf(d.local))
}

// Diff renders two records line by line, "-" for the first and "+" for the
// second, with their JSON indented so each field is a line.
func Diff(a, b []byte) string {
	ta, tb := pretty(a), pretty(b)
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(ta, tb)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var out strings.Builder
	for _, d := range diffs {
		mark := "  "
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			mark = "- "
		case diffmatchpatch.DiffInsert:
			mark = "+ "
		}
		for _, line := range strings.SplitAfter(d.Text, "\n") {
			if line == "" {
				continue
			}
			out.WriteString(mark)
			out.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				out.WriteByte('\n')
			}
		}
	}
	return out.String()
}

func pretty(data []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return string(data) + "\n"
	}
	buf.WriteByte('\n')
	return buf.String()
}
