package harness

import (
	"errors"
	"regexp"
	"sync"
)

var errShape = errors.New("wrong shape")

// matcher turns a whole-string pattern into an id check. The pattern is
// compiled on first use: every git-handoff start, hooks included, would
// otherwise pay for it.
func matcher(pattern string) func(string) error {
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + pattern + `)$`) })
	return func(id string) error {
		if !re().MatchString(id) {
			return errShape
		}
		return nil
	}
}

// The shapes below never start with "-", so a validated id can follow a flag
// as its own argv element without being read as another flag.
var (
	// Canonical 8-4-4-4-12 hex UUID, any version, either case.
	validUUID = matcher(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

	// OpenCode: "ses_" and a base62 tail (its ids are prefixed, time-ordered).
	// The tail's exact length is not documented, so only its alphabet and a
	// sane bound are checked.
	validOpenCodeID = matcher(`ses_[0-9A-Za-z]{1,64}`)

	// Goose: a date and a counter, "20251108_1" in its CLI documentation.
	validGooseID = matcher(`[0-9]{8}_[0-9]{1,9}`)
)
