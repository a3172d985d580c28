package teamsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
)

// version is one side's record for a key: its blob id, bytes and decoded
// value.
type version struct {
	oid  string
	data []byte
	rec  any
}

// kind is how one kind of record is read, ordered and described.
type kind struct {
	prefix  string
	decode  func(ref string, e refstore.Entry) (any, error)
	compare func(a, b any) int
	ordered func(a, b any) bool
	// collectible reports a tombstone deleted before cutoff.
	collectible func(rec any, cutoff time.Time) bool
	describe    func(rec any) string
}

var kinds = []kind{
	{
		prefix: refstore.HandoffsPrefix,
		decode: func(ref string, e refstore.Entry) (any, error) {
			var b baton.Baton
			if err := refstore.Decode(e, baton.Schema, &b); err != nil {
				return nil, err
			}
			normalize(&b)
			if want, err := refstore.HandoffRef(b.Shared, b.Owner, b.Branch); err != nil || want != ref {
				return nil, fmt.Errorf("%w: holds a baton of owner %q on branch %q (shared %v), which belongs elsewhere", refstore.ErrInvalidRecord, b.Owner, b.Branch, b.Shared)
			}
			return b, nil
		},
		compare: func(a, b any) int { return CompareBaton(a.(baton.Baton), b.(baton.Baton)) },
		ordered: func(a, b any) bool { return orderedBaton(a.(baton.Baton), b.(baton.Baton)) },
		collectible: func(rec any, cutoff time.Time) bool {
			b := rec.(baton.Baton)
			return b.Deleted != nil && !b.Claimed && b.Deleted.At.Before(cutoff)
		},
		describe: func(rec any) string {
			b := rec.(baton.Baton)
			switch {
			case b.Claimed:
				return fmt.Sprintf("baton %s claimed by session %s", b.ID, b.ClaimedBySession)
			case b.Deleted != nil:
				return fmt.Sprintf("baton %s (%s)", b.ID, b.Deleted.Reason)
			}
			return fmt.Sprintf("baton %s (waiting)", b.ID)
		},
	},
	{
		prefix: refstore.ObjectivePrefix,
		decode: func(ref string, e refstore.Entry) (any, error) {
			var o baton.Objective
			if err := refstore.Decode(e, baton.ObjectiveSchema, &o); err != nil {
				return nil, err
			}
			if want, err := refstore.ObjectiveRef(o.Owner, o.Branch); err != nil || want != ref {
				return nil, fmt.Errorf("%w: holds the objective of owner %q on branch %q, which belongs elsewhere", refstore.ErrInvalidRecord, o.Owner, o.Branch)
			}
			return o, nil
		},
		compare: func(a, b any) int { return CompareObjective(a.(baton.Objective), b.(baton.Objective)) },
		ordered: func(a, b any) bool { return orderedObjective(a.(baton.Objective), b.(baton.Objective)) },
		describe: func(rec any) string {
			o := rec.(baton.Objective)
			if o.Text == "" {
				return "objective (cleared)"
			}
			return fmt.Sprintf("objective %q", truncate(o.Text, 40))
		},
	},
	{
		prefix: refstore.SessionPrefix,
		decode: func(ref string, e refstore.Entry) (any, error) {
			var s lineage.Session
			if err := refstore.Decode(e, lineage.SessionSchema, &s); err != nil {
				return nil, err
			}
			if want, err := refstore.SessionRef(s.ID); err != nil || want != ref {
				return nil, fmt.Errorf("%w: holds session %q, which belongs elsewhere", refstore.ErrInvalidRecord, s.ID)
			}
			return s, nil
		},
		compare: func(a, b any) int { return CompareSession(a.(lineage.Session), b.(lineage.Session)) },
		ordered: func(a, b any) bool { return orderedSession(a.(lineage.Session), b.(lineage.Session)) },
		describe: func(rec any) string {
			s := rec.(lineage.Session)
			if s.ReplacedBy != "" {
				return fmt.Sprintf("session %s (%s, replaced by %s)", s.ID, s.Status, s.ReplacedBy)
			}
			return fmt.Sprintf("session %s (%s)", s.ID, s.Status)
		},
	},
	{
		prefix: refstore.PRPrefix,
		decode: func(ref string, e refstore.Entry) (any, error) {
			var p PR
			if err := refstore.Decode(e, PRSchema, &p); err != nil {
				return nil, err
			}
			owner, name, _ := strings.Cut(p.Repo, "/")
			if want, err := refstore.PRRef(owner, name, p.Number); err != nil || want != ref {
				return nil, fmt.Errorf("%w: holds pull request %s#%d, which belongs elsewhere", refstore.ErrInvalidRecord, p.Repo, p.Number)
			}
			return p, nil
		},
		compare: func(a, b any) int { return ComparePR(a.(PR), b.(PR)) },
		ordered: func(a, b any) bool { return orderedPR(a.(PR), b.(PR)) },
		describe: func(rec any) string {
			p := rec.(PR)
			return fmt.Sprintf("pull request %s#%d owned by session %s", p.Repo, p.Number, p.Session)
		},
	},
}

func kindOf(ref string) *kind {
	for i := range kinds {
		if strings.HasPrefix(ref, kinds[i].prefix) {
			return &kinds[i]
		}
	}
	return nil
}

// normalize gives a decoded baton the shape baton.New gives it, so null and
// empty lists compare equal.
func normalize(b *baton.Baton) {
	for _, l := range []*[]string{&b.NextSteps, &b.FailedApproaches, &b.OpenQuestions} {
		if *l == nil {
			*l = []string{}
		}
	}
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// read decodes entry e found at ref (a local ref, or a tracking ref whose
// record belongs at local) into a version.
func read(k *kind, local string, e refstore.Entry) (*version, error) {
	rec, err := k.decode(local, e)
	if err != nil {
		return nil, err
	}
	return &version{oid: e.OID, data: e.Data, rec: rec}, nil
}

// decision is the outcome of joining one key.
type decision struct {
	ref           string
	local, remote *version // nil = absent
	winner        *version // nil = the key goes away (collected)
	conflict      bool     // the two could not be ordered; a tie-break chose
	collected     bool
	withheld      bool // the remote dropped it since it was seen there: not pushed back (seen.go)
}

func (d *decision) localChange() bool { return oidOf(d.winner) != oidOf(d.local) }
func (d *decision) remoteChange() bool {
	return !d.withheld && oidOf(d.winner) != oidOf(d.remote)
}

func oidOf(v *version) string {
	if v == nil {
		return ""
	}
	return v.oid
}

// decide joins the local and remote versions of one key. Tombstones deleted
// before cutoff are collected (a zero cutoff collects nothing).
func decide(k *kind, ref string, l, r *version, cutoff time.Time) decision {
	d := decision{ref: ref, local: l, remote: r}
	switch {
	case l == nil && r == nil:
		return d
	case l == nil:
		d.winner = r
	case r == nil:
		d.winner = l
	case l.oid == r.oid:
		d.winner = l
	default:
		c := k.compare(l.rec, r.rec)
		if c == 0 { // equal records in different blobs: the blob id decides
			c = strings.Compare(l.oid, r.oid)
		}
		d.winner = r
		if c > 0 {
			d.winner = l
		}
		d.conflict = !k.ordered(l.rec, r.rec)
	}
	if k.collectible != nil && !cutoff.IsZero() && k.collectible(d.winner.rec, cutoff) {
		d.winner, d.collected = nil, true
	}
	return d
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
