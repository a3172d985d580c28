// Package transcript reads the coding agents' own transcript files: the
// agent's last reply (its summary of the session, when a hook's input
// carries none) and a short plain-text excerpt of the end of the
// conversation, for the handoff the next session receives.
//
// Each agent writes its own format (Claude Code, Codex and Copilot CLI
// append JSON lines; Gemini CLI appends records it upserts by id). Only the
// end of a file is read, whatever its size, and a line that does not parse
// is skipped, so a huge, truncated or foreign file costs a bounded time and
// memory. HARNESSES.md ("End of turn, session end, compaction,
// transcripts") says where each agent keeps its transcript; the hooks give
// its path.
package transcript

import (
	"errors"
	"fmt"
)

// ErrUnsupported is returned for an agent whose transcript this package
// cannot read.
var ErrUnsupported = errors.New("no transcript reader for this agent")

// ErrMalformed is returned when no line of the end of a file is a JSON
// record: it is not a transcript.
var ErrMalformed = errors.New("not a transcript: no line of its end is a JSON record")

// readers are the formats by harness catalogue name (package harness).
var readers = map[string]func(lines [][]byte) *conversation{
	"claude-code": readClaude,
	"codex":       readCodex,
	"gemini":      readGemini,
	"copilot":     readCopilot,
}

// Supported reports whether this package reads the transcripts of the
// agent of that harness name.
func Supported(harness string) bool {
	_, ok := readers[harness]
	return ok
}

// LastReply returns the text of the agent's last reply in the transcript
// at path: its last message with text, tool calls left out. It is "" when
// the end of the file holds none (an empty file, a session that never
// answered). A missing file is an error wrapping os.ErrNotExist.
func LastReply(harness, path string) (string, error) {
	c, err := read(harness, path)
	if err != nil {
		return "", err
	}
	return c.lastReply(), nil
}

// Excerpt returns the end of the conversation in the transcript at path
// as plain text, oldest first, one entry a line ("user: …",
// "assistant: …", "tool: $ git commit -m … (ok)"; continuation lines of a
// message are indented), at most maxBytes long. Earlier entries that do
// not fit are dropped, and a first line "(earlier lines cut)" says so.
// Context git-handoff itself injected (a start hook's brief, a stop hook's
// request for a baton) is left out.
func Excerpt(harness, path string, maxBytes int) (string, error) {
	if maxBytes <= 0 {
		return "", fmt.Errorf("transcript excerpt of %q: maxBytes %d is not positive", path, maxBytes)
	}
	c, err := read(harness, path)
	if err != nil {
		return "", err
	}
	return c.excerpt(maxBytes), nil
}

func read(harness, path string) (*conversation, error) {
	parse, ok := readers[harness]
	if !ok {
		return nil, fmt.Errorf("reading the transcript of %q: %w", harness, ErrUnsupported)
	}
	t, err := readTail(path, window)
	if err != nil {
		return nil, err
	}
	if len(t.lines) == 0 && t.bad > 0 {
		return nil, fmt.Errorf("reading %s transcript %q: %w", harness, path, ErrMalformed)
	}
	c := parse(t.lines)
	c.cut = t.cut
	return c, nil
}
