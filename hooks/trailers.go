package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// Trailer keys tying a commit to the session that made it.
const (
	SessionTrailer = "Handoff-Session"
	AgentTrailer   = "Handoff-Agent"
)

// scissors is the line below which git commit --verbose drops everything.
const scissors = "# ------------------------ >8 ------------------------"

// addTrailers gives the commit message in file exactly one Handoff-Session
// and one Handoff-Agent trailer naming s: the session that makes this commit
// object. An amend by the same session finds them already there and leaves
// the file untouched; an amend by another session replaces the values in
// place (git interpret-trailers --where after --if-exists replace), so a
// commit never carries two sessions whose agents cannot be paired up.
//
// A message with no content yet (only blank and comment lines, as when git
// is about to open an editor on an empty message) is left alone: with our
// trailers in it, quitting the editor would commit instead of aborting.
func addTrailers(ctx context.Context, file string, s Session) error {
	for _, v := range []string{s.ID, s.Harness} {
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("session value %q spans lines", v)
		}
	}
	if s.ID == "" {
		return fmt.Errorf("bound session has no id")
	}
	msg, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	want := []string{SessionTrailer + ": " + s.ID}
	if s.Harness != "" {
		want = append(want, AgentTrailer+": "+s.Harness)
	}
	if !hasContent(msg) || hasLines(msg, want) {
		return nil
	}
	// git merge writes its message without a final newline, and
	// interpret-trailers then glues the trailers onto the subject paragraph.
	if !bytes.HasSuffix(msg, []byte("\n")) {
		if err := os.WriteFile(file, append(msg, '\n'), 0o666); err != nil {
			return err
		}
	}
	args := []string{"interpret-trailers", "--in-place",
		"--where", "after", "--if-exists", "replace", "--if-missing", "add"}
	for _, t := range want {
		args = append(args, "--trailer", t)
	}
	args = append(args, file)
	_, err = refstore.Git(ctx, ".", false, nil, args...)
	return err
}

// hasContent reports whether msg has a line that is neither blank nor a
// comment above any scissors line. It assumes git's default comment
// character '#'.
func hasContent(msg []byte) bool {
	for _, line := range bytes.Split(msg, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if string(line) == scissors {
			return false
		}
		if len(bytes.TrimSpace(line)) > 0 && line[0] != '#' {
			return true
		}
	}
	return false
}

// hasLines reports whether every one of want is a whole line of msg.
func hasLines(msg []byte, want []string) bool {
	lines := map[string]bool{}
	for _, line := range strings.Split(string(msg), "\n") {
		lines[strings.TrimRight(line, "\r")] = true
	}
	for _, w := range want {
		if !lines[w] {
			return false
		}
	}
	return true
}
