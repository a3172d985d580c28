// Package signtest makes real signing keys for tests: ssh keys with
// ssh-keygen and an allowed-signers file, and GPG keys in a private
// GNUPGHOME.
package signtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// Need skips t when prog is not installed, or fails it when
// CI_REQUIRE_TOOLS=1 demands every tool.
func Need(t testing.TB, prog string) string {
	t.Helper()
	return gittest.Need(t, prog, "")
}

// SSHKey makes an ed25519 key without a passphrase under dir and returns
// the private key's path and the public key's line.
func SSHKey(t testing.TB, dir, name string) (key, pub string) {
	t.Helper()
	Need(t, "ssh-keygen")
	key = filepath.Join(dir, name)
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	b, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return key, strings.TrimSpace(string(b))
}

// AllowedSigners writes an allowed-signers file: principal → public key line.
func AllowedSigners(t testing.TB, path string, signers map[string]string) {
	t.Helper()
	var b strings.Builder
	for p, pub := range signers {
		b.WriteString(p + " " + pub + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// GPGHome makes a GNUPGHOME under dir holding a fresh signing key for each
// email (ultimately trusted, as gpg trusts keys it made) and sets
// GNUPGHOME for the test. It returns the home.
func GPGHome(t *testing.T, dir string, emails ...string) string {
	t.Helper()
	Need(t, "gpg")
	home := filepath.Join(dir, "gnupg")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GNUPGHOME", home)
	for _, e := range emails {
		GPG(t, "--batch", "--passphrase", "", "--quick-gen-key", e, "ed25519", "sign", "never")
	}
	t.Cleanup(func() { exec.Command("gpgconf", "--kill", "all").Run() })
	return home
}

// GPG runs gpg with the test's GNUPGHOME.
func GPG(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("gpg", append([]string{"--batch", "--yes", "--pinentry-mode", "loopback"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gpg %v: %v: %s", args, err, out)
	}
	return string(out)
}
