package brief

import (
	"fmt"
	"strings"
)

// packageTitle opens every handoff package's first line.
const packageTitle = "## 🔁 Handoff package: "

// Continued retitles the handoff package pkg of session id (which replaced
// session replaced) for an agent switch from harness from to harness to:
// the agent now reading it does not replace anyone, it takes over session
// id from another agent, and the title says so. The rest of the package,
// the replaced session's story, still holds and is kept as it is. A
// package without our title (or none) is returned unchanged.
func Continued(pkg, id, replaced, from, to string) string {
	if !strings.HasPrefix(pkg, packageTitle) {
		return pkg
	}
	if from == "" {
		from = "an unrecorded agent"
	}
	title := fmt.Sprintf("%ssession %s continues under %s (until now %s)", packageTitle, OneLine(id), OneLine(to), OneLine(from))
	if replaced != "" {
		title += fmt.Sprintf("; it replaced session %s", OneLine(replaced))
	}
	_, rest, _ := strings.Cut(pkg, "\n")
	return title + "\n" + rest
}
