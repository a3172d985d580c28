package agentconf

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Markers around the section we keep in an instruction file. HTML comments
// are invisible when the Markdown is rendered.
const (
	sectionBegin = "<!-- git-handoff:begin (written by git handoff init --agent; removed by --remove) -->"
	sectionEnd   = "<!-- git-handoff:end -->"
)

// startInstructions tells an agent whose start hook cannot inject text to
// fetch the brief itself. Kept short: it is read at every session start.
const startInstructions = `## git-handoff

At the start of every session, before any other work, run ` + "`git handoff start`" + ` and read what it
prints: it claims the baton a previous session left for this branch and gives you its next steps,
failures and open questions. When you stop with work left, leave a baton:
` + "`git handoff end --next \"…\" --failed \"…\" --question \"…\"`" + `.
`

// section is a block between marker comments in a file others write too.
type section struct {
	path string
	body string
}

func (s section) rel() string { return s.path }

func (s section) block() string { return sectionBegin + "\n" + s.body + sectionEnd + "\n" }

var errUnterminated = errors.New("git-handoff section has a begin marker but no end marker")

// find locates our block: [b, e) covers the markers and the newline after
// the end marker.
func (s section) find(cur string) (b, e int, ok bool, err error) {
	b = strings.Index(cur, sectionBegin)
	if b < 0 {
		return 0, 0, false, nil
	}
	n := strings.Index(cur[b:], sectionEnd)
	if n < 0 {
		return 0, 0, false, errUnterminated
	}
	e = b + n + len(sectionEnd)
	if e < len(cur) && cur[e] == '\n' {
		e++
	}
	return b, e, true, nil
}

func (s section) install(curB []byte, exists bool) ([]byte, []string, error) {
	cur := string(curB)
	b, e, ok, err := s.find(cur)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		return []byte(cur[:b] + s.block() + cur[e:]), nil, nil
	}
	switch {
	case strings.TrimSpace(cur) == "":
		cur = ""
	case strings.HasSuffix(cur, "\n"):
		cur += "\n"
	default:
		cur += "\n\n"
	}
	return []byte(cur + s.block()), nil, nil
}

func (s section) remove(curB []byte) ([]byte, bool, error) {
	cur := string(curB)
	b, e, ok, err := s.find(cur)
	if err != nil || !ok {
		return curB, false, err
	}
	before, after := cur[:b], cur[e:]
	// Undo the blank line install put before the block.
	if strings.HasSuffix(before, "\n\n") {
		before = before[:len(before)-1]
	}
	if after == "" {
		before = strings.TrimRight(before, "\n")
		if before != "" {
			before += "\n"
		}
	}
	out := before + after
	if strings.TrimSpace(out) == "" {
		return nil, true, nil
	}
	return []byte(out), false, nil
}

func (s section) check(curB []byte, exists bool) (State, string) {
	cur := string(curB)
	b, e, ok, err := s.find(cur)
	switch {
	case err != nil:
		return Unreadable, err.Error()
	case !ok:
		return Missing, ""
	case cur[b:e] != s.block() && cur[b:e]+"\n" != s.block():
		return Stale, "section differs from what init writes"
	}
	return Installed, ""
}

// ownedFile is a file that is entirely ours (a plugin, a rule file),
// recognized by a marker in its content.
type ownedFile struct {
	path    string
	content string
	marker  string // a string only our versions of the file hold
}

func (o ownedFile) rel() string { return o.path }

func (o ownedFile) mine(cur []byte) bool { return bytes.Contains(cur, []byte(o.marker)) }

func (o ownedFile) install(cur []byte, exists bool) ([]byte, []string, error) {
	if exists && !o.mine(cur) {
		return nil, nil, fmt.Errorf("the file exists and was not written by git-handoff: move it away, or merge by hand")
	}
	return []byte(o.content), nil, nil
}

func (o ownedFile) remove(cur []byte) ([]byte, bool, error) {
	if !o.mine(cur) {
		return cur, false, nil
	}
	return nil, true, nil
}

func (o ownedFile) check(cur []byte, exists bool) (State, string) {
	switch {
	case !exists:
		return Missing, ""
	case !o.mine(cur):
		return Missing, "the file is someone else's"
	case string(cur) != o.content:
		return Stale, "differs from what init writes"
	}
	return Installed, ""
}
