// Command yearpop writes "a year of records" into a repository (the bare
// remote of bench/year.sh): N session records (default 100,000) spread over
// the 365 days before -now, with batons, objectives and pull-request
// records in proportion, for the figures of the issue "A year of records".
//
//   - sessions: ~97% written before this week and ended, replaced,
//     terminated or merged when they stopped (endedAt set); ~3% this week,
//     of which a few hundred are still active;
//   - batons: one ref per owner and branch (N/20 of them, one in ten
//     shared): most claimed long ago, a few tombstones, a few hundred
//     waiting (left this week, unclaimed);
//   - objectives: one per owner and branch, cleared (as `end` leaves it)
//     except where a session is still active;
//   - pull-request records: N/50, most merged long ago, a few open (owned
//     by this week's sessions).
//
// Every record is built with the project's own types (session.Record,
// baton.Baton, baton.Objective, prown.Record, each with its refstore.Cause),
// encoded with refstore.Encode, and checked with the decoder sync reads it
// with (schema, size, the record naming its own ref) before anything is
// written. Objects and refs are written by git alone: one `git fast-import`
// for every blob (marks exported), one `git update-ref --stdin`, then
// `git pack-refs --all`. The same -seed and -now give the same records.
//
// It prints one key=value line per count, the population's own account of
// what is live (not retired, as sync's retention judges: active sessions
// and those on their lineage, sessions, batons, objectives and pull
// requests final within -retention, waiting batons, set objectives, open
// pull requests), for
// bench/year.sh to compare against.
//
//	usage: go run ./bench/yearpop -repo DIR [-n 100000] [-seed 1] [-now RFC3339] [-retention 720h]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

const day = 24 * time.Hour

// key is one owner and branch: one baton ref, one objective ref.
type key struct {
	owner, branch string
	ownerIdx      int
	shared        bool
	sessions      []int // indexes into sessions, oldest first
}

type record struct {
	ref  string
	data []byte
}

func main() {
	repo := flag.String("repo", "", "the repository to write into (a bare remote)")
	n := flag.Int("n", 100000, "session records")
	seed := flag.Uint64("seed", 1, "random seed")
	nowFlag := flag.String("now", "", "the time the year ends at, RFC 3339 (default: now, to the hour)")
	retention := flag.Duration("retention", 0, "how long a final record stays live (0: git-handoff's rule, retired at the first sync that sees it final)")
	flag.Parse()
	if *repo == "" || *n < 50 {
		fmt.Fprintln(os.Stderr, "usage: yearpop -repo DIR [-n N>=50] [-seed S] [-now RFC3339] [-retention D]")
		os.Exit(2)
	}
	dir, err := filepath.Abs(*repo)
	if err != nil {
		fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Hour)
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			fatal(fmt.Errorf("-now: %w", err))
		}
		now = t.UTC()
	}
	t0 := time.Now()
	recs, counts := populate(*n, *seed, now, *retention)
	t1 := time.Now()
	phases, err := write(dir, recs)
	if err != nil {
		fatal(err)
	}
	t2 := time.Now()
	counts = append(counts,
		kv{"records", len(recs)},
		kv{"now", now.Format(time.RFC3339)},
		kv{"generate_ms", t1.Sub(t0).Milliseconds()},
		kv{"write_ms", t2.Sub(t1).Milliseconds()},
	)
	counts = append(counts, phases...)
	for _, c := range counts {
		fmt.Printf("%s=%v\n", c.k, c.v)
	}
}

type kv struct {
	k string
	v any
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "yearpop:", err)
	os.Exit(1)
}

var (
	harnesses = []string{"claude-code", "codex", "gemini", "opencode", "copilot", "aider"}
	models    = []string{"model-a", "model-b", "model-c"}
	words     = []string{"lexer", "parser", "cache", "auth", "billing", "search", "export", "import", "retry", "docs", "ui", "api", "sync", "metrics", "logging", "config"}
	idChars   = "abcdefghijkmnpqrstuvwxyz23456789" // baton.NewID's alphabet
)

