package transcript

import (
	"strings"
	"unicode/utf8"
)

// role is who an entry of the conversation is from.
type role int

const (
	user role = iota
	assistant
	tool
	summary // the agent's summary of what compaction dropped
)

var roleNames = [...]string{user: "user", assistant: "assistant", tool: "tool", summary: "summary"}

// Tool results as an entry shows them.
const (
	statusOK      = "ok"
	statusFailed  = "failed"
	statusDone    = "done" // a result came, but not whether it succeeded
	statusPending = "no result"
)

// entry is one line of the excerpt.
type entry struct {
	role role
	// text is a message's text, or a tool call's one-line summary.
	text string
	// msgID groups the records of one assistant message (Claude Code
	// writes one record per content block).
	msgID  string
	status string // tool calls only
}

// conversation is what a reader made of the end of a transcript.
type conversation struct {
	entries []entry
	calls   map[string]int // tool call id → its entry
	cut     bool           // entries before these are not known
}

func newConversation() *conversation {
	return &conversation{calls: map[string]int{}}
}

// say adds a message. Text from the same assistant message as the entry
// before it is joined to it.
func (c *conversation) say(r role, msgID, text string) {
	text = clean(text)
	if text == "" {
		return
	}
	if r == assistant && msgID != "" && len(c.entries) > 0 {
		last := &c.entries[len(c.entries)-1]
		if last.role == assistant && last.msgID == msgID {
			last.text += "\n" + text
			return
		}
	}
	c.entries = append(c.entries, entry{role: r, msgID: msgID, text: text})
}

// call adds a tool call; input is its arguments (a JSON object or, for
// Codex's custom tools, a string).
func (c *conversation) call(id, name string, input any) {
	c.entries = append(c.entries, entry{role: tool, text: toolSummary(name, input), status: statusPending})
	if id != "" {
		c.calls[id] = len(c.entries) - 1
	}
}

// result records how the call of that id ended. A result whose call is
// before the window is dropped, and one that cannot tell does not undo
// one that could (Codex records a command's exit code, then its output).
func (c *conversation) result(id, status string) {
	i, ok := c.calls[id]
	if !ok {
		return
	}
	if was := c.entries[i].status; status == statusDone && (was == statusOK || was == statusFailed) {
		return
	}
	c.entries[i].status = status
}

func (c *conversation) lastReply() string {
	for i := len(c.entries) - 1; i >= 0; i-- {
		if e := c.entries[i]; e.role == assistant {
			return e.text
		}
	}
	return ""
}

// maxEntry is the most of one message the excerpt shows: its start, where
// an agent says what it did.
const maxEntry = 1500

// cutMark is the excerpt's first line when entries were left out.
const cutMark = "(earlier lines cut)"

func (c *conversation) excerpt(maxBytes int) string {
	if len(c.entries) == 0 {
		return ""
	}
	lines := make([]string, len(c.entries))
	for i, e := range c.entries {
		lines[i] = e.line()
	}
	// Keep the last k lines, as many as fit; with the mark in front when
	// any line is left out.
	k, size := 0, -1 // size of the last k lines joined by newlines
	for k < len(lines) && size+1+len(lines[len(lines)-1-k]) <= maxBytes {
		size += 1 + len(lines[len(lines)-1-k])
		k++
	}
	if k == len(lines) && !c.cut {
		return strings.Join(lines, "\n")
	}
	mark := len(cutMark) + 1
	for k > 0 && mark+size > maxBytes {
		size -= 1 + len(lines[len(lines)-k])
		k--
	}
	if k > 0 {
		return cutMark + "\n" + strings.Join(lines[len(lines)-k:], "\n")
	}
	// Not even the last line fits whole: its end, from a rune boundary.
	last := lines[len(lines)-1]
	if maxBytes > 2*mark {
		return cutMark + "\n" + tailRunes(last, maxBytes-mark)
	}
	return tailRunes(last, maxBytes)
}

// line renders an entry: its role, then its text with continuation lines
// indented, cut to maxEntry.
func (e entry) line() string {
	text := e.text
	if e.role == tool {
		text += " (" + e.status + ")"
	}
	if len(text) > maxEntry {
		text = headRunes(text, maxEntry-len("…")) + "…"
	}
	return roleNames[e.role] + ": " + strings.ReplaceAll(text, "\n", "\n  ")
}

// clean makes text fit a line-oriented excerpt: valid UTF-8, no carriage
// returns, no blank lines, no trailing space.
func clean(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimRight(l, " \t"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// headRunes is the longest start of s of at most n bytes that ends on a
// rune boundary.
func headRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailRunes is the longest end of s of at most n bytes that starts on a
// rune boundary.
func tailRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
