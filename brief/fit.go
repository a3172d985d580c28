package brief

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Fit returns text unchanged when it has at most maxChars characters.
// Otherwise it keeps the head of text (the baton comes first in every brief)
// cut at a line end, and ends with a line saying that the whole text is in
// the file where, so the reader knows it saw part and where the rest is.
// The result never has more than maxChars characters.
func Fit(text string, maxChars int, where string) (out string, cut bool) {
	if utf8.RuneCountInString(text) <= maxChars {
		return text, false
	}
	tail := fmt.Sprintf("\n\n**This brief was cut to fit: the whole brief (%d bytes) is in `%s`. Read that file before you start.**\n", len(text), where)
	room := maxChars - utf8.RuneCountInString(tail)
	if room <= 0 {
		// No room for any of the text: the pointer alone, cut if it must be.
		return truncateRunes(strings.TrimLeft(tail, "\n"), maxChars), true
	}
	head := truncateRunes(text, room)
	if i := strings.LastIndexByte(head, '\n'); i > len(head)/2 {
		head = head[:i+1] // a whole line, unless that loses half of what fits
	}
	return strings.TrimRight(head, "\n") + tail, true
}

// truncateRunes keeps the first n characters of s, never splitting one.
func truncateRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