// populate builds every record, checked with its kind's decoder.
func populate(n int, seed uint64, now time.Time, retention time.Duration) ([]record, []kv) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	const nOwners = 40
	writers := make([]string, nOwners) // each owner's clone, in version vectors
	for i := range writers {
		writers[i] = fmt.Sprintf("%012x", rng.Uint64()&0xffffffffffff)
	}
	ids := map[string]bool{}
	newID := func(prefix string) string {
		for {
			b := make([]byte, 10)
			for i := range b {
				b[i] = idChars[rng.IntN(len(idChars))]
			}
			id := prefix + "-" + string(b)
			if !ids[id] {
				ids[id] = true
				return id
			}
		}
	}
	cause := func(owner int) refstore.Cause {
		return refstore.Cause{Rev: 1, Seen: map[string]uint64{writers[owner]: 1}}
	}
	sec := func(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

	// Keys: one per 20 sessions; a sixth of them saw work this week.
	nKeys := max(1, n/20)
	keys := make([]key, nKeys)
	for k := range keys {
		o := rng.IntN(nOwners)
		keys[k] = key{
			owner:    fmt.Sprintf("dev%02d@example.com", o),
			ownerIdx: o,
			branch:   fmt.Sprintf("feat/%s-%d", words[rng.IntN(len(words))], k),
			shared:   k%10 == 0,
		}
	}
	nHot := max(1, nKeys/6)

	// Sessions: 97% spread over the year before this week, 3% this week.
	type sess struct {
		rec       session.Record
		key       int
		recent    bool
		pr        int // index into prs, -1 for none
		lastOnKey bool
	}
	nRecent := max(1, n*3/100)
	ss := make([]sess, n)
	week := now.Add(-7 * day)
	yearAgo := now.Add(-365 * day)
	for i := range ss {
		recent := i >= n-nRecent
		var created time.Time
		var k int
		if recent {
			created = week.Add(time.Duration(rng.Int64N(int64(7*day - time.Hour))))
			k = rng.IntN(nHot)
		} else {
			created = yearAgo.Add(time.Duration(rng.Int64N(int64(358 * day))))
			k = rng.IntN(nKeys)
		}
		ky := &keys[k]
		h := harnesses[rng.IntN(len(harnesses))]
		created = sec(created)
		ss[i] = sess{key: k, recent: recent, pr: -1, rec: session.Record{
			Schema:    session.Schema,
			ID:        newID("s"),
			Owner:     ky.owner,
			Branch:    ky.branch,
			Worktree:  fmt.Sprintf("/home/dev%02d/src/widgets", ky.ownerIdx),
			Host:      fmt.Sprintf("host%02d", ky.ownerIdx),
			Harness:   h,
			Model:     models[rng.IntN(len(models))],
			Status:    session.StatusEnded,
			Prompt:    fmt.Sprintf("work on %s: implement the next part and its tests", ky.branch),
			Summary:   fmt.Sprintf("did part %d of %s; tests pass", i%7+1, ky.branch),
			CreatedAt: created,
			Launched: map[string]session.Launched{h: {
				NativeID: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&0xffffffffffff),
				First:    created,
			}},
			Cause: cause(ky.ownerIdx),
		}}
	}
	for i := range ss {
		keys[ss[i].key].sessions = append(keys[ss[i].key].sessions, i)
	}
	for k := range keys {
		sort.Slice(keys[k].sessions, func(a, b int) bool {
			return ss[keys[k].sessions[a]].rec.CreatedAt.Before(ss[keys[k].sessions[b]].rec.CreatedAt)
		})
		if l := len(keys[k].sessions); l > 0 {
			ss[keys[k].sessions[l-1]].lastOnKey = true
		}
	}

	// Pull requests: one per 50 sessions, owned by sessions that end
	// (not replaced); those of this week's sessions are open.
	nPR := max(1, n/50)
	nOpen := max(1, nPR/50)
	var prOwners []int
	pickOwner := func(recent bool) {
		for {
			var i int
			if recent {
				i = n - nRecent + rng.IntN(nRecent)
			} else {
				i = rng.IntN(n - nRecent)
			}
			if ss[i].pr < 0 {
				ss[i].pr = len(prOwners)
				prOwners = append(prOwners, i)
				return
			}
		}
	}
	for p := 0; p < nPR; p++ {
		pickOwner(p < nOpen)
	}

	// Statuses, end times, replacements: per key, in order.
	for k := range keys {
		list := keys[k].sessions
		for j, i := range list {
			s := &ss[i].rec
			var next *session.Record
			if j+1 < len(list) {
				next = &ss[list[j+1]].rec
			}
			end := s.CreatedAt.Add(30*time.Minute + time.Duration(rng.Int64N(int64(6*time.Hour))))
			if next != nil && end.After(next.CreatedAt) {
				end = next.CreatedAt
			}
			if end.After(now) {
				end = now.Add(-time.Minute)
			}
			end = sec(end)
			l := s.Launched[s.Harness]
			l.Last = end
			s.Launched[s.Harness] = l
			s.UpdatedAt = end
			r := rng.Float64()
			switch {
			case ss[i].lastOnKey && ss[i].recent && r < 0.45 && ss[i].pr < 0 || ss[i].lastOnKey && ss[i].recent && ss[i].pr >= 0:
				s.Status = session.StatusActive
				continue // no end yet
			case next != nil && r < 0.12 && ss[i].pr < 0 && next.Supersedes == "":
				s.Status, s.ReplacedBy = session.StatusReplaced, next.ID
				at := next.CreatedAt
				s.HandoffAt, end = &at, at
				next.Supersedes, next.HandoffReason, next.HandoffContextMode = s.ID, "stuck", session.ContextSummary
				next.HandoffAt = &at
			case r < 0.20 && ss[i].pr < 0:
				s.Status = session.StatusTerminated
			}
			s.EndedAt, s.UpdatedAt = &end, end
		}
	}

	var recs []record
	add := func(ref string, v any, check func(refstore.Entry) error) {
		data, err := refstore.Encode(v)
		if err != nil {
			fatal(fmt.Errorf("%s: %w", ref, err))
		}
		e := refstore.Entry{Ref: ref, Type: "blob", Size: int64(len(data)), Data: data}
		if err := check(e); err != nil {
			fatal(fmt.Errorf("the record built for %s does not decode: %w", ref, err))
		}
		recs = append(recs, record{ref: ref, data: data})
	}

	// Pull-request records.
	sort.Slice(prOwners, func(a, b int) bool { return ss[prOwners[a]].rec.CreatedAt.Before(ss[prOwners[b]].rec.CreatedAt) })
	openPRs, recentMerged := 0, 0
	cutoff := now.Add(-retention)
	const ghRepo = "acme/widgets"
	for p, i := range prOwners {
		s := &ss[i].rec
		num := 1000 + p
		claimed := s.CreatedAt.Add(10 * time.Minute)
		pr := prown.Record{
			Schema: prown.Schema, URL: fmt.Sprintf("https://github.com/%s/pull/%d", ghRepo, num),
			Number: num, Repo: ghRepo, OwnerSession: s.ID, ClaimedAt: claimed,
			History: []prown.Transfer{{Session: s.ID, At: claimed, Reason: "claimed", Harness: s.Harness}},
			Cause:   cause(keys[ss[i].key].ownerIdx),
		}
		s.PR = pr.Pointer()
		if s.Status == session.StatusActive {
			openPRs++
		} else {
			merged := s.EndedAt.Add(time.Duration(rng.Int64N(int64(2 * day))))
			if merged.After(now) {
				merged = *s.EndedAt
			}
			merged = sec(merged)
			pr.MergedAt = &merged
			if !merged.Before(cutoff) {
				recentMerged++ // final within the retention window: live
			}
			s.Status, s.UpdatedAt = session.StatusMerged, merged
		}
		ref, err := prown.Ref(pr.Repo, pr.Number)
		if err != nil {
			fatal(err)
		}
		add(ref, &pr, func(e refstore.Entry) error { _, err := prown.Decode(e); return err })
	}

	// Sessions: live when active, ended within the retention window, or
	// needed by a live one (on an active session's lineage, or owning an
	// open pull request), as sync's retention keeps them.
	byID := map[string]*session.Record{}
	needed := map[string]bool{}
	for i := range ss {
		byID[ss[i].rec.ID] = &ss[i].rec
	}
	for i := range ss {
		if s := &ss[i].rec; s.Status == session.StatusActive {
			for id := s.Supersedes; id != "" && !needed[id]; {
				needed[id] = true
				if p := byID[id]; p != nil {
					id = p.Supersedes
				} else {
					id = ""
				}
			}
		}
	}
	var active, recentEnded, liveSessions int
	counted := map[string]int{}
	liveSession := map[string]bool{}
	for i := range ss {
		s := &ss[i].rec
		counted[s.Status]++
		switch {
		case s.Status == session.StatusActive:
			active++
			liveSessions++
			liveSession[s.ID] = true
		case s.EndedAt != nil && !s.EndedAt.Before(cutoff):
			recentEnded++
			liveSessions++
			liveSession[s.ID] = true
		case needed[s.ID]:
			liveSessions++
			liveSession[s.ID] = true
		}
		ref, err := refstore.SessionRef(s.ID)
		if err != nil {
			fatal(err)
		}
		add(ref, s, func(e refstore.Entry) error { _, err := session.Decode(e); return err })
	}

	// Batons and objectives, one of each per key.
	var waiting, tombstones, claimed, objSet, objectives, recentFinal, recentCleared int
	// final counts a baton claimed or cancelled within the retention
	// window: live until it retires.
	final := func(at time.Time) {
		if !at.Before(cutoff) {
			recentFinal++
		}
	}
	for k := range keys {
		ky := &keys[k]
		o := baton.Objective{Schema: baton.ObjectiveSchema, Owner: ky.owner, Branch: ky.branch, Cause: cause(ky.ownerIdx)}
		list := ky.sessions
		if len(list) == 0 {
			continue
		}
		last := &ss[list[len(list)-1]].rec
		// The baton the newest end left: by the last session when it
		// ended, else by the one before the active one (which claimed it).
		var leftBy, claimedBy *session.Record
		if last.Status == session.StatusActive {
			claimedBy = last
			if len(list) > 1 {
				leftBy = &ss[list[len(list)-2]].rec
			}
		} else {
			leftBy = last
		}
		if last.Status == session.StatusActive {
			o.Text, o.SessionID, o.SetAt = "finish "+ky.branch, last.ID, last.CreatedAt
			objSet++
		} else {
			o.SessionID, o.SetAt = last.ID, *last.EndedAt // cleared by its end
			if !o.SetAt.Before(cutoff) {
				recentCleared++
			}
		}
		oref, err := refstore.ObjectiveRef(ky.owner, ky.branch)
		if err != nil {
			fatal(err)
		}
		add(oref, &o, func(e refstore.Entry) error { _, err := baton.DecodeObjective(e); return err })
		objectives++
		if leftBy == nil {
			continue
		}
		left := leftBy.CreatedAt
		if leftBy.EndedAt != nil {
			left = *leftBy.EndedAt
		}
		b := baton.Baton{
			Schema: baton.Schema, ID: newID("h"), Owner: ky.owner, Branch: ky.branch, Shared: ky.shared,
			NextSteps:        []string{"finish the tests of " + ky.branch, "update the docs"},
			FailedApproaches: []string{},
			OpenQuestions:    []string{},
			Harness:          leftBy.Harness, SessionID: leftBy.ID, CreatedAt: left,
			Cause: cause(ky.ownerIdx),
		}
		if rng.IntN(3) == 0 {
			b.FailedApproaches = []string{"a regexp pre-pass: breaks strings"}
		}
		r := rng.Float64()
		switch {
		case claimedBy != nil:
			at := claimedBy.CreatedAt
			b.Claimed, b.ClaimedAt, b.ClaimedBySession = true, &at, claimedBy.ID
			claimed++
			final(at)
		case left.After(week) && r < 0.6:
			waiting++ // left this week, not yet claimed
			// The session it came from is needed while it waits (its
			// next session reads it), with its lineage, as sync keeps it.
			for id := leftBy.ID; id != "" && !liveSession[id]; {
				liveSession[id] = true
				liveSessions++
				if p := byID[id]; p != nil {
					id = p.Supersedes
				} else {
					id = ""
				}
			}
		case r < 0.03:
			at := sec(left.Add(time.Hour))
			b.Deleted = &baton.Deletion{Reason: "cancelled", At: at}
			tombstones++
			final(at)
		default:
			// Claimed by a session whose record is not here (another
			// repository's, or one never recorded).
			at := sec(left.Add(time.Duration(rng.Int64N(int64(day)))))
			if at.After(now) {
				at = left
			}
			b.Claimed, b.ClaimedAt, b.ClaimedBySession = true, &at, newID("s")
			claimed++
			final(at)
		}
		bref, err := refstore.HandoffRef(b.Shared, b.Owner, b.Branch)
		if err != nil {
			fatal(err)
		}
		add(bref, &b, func(e refstore.Entry) error { _, err := baton.Decode(e); return err })
	}

	live := liveSessions + waiting + recentFinal + objSet + recentCleared + openPRs + recentMerged
	return recs, []kv{
		{"sessions", n},
		{"sessions_this_week", nRecent},
		{"sessions_active", active},
		{"sessions_ended_within_retention", recentEnded},
		{"sessions_ended", counted[session.StatusEnded]},
		{"sessions_replaced", counted[session.StatusReplaced]},
		{"sessions_terminated", counted[session.StatusTerminated]},
		{"sessions_merged", counted[session.StatusMerged]},
		{"batons", claimed + waiting + tombstones},
		{"batons_waiting", waiting},
		{"batons_claimed", claimed},
		{"batons_tombstones", tombstones},
		{"batons_final_within_retention", recentFinal},
		{"objectives", objectives},
		{"objectives_set", objSet},
		{"objectives_cleared_within_retention", recentCleared},
		{"prs", len(prOwners)},
		{"prs_open", openPRs},
		{"prs_merged_within_retention", recentMerged},
		{"retention", retention.String()},
		{"live", live},
	}
}

