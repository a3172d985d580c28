package sign

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Sign signs canonical with the configured key.
func (c Config) Sign(ctx context.Context, canonical []byte) (Signature, error) {
	prog := c.Programs[c.Format]
	var out []byte
	var err error
	switch c.Format {
	case "ssh":
		out, err = c.signSSH(ctx, prog, canonical)
	default:
		// As git does: a detached, armored signature by the named key.
		out, err = c.run(ctx, prog, canonical, "--status-fd=2", "-bsau", c.Key)
	}
	if err != nil {
		return Signature{}, fmt.Errorf("signing the record with %s key %q: %w", c.Format, c.Key, err)
	}
	sig := strings.TrimSpace(string(out))
	if !strings.Contains(sig, "-----BEGIN ") {
		return Signature{}, fmt.Errorf("signing the record with %s key %q: %s printed no signature", c.Format, c.Key, prog)
	}
	return Signature{Format: c.Format, Signer: c.Key, Signature: sig + "\n"}, nil
}

// signSSH signs with a key file, or, like git, with a literal public key
// ("key::ssh-…" or "ssh-…") whose private half is in the ssh agent.
func (c Config) signSSH(ctx context.Context, prog string, data []byte) ([]byte, error) {
	key := c.Key
	args := []string{"-Y", "sign", "-n", Namespace}
	if lit, ok := strings.CutPrefix(key, "key::"); ok || strings.HasPrefix(key, "ssh-") {
		if !ok {
			lit = key
		}
		f, done, err := tempFile("handoff-key-*.pub", []byte(lit+"\n"))
		if err != nil {
			return nil, err
		}
		defer done()
		args = append(args, "-U", "-f", f)
	} else {
		args = append(args, "-f", c.path(key))
	}
	// No file argument: ssh-keygen signs stdin and prints the signature.
	return c.run(ctx, prog, data, args...)
}

// Verify checks blob's signature and whether its signer may speak for
// owner. It never fails: a signature that cannot be checked is unverified,
// with the reason.
func (c Config) Verify(ctx context.Context, blob []byte, owner string) Result {
	canonical, sig, err := Open(blob)
	switch {
	case err != nil:
		return Result{State: Unverified, Reason: err.Error()}
	case sig == nil:
		return Result{State: Unverified, Reason: "not signed"}
	}
	prog, ok := c.Programs[sig.Format]
	if !ok {
		return Result{State: Unverified, Format: sig.Format, Reason: fmt.Sprintf("signed in a format git does not know (%q)", sig.Format)}
	}
	var r Result
	if sig.Format == "ssh" {
		r = c.verifySSH(ctx, prog, canonical, sig.Signature, owner)
	} else {
		r = c.verifyGPG(ctx, prog, canonical, sig.Signature, owner)
	}
	r.Format = sig.Format
	return r
}

