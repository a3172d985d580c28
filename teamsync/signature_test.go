package teamsync

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	recsign "github.com/git-handoff/git-handoff/sign"
	"github.com/git-handoff/git-handoff/sign/signtest"
)

// TestSyncKeepsSignatures: a signed baton reaches the other clone byte for
// byte (the same blob id) and verifies there; a copy with its signature
// stripped, planted at the remote, does not win the next sync, and the
// signed one goes back.
func TestSyncKeepsSignatures(t *testing.T) {
	tm := newTeam(t, 2)
	keys := t.TempDir()
	key, pub := signtest.SSHKey(t, keys, "dev")
	allowed := filepath.Join(keys, "allowed_signers")
	signtest.AllowedSigners(t, allowed, map[string]string{"dev": pub})
	for i, st := range tm.clones {
		git(t, st.Dir(), "config", "gpg.format", "ssh")
		git(t, st.Dir(), "config", "gpg.ssh.allowedSignersFile", allowed)
		if i == 0 {
			git(t, st.Dir(), "config", "user.signingKey", key)
		}
	}
	a, b := open(t, tm.clones[0].Dir()), open(t, tm.clones[1].Dir())
	h := end(t, a, 0, "write the parser")
	syncAt(t, a, 1)
	syncAt(t, b, 2)
	if got := git(t, b.Dir(), "rev-parse", mainRef); got != h.OID {
		t.Fatalf("b holds %s, a wrote %s: the blob was not carried as it was", got, h.OID)
	}
	show, err := handoff.Show(context.Background(), b, handoff.ShowOptions{Owner: "dev", Branch: "main"})
	if err != nil || show.Handoff.Signature.State != recsign.Verified {
		t.Fatalf("b: %v %+v", err, show.Handoff.Signature)
	}

	signed := []byte(git(t, tm.remote, "cat-file", "-p", mainRef))
	canonical, sig, err := recsign.Open(signed)
	if err != nil || sig == nil {
		t.Fatalf("the remote's copy: %v %s", err, signed)
	}
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Stdin = tm.remote, strings.NewReader(string(canonical))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	stripped := strings.TrimSpace(string(out))
	git(t, tm.remote, "update-ref", mainRef, stripped)
	syncAt(t, b, 3)
	if got := git(t, b.Dir(), "rev-parse", mainRef); got != h.OID {
		t.Fatalf("b took the stripped copy %s over the signed %s", got, h.OID)
	}
	if got := git(t, tm.remote, "rev-parse", mainRef); got != h.OID {
		t.Fatalf("the remote keeps the stripped copy %s; the signed %s was not pushed back", got, h.OID)
	}
}
