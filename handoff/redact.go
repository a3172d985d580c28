package handoff

import (
	"github.com/git-handoff/git-handoff/redact"
)

// Everything git-handoff writes that others read (batons, summaries, the
// automatic handoff, a replacement's package, objectives) is redacted
// before it is written: a credential pasted into a note, or quoted from a
// transcript, would otherwise travel to every clone with the next push.
// What was replaced is said in a notice and, in --json, as Redacted.

func scrubText(s string) (string, []redact.Hit) { return redact.Text(s) }

func scrubList(l []string) ([]string, []redact.Hit) { return redact.Strings(l) }

// redactedNotice is the notice for what was redacted ("" for nothing).
func redactedNotice(hits []redact.Hit) string { return redact.Describe(hits) }
