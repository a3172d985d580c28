package refstore

import "crypto/rand"

// Noncer is a store that makes its own unique bytes: the in-memory twin
// does, from a sequence of its own, so that a simulated run (package sim)
// replays exactly from its seed.
type Noncer interface {
	Nonce(n int) []byte
}

// Nonce is n bytes no other call returns: the store's own (Noncer), else
// the system's random source.
func Nonce(st Writer, n int) ([]byte, error) {
	if x, ok := st.(Noncer); ok {
		return x.Nonce(n), nil
	}
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, nil
}
