package handoff

// PENDING: wired to packages redact and transcript when they land.

type redactHit struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

func scrubText(s string) (string, []redactHit)            { return s, nil }
func scrubList(l []string) ([]string, []redactHit)        { return l, nil }
func lastReply(harness, path string) (string, error)      { return "", nil }
func transcriptTail(harness, path string) (string, error) { return "", nil }