// fingerprint is compiled at first use: most starts verify nothing.
var fingerprint = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:RSA|DSA|ECDSA|ED25519|ECDSA-SK|ED25519-SK) key (SHA256:\S+)`)
})

func (c Config) verifySSH(ctx context.Context, prog string, data []byte, armored, owner string) Result {
	sigFile, done, err := tempFile("handoff-*.sig", []byte(armored))
	if err != nil {
		return Result{State: Unverified, Reason: "checking the signature: " + err.Error()}
	}
	defer done()
	if c.AllowedSigners == "" {
		return c.untrustedSSH(ctx, prog, data, sigFile, "gpg.ssh.allowedSignersFile is not set, so no ssh key is trusted")
	}
	// The common case in one process: the owner signed it.
	if _, err := c.run(ctx, prog, data, "-Y", "verify", "-f", c.AllowedSigners, "-I", owner, "-n", Namespace, "-s", sigFile); err == nil {
		return Result{State: Verified, Signer: owner}
	}
	out, err := c.run(ctx, prog, nil, "-Y", "find-principals", "-f", c.AllowedSigners, "-s", sigFile)
	var principals []string
	if err == nil {
		for _, l := range strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' || r == ',' }) {
			if l = strings.TrimSpace(l); l != "" {
				principals = append(principals, l)
			}
		}
	}
	if len(principals) == 0 {
		return c.untrustedSSH(ctx, prog, data, sigFile, "signed by a key that is not in gpg.ssh.allowedSignersFile")
	}
	for _, p := range principals {
		if p == owner {
			// The owner's key, and still verify failed: the bytes or
			// the signature were changed.
			return Result{State: Unverified, Signer: owner, Reason: "bad signature: the record was changed after it was signed"}
		}
	}
	if _, err := c.run(ctx, prog, data, "-Y", "verify", "-f", c.AllowedSigners, "-I", principals[0], "-n", Namespace, "-s", sigFile); err != nil {
		return Result{State: Unverified, Signer: principals[0], Reason: "bad signature: the record was changed after it was signed"}
	}
	return Result{State: Other, Signer: strings.Join(principals, ", "), Reason: fmt.Sprintf("not by %s", owner)}
}

// untrustedSSH says whether a signature by a key nobody vouches for is at
// least intact, and names the key.
func (c Config) untrustedSSH(ctx context.Context, prog string, data []byte, sigFile, why string) Result {
	out, err := c.run(ctx, prog, data, "-Y", "check-novalidate", "-n", Namespace, "-s", sigFile)
	if err != nil {
		return Result{State: Unverified, Reason: "bad signature"}
	}
	r := Result{State: Unverified, Reason: why}
	if m := fingerprint().FindSubmatch(out); m != nil {
		r.Signer = string(m[1])
	}
	return r
}

// verifyGPG reads gpg's (or gpgsm's) status lines, as git does: a good
// signature, by a key the keyring trusts fully or ultimately, whose user
// id's address is the owner's.
func (c Config) verifyGPG(ctx context.Context, prog string, data []byte, armored, owner string) Result {
	sigFile, done, err := tempFile("handoff-*.sig", []byte(armored))
	if err != nil {
		return Result{State: Unverified, Reason: "checking the signature: " + err.Error()}
	}
	defer done()
	out, _ := c.run(ctx, prog, data, "--status-fd=1", "--verify", sigFile, "-")
	var good, bad, trusted bool
	var uid, keyid string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(sc.Text(), "[GNUPG:] "))
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "GOODSIG":
			good = true
			if len(f) > 1 {
				keyid = f[1]
			}
			if len(f) > 2 {
				uid = strings.Join(f[2:], " ")
			}
		case "BADSIG":
			bad = true
		case "ERRSIG":
			if len(f) > 1 {
				keyid = f[1]
			}
		case "TRUST_FULLY", "TRUST_ULTIMATE":
			trusted = true
		}
	}
	switch {
	case bad || !good && keyid == "":
		return Result{State: Unverified, Reason: "bad signature"}
	case !good:
		return Result{State: Unverified, Signer: keyid, Reason: "signed by a key that is not in the keyring"}
	case !trusted:
		return Result{State: Unverified, Signer: uidOr(uid, keyid), Reason: "signed by a key the keyring does not trust fully"}
	}
	if addr := address(uid); addr != "" && strings.EqualFold(addr, owner) {
		return Result{State: Verified, Signer: owner}
	}
	return Result{State: Other, Signer: uidOr(uid, keyid), Reason: fmt.Sprintf("not by %s", owner)}
}

func uidOr(uid, keyid string) string {
	if uid != "" {
		return uid
	}
	return keyid
}

// address is the email of a user id such as "Alice <alice@example.com>"
// (GnuPG's form, the last angle brackets), or the whole id when it has
// none. Anything else reads as itself, so it matches no owner: failing
// closed, where a full RFC 5322 parser would link the network stack into
// every start for this one line.
func address(uid string) string {
	if i, j := strings.LastIndex(uid, "<"), strings.LastIndex(uid, ">"); i >= 0 && j > i {
		return uid[i+1 : j]
	}
	return strings.TrimSpace(uid)
}
