package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/sign"
)

// verifyBaton sets s.Signature: who signed the baton's notes and whether
// that signer may speak for its owner. A claimed baton is checked as the
// version it replaced, the waiting one its owner wrote: the claim itself is
// signed by whoever claimed it, which says nothing about who wrote the
// notes, and must not launder a forged baton into a verified one.
//
// reader is who the baton is shown to, which decides whether its notes are
// fenced (fence).
func verifyBaton(ctx context.Context, st refstore.Writer, s *baton.Stored, reader string) {
	if s == nil || s.Signature != nil {
		return
	}
	defer func() { s.Fenced = fence(ctx, st, s, reader) }()
	oid := s.OID
	if s.Claimed {
		oid = ""
		if prev := s.Prev; prev != "" {
			if e, err := st.ReadObject(ctx, prev); err == nil {
				e.Ref = s.Ref
				if w, err := baton.Decode(e); err == nil && w.ID == s.ID && w.Live() {
					oid = prev
				}
			}
		}
		if oid == "" {
			s.Signature = &refstore.Verification{State: sign.Unverified, Reason: "the waiting version this claim replaced is not in this clone"}
			return
		}
	}
	if oid == "" {
		s.Signature = &refstore.Verification{State: sign.Unverified, Reason: "not stored yet"}
		return
	}
	if oid == s.OID && !s.Sealed {
		// Known unsigned from the read: no second read, no program.
		s.Signature = &refstore.Verification{State: sign.Unverified, Reason: "not signed"}
		return
	}
	v := st.Verify(ctx, oid, s.Owner)
	s.Signature = &v
}

// deliverable is the filter of the batons a session may receive: every
// candidate is verified, and with handoff.requireSigned one not verifiably
// its owner's is refused, with a notice saying why. A shared baton needs
// its owner's own signature too: an allowed signer who is not the owner
// would be speaking in another's name.
func deliverable(ctx context.Context, st refstore.Writer, reader string, notices *[]string) (func(*baton.Stored) bool, error) {
	cfg, err := st.Signing(ctx)
	if err != nil {
		return nil, err
	}
	return func(s *baton.Stored) bool {
		verifyBaton(ctx, st, s, reader)
		if !cfg.RequireSigned || s.Signature.Trusted() {
			return true
		}
		where := "in your private namespace"
		if s.Shared {
			where = "shared by " + s.Owner
		}
		*notices = append(*notices, fmt.Sprintf("baton %s %s was not delivered: handoff.requireSigned is true and it is %s (it is left at %s: `git cat-file -p %s` shows it)", s.ID, where, s.Signature, s.Ref, s.Ref))
		return false
	}, nil
}

// fence says whether a baton's notes are shown as data to weigh rather than
// instructions: they are not verifiably their owner's, and either someone
// else wrote them, this clone signs (so an unsigned note of mine is
// suspect), or a signature on them did not check out.
func fence(ctx context.Context, st refstore.Writer, s *baton.Stored, reader string) bool {
	if s == nil || s.Signature == nil || s.Signature.Trusted() {
		return false
	}
	if s.Owner != reader || s.Signature.Format != "" {
		return true
	}
	cfg, err := st.Signing(ctx)
	return err != nil || cfg.Enabled || cfg.RequireSigned
}

// eligible is baton.Eligible for delivery: candidates verified, and
// refused under handoff.requireSigned when not verifiably their owner's.
func eligible(ctx context.Context, st refstore.Clone, who Who) (*baton.Stored, []baton.Warning, []string, error) {
	var refused []string
	accept, err := deliverable(ctx, st, who.Owner, &refused)
	if err != nil {
		return nil, nil, nil, err
	}
	h, warns, err := baton.EligibleWhere(ctx, st, who.Owner, who.Branch, accept)
	return h, warns, refused, err
}

// checkObjective verifies a stored objective as its owner's. Under
// handoff.requireSigned one that is not is left out, with a notice; else it
// is fenced where a baton of one's own would be (signed but not
// verified, or unverified in a repository that signs).
func checkObjective(ctx context.Context, st refstore.Writer, o *baton.Objective, oid, owner string) (*baton.Objective, bool, string) {
	cfg, err := st.Signing(ctx)
	if err != nil {
		return o, true, err.Error()
	}
	v := st.Verify(ctx, oid, o.Owner)
	if v.Trusted() {
		return o, false, ""
	}
	if cfg.RequireSigned {
		return nil, false, fmt.Sprintf("the objective of %s on %s was left out: handoff.requireSigned is true and it is %s", o.Owner, o.Branch, v)
	}
	return o, v.Format != "" || cfg.Enabled || o.Owner != owner, ""
}
