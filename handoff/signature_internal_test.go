package handoff

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/sign"
	"github.com/git-handoff/git-handoff/sign/signtest"
)

// TestClaimedIsJudgedByTheVersionItReplaced: alice's clone signs; bob's
// unsigned baton in her name, once she claims it, is a blob she signed,
// and still reads as unsigned notes, because a claimed baton is verified
// as its waiting version. Without that version here, it is unverified.
func TestClaimedIsJudgedByTheVersionItReplaced(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	keys := t.TempDir()
	key, pub := signtest.SSHKey(t, keys, "alice")
	signtest.AllowedSigners(t, filepath.Join(keys, "allowed"), map[string]string{"alice@example.com": pub})
	gittest.Run(t, dir, "config", "gpg.format", "ssh")
	gittest.Run(t, dir, "config", "user.signingKey", key)
	gittest.Run(t, dir, "config", "gpg.ssh.allowedSignersFile", filepath.Join(keys, "allowed"))
	ctx := context.Background()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := baton.New(baton.Draft{Owner: "alice@example.com", Branch: "main", NextSteps: []string{"x"}}, now)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := refstore.Encode(b) // unsigned, as a forger's plumbing writes it
	oid, err := st.WriteBlob(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := refstore.HandoffRef(false, b.Owner, b.Branch)
	if err := st.Apply(ctx, "test: planted", refstore.Update{Ref: ref, New: oid}); err != nil {
		t.Fatal(err)
	}
	waiting, err := baton.Read(ctx, st, ref)
	if err != nil {
		t.Fatal(err)
	}
	claimed, up, err := baton.Claimed(ctx, st, waiting, "s1", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: claim", up); err != nil {
		t.Fatal(err)
	}
	if v := st.Verify(ctx, claimed.OID, "alice@example.com"); v.State != sign.Verified {
		t.Fatalf("the claim blob is alice's own: %+v", v)
	}
	claimed.Signature = nil
	verifyBaton(ctx, st, &claimed, "alice@example.com")
	if claimed.Signature.State != sign.Unverified || claimed.Signature.Reason != "not signed" || !claimed.Fenced {
		t.Fatalf("claimed baton: %+v fenced %v", claimed.Signature, claimed.Fenced)
	}
	claimed.Signature, claimed.Prev = nil, "0123456789012345678901234567890123456789"
	verifyBaton(ctx, st, &claimed, "alice@example.com")
	if claimed.Signature.State != sign.Unverified {
		t.Fatalf("claimed baton without its waiting version: %+v", claimed.Signature)
	}
}
