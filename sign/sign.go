// Package sign signs records and verifies their signatures with the user's
// own git signing setup: the programs git itself runs (ssh-keygen -Y,
// gpg, gpgsm) and the keys and trust git is configured with
// (gpg.format, user.signingKey, gpg.ssh.allowedSignersFile, GPG's
// keyring). It is the only code that runs those programs; refstore calls
// it when it writes a record and when a workflow asks who wrote one.
//
// A signature travels inside the record it signs, as its last member
// "sig", and covers the record's canonical bytes: the same JSON object
// with that member absent. Keeping it inside the blob means every copy of
// the record (a fetch, a push, a reflog entry) carries its signature, and
// an older git-handoff, which ignores unknown fields, still reads it.
package sign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Namespace is the ssh signature namespace of records. It differs from
// git's own ("git"), so a signature on a commit can never pass for one on
// a record, nor the other way round.
const Namespace = "git-handoff"

// Signature is a record's "sig" member.
type Signature struct {
	Format    string `json:"format"`           // "ssh", "openpgp" or "x509"
	Signer    string `json:"signer,omitempty"` // what the writer said its key was; informative only
	Signature string `json:"signature"`        // the armored signature
}

// State is what a verification concluded.
type State string

const (
	// Verified: a valid signature by a signer trusted to speak for the
	// record's owner.
	Verified State = "verified"
	// Unverified: no signature, a bad one, or one by a key nobody trusts.
	Unverified State = "unverified"
	// Other: a valid signature by a trusted signer who is not the owner.
	Other State = "signed by someone else"
)

// Result says who signed a record and whether that signer may speak for
// its owner.
type Result struct {
	State  State  `json:"state"`
	Format string `json:"format,omitempty"` // "" when unsigned
	Signer string `json:"signer,omitempty"` // the trusted principal or uid, else the key, when known
	Reason string `json:"reason,omitempty"` // why it is not verified
}

// Trusted reports whether the record may be taken as its owner's word.
func (r Result) Trusted() bool { return r.State == Verified }

func (r Result) String() string {
	s := string(r.State)
	if r.Signer != "" && r.State != Verified {
		s += " (" + r.Signer + ")"
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// ErrMalformed is returned by Open for a "sig" member that is not where
// Seal puts it, or not a signature.
var ErrMalformed = errors.New("malformed signature")

const member = `,"sig":`

// Seal appends sig to the canonical JSON object as its last member.
func Seal(canonical []byte, sig Signature) ([]byte, error) {
	canonical = bytes.TrimRight(canonical, " \t\r\n")
	if len(canonical) < 2 || canonical[0] != '{' || canonical[len(canonical)-1] != '}' {
		return nil, fmt.Errorf("sealing a record: not a JSON object")
	}
	if string(canonical) == "{}" {
		return nil, fmt.Errorf("sealing a record: an empty object has nothing to sign")
	}
	enc, err := json.Marshal(sig)
	if err != nil {
		return nil, fmt.Errorf("sealing a record: %w", err)
	}
	out := make([]byte, 0, len(canonical)+len(member)+len(enc))
	out = append(out, canonical[:len(canonical)-1]...)
	out = append(out, member...)
	out = append(out, enc...)
	return append(out, '}'), nil
}

// Open splits a record blob into its canonical bytes and its signature.
// An unsigned record comes back whole with a nil signature. A "sig" member
// that is not exactly the last member Seal writes is ErrMalformed: bytes
// cannot be told apart from the signature they claim to be covered by.
func Open(blob []byte) (canonical []byte, sig *Signature, err error) {
	var head struct {
		Sig json.RawMessage `json:"sig"`
	}
	if err := json.Unmarshal(blob, &head); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if head.Sig == nil {
		return blob, nil, nil
	}
	var s Signature
	if err := json.Unmarshal(head.Sig, &s); err != nil || s.Signature == "" || s.Format == "" {
		return nil, nil, fmt.Errorf("%w: the sig member is not a signature", ErrMalformed)
	}
	enc, _ := json.Marshal(s)
	suffix := append(append([]byte(member), enc...), '}')
	trimmed := bytes.TrimRight(blob, " \t\r\n")
	if !bytes.HasSuffix(trimmed, suffix) {
		return nil, nil, fmt.Errorf("%w: the sig member is not the record's last member as written", ErrMalformed)
	}
	body := trimmed[:len(trimmed)-len(suffix)]
	canonical = append(append(make([]byte, 0, len(body)+1), body...), '}')
	return canonical, &s, nil
}

// Signed reports whether blob carries a signature in its place, without
// checking it: what sync's join prefers between two copies of one record.
func Signed(blob []byte) bool {
	_, s, err := Open(blob)
	return err == nil && s != nil
}