// write stores recs in repo: their blobs through one git fast-import,
// their refs through one git update-ref --stdin, then git pack-refs --all.
func write(repo string, recs []record) ([]kv, error) {
	var phases []kv
	t := time.Now()
	phase := func(name string) {
		phases = append(phases, kv{name + "_ms", time.Since(t).Milliseconds()})
		t = time.Now()
	}
	marks := filepath.Join(repo, "yearpop.marks")
	defer os.Remove(marks)
	var in bytes.Buffer
	for i, r := range recs {
		fmt.Fprintf(&in, "blob\nmark :%d\ndata %d\n", i+1, len(r.data))
		in.Write(r.data)
		in.WriteByte('\n')
	}
	in.WriteString("done\n")
	phase("encode_blobs")
	if err := git(repo, &in, "fast-import", "--quiet", "--done", "--export-marks="+marks); err != nil {
		return nil, err
	}
	phase("fast_import")
	f, err := os.Open(marks)
	if err != nil {
		return nil, err
	}
	oids := make([]string, len(recs))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m int
		var oid string
		if _, err := fmt.Sscanf(sc.Text(), ":%d %s", &m, &oid); err != nil || m < 1 || m > len(recs) {
			f.Close()
			return nil, fmt.Errorf("fast-import marks: unexpected line %q", sc.Text())
		}
		oids[m-1] = oid
	}
	f.Close()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	in.Reset()
	for i, r := range recs {
		if oids[i] == "" {
			return nil, fmt.Errorf("fast-import gave no id for %s", r.ref)
		}
		fmt.Fprintf(&in, "create %s %s\n", r.ref, oids[i])
	}
	if err := git(repo, &in, "update-ref", "--stdin"); err != nil {
		return nil, err
	}
	phase("update_ref")
	if err := git(repo, nil, "pack-refs", "--all"); err != nil {
		return nil, err
	}
	phase("pack_refs")
	return phases, nil
}

func git(dir string, stdin *bytes.Buffer, args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
