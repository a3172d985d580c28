package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// sessionIDs are the agents' session ids Locate takes: letters, digits,
// "-" and "_" (a UUID), so an id cannot name a path of its own.
var sessionIDs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`) })

// Locate returns the path of the transcript of an agent's session, for
// hooks whose input names none: Copilot CLI's sessionStart and sessionEnd
// give only sessionId (its agentStop gives transcriptPath). It keeps
// session state in $COPILOT_HOME, else ~/.copilot (a --config-dir given
// on its command line is not seen here). The other agents' hooks all give
// transcript_path; for them Locate returns ErrUnsupported. A transcript
// that is not there is an error wrapping os.ErrNotExist.
func Locate(harness, sessionID string) (string, error) {
	if harness != "copilot" {
		return "", fmt.Errorf("locating the transcript of a %s session (its hooks name it): %w", harness, ErrUnsupported)
	}
	if !sessionIDs().MatchString(sessionID) {
		return "", fmt.Errorf("locating the transcript of %s session %q: not a session id", harness, sessionID)
	}
	dir := os.Getenv("COPILOT_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("locating the transcript of %s session %q: %w", harness, sessionID, err)
		}
		dir = filepath.Join(home, ".copilot")
	}
	path := filepath.Join(dir, "session-state", sessionID, "events.jsonl")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("locating the transcript of %s session %q: %w", harness, sessionID, err)
	}
	return path, nil
}
