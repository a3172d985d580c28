package transcript

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func conv(cut bool, entries ...entry) *conversation {
	return &conversation{entries: entries, cut: cut, calls: map[string]int{}}
}

func TestExcerptCuts(t *testing.T) {
	three := []entry{
		{role: user, text: "fix the build"},                // "user: fix the build" 19
		{role: tool, text: "$ make", status: statusFailed}, // "tool: $ make (failed)" 21
		{role: assistant, text: "Fixed it.\nDone"},         // "assistant: Fixed it.\n  Done" 27
	}
	whole := "user: fix the build\ntool: $ make (failed)\nassistant: Fixed it.\n  Done"
	tests := []struct {
		name     string
		c        *conversation
		maxBytes int
		want     string
	}{
		{"all fits", conv(false, three...), 200, whole},
		{"exactly", conv(false, three...), len(whole), whole},
		{"one byte short", conv(false, three...), len(whole) - 1, cutMark + "\nassistant: Fixed it.\n  Done"},
		{"the window was cut", conv(true, three...), 200, cutMark + "\n" + whole},
		{"last two", conv(true, three...), len(whole), cutMark + "\ntool: $ make (failed)\nassistant: Fixed it.\n  Done"},
		{"last one", conv(false, three...), 20 + 27 + 5, cutMark + "\nassistant: Fixed it.\n  Done"},
		{"the last line without the mark", conv(false, three...), 40, "assistant: Fixed it.\n  Done"},
		{"the end of the last line", conv(false, entry{role: user, text: "a"}, entry{role: assistant, text: strings.Repeat("x", 80) + " end"}), 60, cutMark + "\n" + strings.Repeat("x", 36) + " end"},
		{"too small for the mark", conv(false, three...), 10, "it.\n  Done"},
		{"nothing", conv(true), 100, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c.excerpt(tt.maxBytes)
			if got != tt.want {
				t.Errorf("excerpt(%d) =\n%q\nwant\n%q", tt.maxBytes, got, tt.want)
			}
			if len(got) > tt.maxBytes {
				t.Errorf("excerpt(%d) is %d bytes", tt.maxBytes, len(got))
			}
		})
	}
}

func TestExcerptRunes(t *testing.T) {
	c := conv(false, entry{role: assistant, text: strings.Repeat("é✓", 100)})
	for n := 1; n < 120; n++ {
		got := c.excerpt(n)
		if len(got) > n || !utf8.ValidString(got) {
			t.Fatalf("excerpt(%d) = %q: %d bytes, valid UTF-8 %v", n, got, len(got), utf8.ValidString(got))
		}
	}
}

func TestEntryLine(t *testing.T) {
	long := strings.Repeat("ü", maxEntry)
	got := entry{role: assistant, text: long}.line()
	if len(got) > len("assistant: ")+maxEntry || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("a long message: %d bytes, ends %q", len(got), got[len(got)-8:])
	}
	if got := (entry{role: tool, text: "$ go test", status: statusPending}).line(); got != "tool: $ go test (no result)" {
		t.Errorf("a call without result: %q", got)
	}
}

func TestSay(t *testing.T) {
	c := newConversation()
	c.say(user, "", "  \n")
	c.say(assistant, "m1", "first block\r\n\n\n")
	c.say(assistant, "m1", "second block  ")
	c.call("c1", "Bash", map[string]any{"command": "ls"})
	c.say(assistant, "m1", "after the call")
	c.say(assistant, "", "bad \xff byte")
	c.result("c1", statusOK)
	c.result("c1", statusDone) // says less than ok
	c.result("unknown", statusFailed)
	want := []string{
		"assistant: first block\n  second block",
		"tool: $ ls (ok)",
		"assistant: after the call",
		"assistant: bad \uFFFD byte",
	}
	var got []string
	for _, e := range c.entries {
		got = append(got, e.line())
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("entries\n%q\nwant\n%q", got, want)
	}
	if r := c.lastReply(); r != "bad \uFFFD byte" {
		t.Errorf("lastReply = %q", r)
	}
}
