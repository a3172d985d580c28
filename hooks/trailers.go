package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-handoff/git-handoff/internal/safetext"
	"github.com/git-handoff/git-handoff/refstore"
)

// Trailer keys tying a commit to the session that made it.
const (
	SessionTrailer = "Handoff-Session"
	AgentTrailer   = "Handoff-Agent"
)

// scissors is the line below which git commit --verbose drops everything.
const scissors = "# ------------------------ >8 ------------------------"

// addTrailers gives the commit message in file our trailers naming s, once.
// They behave like the commit's author: written when the message is first
// made, then kept. A message that already has a Handoff-Session or
// Handoff-Agent line is left untouched, so --amend, rebase, cherry-pick and
// commit -c/-C keep the session that first wrote the commit, and a pair is
// never split between two sessions (git interpret-trailers
// --if-exists doNothing, applied to both keys together).
//
// A message with no content yet (only blank and comment lines, as when git
// is about to open an editor on an empty message) is left alone: with our
// trailers in it, quitting the editor would commit instead of aborting.
//
// Plain messages are handled in process (appendTrailers), which saves a git
// process on every bound commit; anything else goes to git
// interpret-trailers. TestAppendTrailersMatchesGit holds the two together.
func addTrailers(ctx context.Context, file string, s Session) error {
	for _, v := range []string{s.ID, s.Harness} {
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("session value %q spans lines", v)
		}
	}
	if strings.TrimSpace(s.ID) == "" {
		return fmt.Errorf("bound session has no id")
	}
	msg, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	// A synced session record may carry anyone's text into a commit message.
	s.ID, s.Harness = safetext.String(strings.TrimSpace(s.ID)), safetext.String(strings.TrimSpace(s.Harness))
	want := []string{SessionTrailer + ": " + s.ID}
	if s.Harness != "" {
		want = append(want, AgentTrailer+": "+s.Harness)
	}
	if !hasContent(msg) || hasOurKey(msg) {
		return nil
	}
	// git merge writes its message without a final newline, and
	// interpret-trailers then glues the trailers onto the subject paragraph.
	if !bytes.HasSuffix(msg, []byte("\n")) {
		msg = append(msg, '\n')
	}
	if gitTrailerDefaults(ctx) {
		if out, ok := appendTrailers(msg, want); ok {
			return replaceFile(file, out)
		}
	}
	if err := replaceFile(file, msg); err != nil {
		return err
	}
	args := []string{"interpret-trailers", "--in-place",
		"--where", "end", "--if-exists", "doNothing", "--if-missing", "add"}
	for _, t := range want {
		args = append(args, "--trailer", t)
	}
	args = append(args, file)
	_, err = refstore.Git(ctx, ".", false, nil, args...)
	return err
}

// gitTrailerDefaults reports whether git reads no trailer.* setting here
// (separators, a key's own rules): appendTrailers knows git's rules for
// the defaults only. Asking git costs a process, but follows includes and
// every config file exactly; an error counts as "not the defaults".
func gitTrailerDefaults(ctx context.Context) bool {
	_, err := refstore.Git(ctx, ".", false, nil, "config", "--get-regexp", `^trailer\.`)
	var ge *refstore.GitError
	return errors.As(err, &ge) && ge.ExitCode() == 1
}

// replaceFile writes data to a new file beside path and renames it over
// path. Run may give up on us at its deadline and the process then exits
// mid-flight; git must find either the old message or the new one, never a
// truncated one.
func replaceFile(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".handoff*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
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

// hasOurKey reports whether a line of msg starts with one of our trailer
// keys. It looks at every line, not only the trailer block: a false "yes"
// costs one commit its trailers, a false "no" would give it two sessions.
func hasOurKey(msg []byte) bool {
	for _, line := range strings.Split(string(msg), "\n") {
		for _, k := range []string{SessionTrailer, AgentTrailer} {
			if rest, ok := strings.CutPrefix(line, k); ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":") {
				return true
			}
		}
	}
	return false
}

// isPlainTrailer reports whether line is a trailer exactly as git
// interpret-trailers would print it, so git would not rewrite it: a key of
// letters, digits and dashes, ": ", and a value without surrounding space.
// (Hand-written rather than a regexp, which would be compiled at every
// hook start.)
func isPlainTrailer(line string) bool {
	key, val, ok := strings.Cut(line, ": ")
	if !ok || key == "" || key[0] == '-' || val == "" || val != strings.Trim(val, " \t\n\r\f\v") {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// appendTrailers adds lines to msg the way git interpret-trailers would with
// default configuration, for the messages where that is unambiguous: no
// comment or conflict lines (which git skips, and whose comment character
// may be configured), no carriage returns, none of our keys already present,
// and a last paragraph that is either plainly prose (no colon-style line) or
// wholly plain trailers. ok is false for anything else; the caller then asks
// git. msg must end in a newline.
func appendTrailers(msg []byte, lines []string) (out []byte, ok bool) {
	text := string(msg)
	if strings.Contains(text, "\r") {
		return nil, false
	}
	all := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range all {
		if l != "" && strings.ContainsRune("#;@!$%^&|:", rune(l[0])) {
			return nil, false // a possible comment line
		}
		if l != "" && strings.TrimSpace(l) == "" {
			return nil, false // blank to one part of git, text to another
		}
		if strings.HasPrefix(l, "Conflicts:") || strings.HasPrefix(l, "\t") ||
			strings.HasPrefix(l, SessionTrailer) || strings.HasPrefix(l, AgentTrailer) {
			return nil, false
		}
	}
	// Trailing blank lines stay after the trailers, as git leaves them.
	end := len(all)
	for end > 0 && strings.TrimSpace(all[end-1]) == "" {
		end--
	}
	start := end // first line of the last paragraph
	for start > 0 && strings.TrimSpace(all[start-1]) != "" {
		start--
	}
	trailers, prose := 0, 0
	for _, l := range all[start:end] {
		switch {
		case isPlainTrailer(l):
			trailers++
		case strings.Contains(l, ":") || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "(cherry picked from commit "):
			return nil, false // a trailer to git's looser eye, or a continuation
		default:
			prose++
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(all[:end], "\n"))
	b.WriteString("\n")
	switch {
	case trailers > 0 && prose == 0 && start > 0:
		// An existing trailer block below the title: ours go at its end.
	case trailers == 0:
		b.WriteString("\n")
	default:
		return nil, false
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	for _, l := range all[end:] {
		b.WriteString(l + "\n")
	}
	return []byte(b.String()), true
}
