package teamsync

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	recsign "github.com/git-handoff/git-handoff/sign"
)

// The join's laws, checked through the production merge path: versions of
// one key are written by simulated clones the way the writers write them
// (rev one more than the highest seen, prev the blob replaced),
// encoded, decoded by the domain codec (read) and joined by decide, in both
// orders. Clocks are hostile: one clone runs ten minutes behind, and most
// writes share a second with others.

// blobID is git's id of a blob holding data.
func blobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// simKind writes the records of one kind for the simulation.
type simKind struct {
	ref string
	// first is a key's first record.
	first func(r *rand.Rand, now time.Time, n int) any
	// next is a clone's next record after cur, or nil when it would not
	// write (the domain refuses: a merged or replaced record is final).
	next func(r *rand.Rand, cur any, now time.Time, n int) any
	// final says nothing may follow rec: a version written after seeing it
	// does not beat it.
	final func(rec any) bool
	// cause points into rec's causal fields.
	cause func(rec any) *refstore.Cause
}

var simKinds = map[string]simKind{
	"baton": {
		ref: mainRef,
		first: func(r *rand.Rand, now time.Time, n int) any {
			return simBaton(r, now, n)
		},
		next: func(r *rand.Rand, cur any, now time.Time, n int) any {
			b := *cur.(*baton.Baton)
			switch op := r.Intn(3); {
			case op == 0 || !b.Live():
				return simBaton(r, now, n) // end again: a new baton
			case op == 1:
				b.Claimed, b.ClaimedAt, b.ClaimedBySession = true, &now, fmt.Sprintf("s-%d", n)
			default:
				b.Deleted = &baton.Deletion{Reason: "cancelled", At: now}
			}
			return &b
		},
		final: func(any) bool { return false },
		cause: func(rec any) *refstore.Cause { return &rec.(*baton.Baton).Cause },
	},
	"objective": {
		ref: "refs/ao/objectives/dev/main",
		first: func(r *rand.Rand, now time.Time, n int) any {
			o := baton.NewObjective("dev", "main", fmt.Sprintf("goal %d", n), "s-1", now)
			return &o
		},
		next: func(r *rand.Rand, cur any, now time.Time, n int) any {
			text := fmt.Sprintf("goal %d", n)
			if r.Intn(4) == 0 {
				text = ""
			}
			o := baton.NewObjective("dev", "main", text, "s-1", now)
			return &o
		},
		final: func(any) bool { return false },
		cause: func(rec any) *refstore.Cause { return &rec.(*baton.Objective).Cause },
	},
	"session": {
		ref: "refs/ao/sessions/s-1",
		first: func(r *rand.Rand, now time.Time, n int) any {
			return &session.Record{Schema: session.Schema, ID: "s-1", Owner: "dev", Branch: "main", Status: session.StatusActive, CreatedAt: now, UpdatedAt: now}
		},
		next: func(r *rand.Rand, cur any, now time.Time, n int) any {
			s := *cur.(*session.Record)
			if sessionRank(&s) == 2 {
				return nil
			}
			switch r.Intn(4) {
			case 0:
				s.Summary = fmt.Sprintf("summary %d", n)
			case 1:
				s.Status, s.EndedAt = session.StatusEnded, &now
			case 2:
				s.Status, s.EndedAt = session.StatusActive, nil // restore
			default:
				s.Status, s.ReplacedBy = session.StatusReplaced, fmt.Sprintf("s-new-%d", n)
			}
			s.UpdatedAt = now
			return &s
		},
		final: func(rec any) bool { return sessionRank(rec.(*session.Record)) == 2 },
		cause: func(rec any) *refstore.Cause { return &rec.(*session.Record).Cause },
	},
	"pr": {
		ref: "refs/ao/prs/acme/app/7",
		first: func(r *rand.Rand, now time.Time, n int) any {
			s := fmt.Sprintf("s-%d", n)
			return &prown.Record{Schema: prown.Schema, Repo: "acme/app", Number: 7, OwnerSession: s, ClaimedAt: now,
				History: []prown.Transfer{{Session: s, At: now, Reason: "claimed"}}}
		},
		next: func(r *rand.Rand, cur any, now time.Time, n int) any {
			p := *cur.(*prown.Record)
			if p.Merged() {
				return nil
			}
			if r.Intn(3) == 0 {
				p.MergedAt = &now
				return &p
			}
			s := fmt.Sprintf("s-%d", n)
			p.History = append(append([]prown.Transfer{}, p.History...), prown.Transfer{Session: s, From: p.OwnerSession, At: now, Reason: "taken over"})
			p.OwnerSession, p.ClaimedAt = s, now
			return &p
		},
		final: func(rec any) bool { return rec.(*prown.Record).Merged() },
		cause: func(rec any) *refstore.Cause { return &rec.(*prown.Record).Cause },
	},
}

