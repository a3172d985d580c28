package sign_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/sign"
	"github.com/git-handoff/git-handoff/sign/signtest"
)

var record = []byte(`{"schema":"handoff/v1","owner":"alice@example.com","nextSteps":["run the tests"]}`)

func sshSetup(t *testing.T) (alice, bob sign.Config) {
	dir := t.TempDir()
	ak, apub := signtest.SSHKey(t, dir, "alice")
	bk, bpub := signtest.SSHKey(t, dir, "bob")
	allowed := filepath.Join(dir, "allowed_signers")
	signtest.AllowedSigners(t, allowed, map[string]string{"alice@example.com": apub, "bob@example.com": bpub})
	load := func(key string) sign.Config {
		c, err := sign.Load(map[string]string{"gpg.format": "ssh", "user.signingkey": key, "gpg.ssh.allowedsignersfile": allowed}, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Enabled {
			t.Fatal("a configured key does not sign by default (handoff.sign auto)")
		}
		return c
	}
	return load(ak), load(bk)
}

func sealed(t *testing.T, c sign.Config, data []byte) []byte {
	t.Helper()
	s, err := c.Sign(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	blob, err := sign.Seal(data, s)
	if err != nil {
		t.Fatal(err)
	}
	return blob
}

func TestSSH(t *testing.T) {
	ctx := context.Background()
	alice, bob := sshSetup(t)
	blob := sealed(t, alice, record)
	canon, s, err := sign.Open(blob)
	if err != nil || s == nil || !bytes.Equal(canon, record) {
		t.Fatalf("open: %v %v %s", err, s, canon)
	}
	if r := alice.Verify(ctx, blob, "alice@example.com"); r.State != sign.Verified || r.Signer != "alice@example.com" {
		t.Fatalf("alice's own record: %+v", r)
	}
	// Anyone's clone verifies the same way: bob's config, alice's record.
	if r := bob.Verify(ctx, blob, "alice@example.com"); r.State != sign.Verified {
		t.Fatalf("alice's record read by bob: %+v", r)
	}
	forged := sealed(t, bob, record)
	if r := alice.Verify(ctx, forged, "alice@example.com"); r.State != sign.Other || r.Signer != "bob@example.com" {
		t.Fatalf("bob's record in alice's name: %+v", r)
	}
	if r := alice.Verify(ctx, record, "alice@example.com"); r.State != sign.Unverified || r.Reason != "not signed" {
		t.Fatalf("unsigned: %+v", r)
	}
	// One byte changed anywhere in the signed part fails.
	i := bytes.Index(blob, []byte("run the tests"))
	tampered := bytes.Clone(blob)
	tampered[i] = 'R'
	if r := alice.Verify(ctx, tampered, "alice@example.com"); r.State != sign.Unverified || !strings.Contains(r.Reason, "bad signature") {
		t.Fatalf("tampered: %+v", r)
	}
	// A signature moved off its place is malformed, not trusted.
	moved := []byte(`{"sig":{"format":"ssh","signature":"x"},` + string(record[1:]))
	if r := alice.Verify(ctx, moved, "alice@example.com"); r.State != sign.Unverified || !strings.Contains(r.Reason, "malformed") {
		t.Fatalf("moved: %+v", r)
	}
	// A key nobody listed: intact but unverified, named by fingerprint.
	dir := t.TempDir()
	mk, _ := signtest.SSHKey(t, dir, "mallory")
	mallory, err := sign.Load(map[string]string{"gpg.format": "ssh", "user.signingkey": mk, "gpg.ssh.allowedsignersfile": filepath.Join(dir, "none")}, dir)
	if err != nil {
		t.Fatal(err)
	}
	signtest.AllowedSigners(t, filepath.Join(dir, "none"), map[string]string{})
	if r := alice.Verify(ctx, sealed(t, mallory, record), "alice@example.com"); r.State != sign.Unverified || !strings.HasPrefix(r.Signer, "SHA256:") {
		t.Fatalf("unknown key: %+v", r)
	}
}

func TestGPG(t *testing.T) {
	ctx := context.Background()
	signtest.GPGHome(t, t.TempDir(), "alice@example.com", "bob@example.com")
	load := func(key string) sign.Config {
		c, err := sign.Load(map[string]string{"user.signingkey": key}, "")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	alice, bob := load("alice@example.com"), load("bob@example.com")
	blob := sealed(t, alice, record)
	if r := alice.Verify(ctx, blob, "alice@example.com"); r.State != sign.Verified || r.Format != "openpgp" {
		t.Fatalf("alice's record: %+v", r)
	}
	if r := alice.Verify(ctx, sealed(t, bob, record), "alice@example.com"); r.State != sign.Other {
		t.Fatalf("bob's record in alice's name: %+v", r)
	}
	tampered := bytes.Replace(blob, []byte("run the"), []byte("rm -rf the"), 1)
	if r := alice.Verify(ctx, tampered, "alice@example.com"); r.State != sign.Unverified {
		t.Fatalf("tampered: %+v", r)
	}
}

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		vals map[string]string
		sign bool
		err  bool
	}{
		{map[string]string{}, false, false},
		{map[string]string{"user.signingkey": "k"}, true, false},
		{map[string]string{"user.signingkey": "k", "handoff.sign": "false"}, false, false},
		{map[string]string{"handoff.sign": "true", "user.email": "a@x"}, true, false},
		{map[string]string{"handoff.sign": "true", "gpg.format": "ssh"}, false, true},
		{map[string]string{"handoff.sign": "maybe"}, false, true},
		{map[string]string{"gpg.format": "pem"}, false, true},
	} {
		c, err := sign.Load(tc.vals, "")
		if (err != nil) != tc.err || err == nil && c.Enabled != tc.sign {
			t.Errorf("%v: sign %v, err %v", tc.vals, c.Enabled, err)
		}
	}
}
