package refstore

import (
	"bytes"
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/sign"
)

// Verification says who signed a record and whether that signer may speak
// for its owner (package sign).
type Verification = sign.Result

// signing is this repository's signing setup, read from git config once
// per Store (after includes and the user's global config, where keys
// usually are: one git process).
type signing struct {
	done  bool
	cfg   sign.Config
	err   error
	cache map[[2]string]Verification // blob id and owner → what it verified as
}

// Signed reports whether a record blob carries a signature in its place
// (not whether it is good), cheaply enough to ask of every record listed.
func Signed(data []byte) bool {
	return bytes.Contains(data, []byte(`,"sig":{`)) && sign.Signed(data)
}

// Signing returns the repository's signing setup.
func (s *Store) Signing(ctx context.Context) (sign.Config, error) {
	s.mu.Lock()
	if s.sig.done {
		defer s.mu.Unlock()
		return s.sig.cfg, s.sig.err
	}
	s.mu.Unlock()
	vals, err := s.Config(ctx, sign.Keys...)
	var cfg sign.Config
	if err == nil {
		cfg, err = sign.Load(vals, s.workDir)
	}
	if err != nil {
		err = fmt.Errorf("reading the signing setup: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sig.done, s.sig.cfg, s.sig.err = true, cfg, err
	return cfg, err
}

// PreloadSigning sets the signing setup from config values a caller read
// anyway (vals must hold the answer for every key of sign.Keys), saving
// the git process Signing would run. A setup already read is kept.
func (s *Store) PreloadSigning(vals map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sig.done {
		return
	}
	cfg, err := sign.Load(vals, s.workDir)
	if err != nil {
		err = fmt.Errorf("reading the signing setup: %w", err)
	}
	s.sig.done, s.sig.cfg, s.sig.err = true, cfg, err
}

// seal signs an encoded record when signing is on (handoff.sign), and
// returns the bytes to store.
func (s *Store) Seal(ctx context.Context, data []byte) ([]byte, error) {
	cfg, err := s.Signing(ctx)
	if err != nil {
		return nil, err
	}
	if !cfg.Enabled {
		return data, nil
	}
	sig, err := cfg.Sign(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%w (git config handoff.sign false writes records unsigned)", err)
	}
	out, err := sign.Seal(data, sig)
	if err != nil {
		return nil, err
	}
	if len(out) > MaxRecord {
		return nil, fmt.Errorf("%w: %d bytes with its signature, at most %d (%d KiB)", ErrTooLarge, len(out), MaxRecord, MaxRecord>>10)
	}
	return out, nil
}

// Verify checks the signature of the record blob oid against owner, with
// git's trust configuration. A blob is verified once per Store. It never
// fails: what cannot be checked is unverified, with the reason.
func (s *Store) Verify(ctx context.Context, oid, owner string) Verification {
	key := [2]string{oid, owner}
	s.mu.Lock()
	if v, ok := s.sig.cache[key]; ok {
		s.mu.Unlock()
		return v
	}
	s.mu.Unlock()
	v := s.verify(ctx, oid, owner)
	s.mu.Lock()
	if s.sig.cache == nil {
		s.sig.cache = map[[2]string]Verification{}
	}
	s.sig.cache[key] = v
	s.mu.Unlock()
	return v
}

func (s *Store) verify(ctx context.Context, oid, owner string) Verification {
	e, err := s.ReadObject(ctx, oid)
	if err != nil {
		return Verification{State: sign.Unverified, Reason: "reading the record: " + err.Error()}
	}
	if e.Data == nil {
		return Verification{State: sign.Unverified, Reason: "the record is too large to check"}
	}
	cfg, err := s.Signing(ctx)
	if err != nil {
		return Verification{State: sign.Unverified, Reason: err.Error()}
	}
	return cfg.Verify(ctx, e.Data, owner)
}