func simBaton(r *rand.Rand, now time.Time, n int) *baton.Baton {
	b, err := baton.New(baton.Draft{Owner: "dev", Branch: "main", NextSteps: []string{fmt.Sprintf("step %d", n)}}, now)
	if err != nil {
		panic(err)
	}
	return &b
}

// simClone is one clone's view of the key.
type simClone struct {
	skew     time.Duration
	local    *version
	tracking *version
	seen     map[string]bool // every version this clone has seen
}

// sim is a team writing one key.
type sim struct {
	t        *testing.T
	r        *rand.Rand
	sk       simKind
	k        *kind
	now      time.Time
	n        int
	clones   []*simClone
	remote   *version
	versions []*version
	knew     map[string]map[string]bool // version → what its writer had seen
	final    map[string]bool
	causes   map[string]refstore.Cause
	twins    map[string]string // a signed copy's blob id → the unsigned version's
}

func newSim(t *testing.T, seed int64, name string) *sim {
	sk := simKinds[name]
	s := &sim{t: t, r: rand.New(rand.NewSource(seed)), sk: sk, k: kindOf(sk.ref), now: t0,
		knew: map[string]map[string]bool{}, final: map[string]bool{}, causes: map[string]refstore.Cause{}, twins: map[string]string{}}
	for i := range 3 {
		c := &simClone{seen: map[string]bool{}}
		if i == 1 {
			c.skew = -10 * time.Minute // this clone's clock runs behind
		}
		s.clones = append(s.clones, c)
	}
	return s
}

func (s *sim) look(oid string) (refstore.Cause, bool) {
	c, ok := s.causes[oid]
	return c, ok
}

func (s *sim) join(a, b *version) decision {
	return decide(s.k, s.sk.ref, a, b, s.look)
}

// write makes clone c write the next version, as the writers do.
func (s *sim) write(c *simClone) {
	s.n++
	at := s.now.Add(c.skew)
	var rec any
	if c.local == nil {
		rec = s.sk.first(s.r, at, s.n)
	} else {
		cur := clone(s.t, s.sk, c.local)
		if rec = s.sk.next(s.r, cur, at, s.n); rec == nil {
			return
		}
	}
	// refstore.NextCause: one more than the highest rev seen, locally and
	// in the tracking copy; prev is what the local ref held.
	var top uint64
	for _, v := range []*version{c.local, c.tracking} {
		if v != nil && s.k.cause(v.rec).Rev > top {
			top = s.k.cause(v.rec).Rev
		}
	}
	*s.sk.cause(rec) = refstore.Cause{Rev: top + 1, Prev: oidOf(c.local)}
	data, err := refstore.Encode(rec)
	if err != nil {
		s.t.Fatal(err)
	}
	v := s.decode(data)
	knew := map[string]bool{}
	for o := range c.seen {
		knew[o] = true
	}
	s.knew[v.oid] = knew
	s.final[v.oid] = s.sk.final(clone(s.t, s.sk, v))
	s.causes[v.oid] = s.k.cause(v.rec)
	s.versions = append(s.versions, v)
	c.local = v
	c.seen[v.oid] = true
	if s.n%3 == 0 {
		// The same record signed: what the writer would have stored
		// with signing on, and what stripping the signature undoes.
		// The join does not check signatures, so a stand-in will do.
		sealed, err := recsign.Seal(data, recsign.Signature{Format: "ssh", Signature: "-----BEGIN SSH SIGNATURE-----\nstand-in\n-----END SSH SIGNATURE-----\n"})
		if err != nil {
			s.t.Fatal(err)
		}
		tv := s.decode(sealed)
		s.knew[tv.oid], s.final[tv.oid], s.causes[tv.oid] = knew, s.final[v.oid], s.causes[v.oid]
		s.twins[tv.oid] = v.oid
		s.versions = append(s.versions, tv)
	}
}

// decode reads data as the blob at the key's ref, through the domain codec.
func (s *sim) decode(data []byte) *version {
	v, err := read(s.k, s.sk.ref, refstore.Entry{Ref: s.sk.ref, OID: blobID(data), Type: "blob", Size: int64(len(data)), Data: data})
	if err != nil {
		s.t.Fatalf("decoding %s: %v", data, err)
	}
	return v
}

