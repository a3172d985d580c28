package refstore

import (
	"context"
	"sync"
)

// Records are blobs, and every swap of one is logged in its ref's reflog
// (superseded batons are read back from there). git gc's reflog expiry
// checks whether each old value is a reachable commit: for a blob it
// prints "error: Object … not a commit" and "… is a commit, not a blob"
// lines, one pair per entry, and counts the entry unreachable, dropping it
// after 30 days instead of 90. Telling gc that nothing under refs/ao/ is
// ever unreachable (the setting it has for exactly this) silences it and
// keeps the log for gc.reflogExpire.
const (
	gcKey       = "gc.refs/ao/*.reflogExpireUnreachable"
	gcKeyParsed = "gc.refs/ao/*.reflogexpireunreachable" // as localConfig names it
)

var gcOnce sync.Map // common dir → struct{}: asked once per process

// ensureGCConfig sets gcKey in the repository's own config before its
// first record is written, unless something is set there already (the
// user's choice stands). It costs one git process, once per repository.
func (s *Store) ensureGCConfig(ctx context.Context) {
	if _, done := gcOnce.LoadOrStore(s.commonDir, struct{}{}); done {
		return
	}
	if s.localConfig().get(gcKeyParsed) != "" {
		return
	}
	// Best effort: a read-only config only means gc's noise stays.
	Git(ctx, s.workDir, false, nil, "config", "--local", gcKey, "never")
	s.configChanged()
}