// clone decodes v afresh into a pointer of its kind's type.
func clone(t *testing.T, sk simKind, v *version) any {
	var rec any
	switch v.rec.(type) {
	case baton.Baton:
		rec = new(baton.Baton)
	case baton.Objective:
		rec = new(baton.Objective)
	case session.Record:
		rec = new(session.Record)
	case prown.Record:
		rec = new(prown.Record)
	case lease.Record:
		rec = new(lease.Record)
	}
	if err := refstore.Decode(refstore.Entry{Ref: sk.ref, Data: v.data}, schemaOf(v.rec), rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func schemaOf(rec any) string {
	switch rec.(type) {
	case baton.Baton:
		return baton.Schema
	case baton.Objective:
		return baton.ObjectiveSchema
	case session.Record:
		return session.Schema
	case lease.Record:
		return lease.Schema
	}
	return prown.Schema
}

func (s *sim) see(c *simClone, v *version) {
	if v == nil {
		return
	}
	c.seen[v.oid] = true
	for o := range s.knew[v.oid] {
		c.seen[o] = true
	}
}

// sync joins c's local version with the remote's and pushes the winner.
func (s *sim) sync(c *simClone) {
	s.see(c, s.remote)
	d := s.join(c.local, s.remote)
	c.local, c.tracking, s.remote = d.winner, d.winner, d.winner
}

// fetch brings the remote's version into c's tracking copy only (a plain
// git fetch whose lazy merge has not run yet).
func (s *sim) fetch(c *simClone) {
	s.see(c, s.remote)
	c.tracking = s.remote
}

func (s *sim) run(steps int) {
	for range steps {
		if s.r.Intn(3) == 0 {
			s.now = s.now.Add(time.Second) // most writes share a second
		}
		c := s.clones[s.r.Intn(len(s.clones))]
		switch op := s.r.Intn(10); {
		case op < 5:
			s.write(c)
		case op < 9:
			s.sync(c)
		default:
			s.fetch(c)
		}
	}
}

func TestJoinLaws(t *testing.T) {
	for _, name := range []string{"baton", "objective", "session", "pr", "lease"} {
		t.Run(name, func(t *testing.T) {
			causal, forks, twins := 0, 0, 0
			for seed := int64(1); seed <= 40; seed++ {
				s := newSim(t, seed, name)
				s.run(60)
				vs := s.versions
				if len(vs) < 2 {
					continue
				}
				r := rand.New(rand.NewSource(seed))
				pick := func() *version { return vs[r.Intn(len(vs))] }
				byOID := map[string]*version{}
				for _, a := range vs {
					byOID[a.oid] = a
					if d := s.join(a, a); d.winner != a || d.conflict {
						t.Fatalf("not idempotent: %s", a.data)
					}
				}
				// Signed beats unsigned of the same content, either way
				// round, and keeping it is no conflict.
				for signed, plain := range s.twins {
					ab, ba := s.join(byOID[signed], byOID[plain]), s.join(byOID[plain], byOID[signed])
					if ab.winner.oid != signed || ba.winner.oid != signed || ab.conflict || ba.conflict {
						t.Fatalf("a record's unsigned copy beat its signed one:\n %s", byOID[signed].data)
					}
					twins++
				}
				for range 400 {
					a, b, c := pick(), pick(), pick()
					ab, ba := s.join(a, b), s.join(b, a)
					if ab.winner.oid != ba.winner.oid || ab.conflict != ba.conflict {
						t.Fatalf("not commutative:\n a=%s\n b=%s", a.data, b.data)
					}
					if nd := decide(s.k, s.sk.ref, a, b, nil); nd.winner.oid != ab.winner.oid {
						t.Fatalf("the winner depends on which blobs this clone has:\n a=%s\n b=%s", a.data, b.data)
					}
					left := s.join(ab.winner, c).winner
					right := s.join(a, s.join(b, c).winner).winner
					if left.oid != right.oid {
						t.Fatalf("not associative:\n a=%s\n b=%s\n c=%s", a.data, b.data, c.data)
					}
					// Causal: b's writer had seen a, so b beats a, whatever
					// the clocks said (unless a is final: nothing follows
					// a merged pull request or a replaced session).
					if s.knew[b.oid][a.oid] && !s.final[a.oid] {
						causal++
						if ab.winner != b {
							t.Fatalf("a version written after seeing another lost to it:\n before=%s\n after=%s", a.data, b.data)
						}
						if relate(s.k.cause(b.rec), a, s.k.cause(a.rec), s.look) == follows && ab.conflict {
							t.Fatalf("a version whose chain reaches another is reported as a conflict with it:\n before=%s\n after=%s", a.data, b.data)
						}
					}
					// Final stays final: a merged pull request stays merged, a
					// replaced session is not revived.
					if s.final[a.oid] && !s.final[ab.winner.oid] {
						t.Fatalf("a final version lost to one that is not:\n final=%s\n other=%s", a.data, b.data)
					}
					if ab.conflict {
						forks++
					}
				}
			}
			if causal == 0 || forks == 0 || twins == 0 {
				t.Fatalf("the simulation never tried a causal pair (%d), a concurrent one (%d) or a signed copy (%d)", causal, forks, twins)
			}
		})
	}
}
