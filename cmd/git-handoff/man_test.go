package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func manPage(t *testing.T) string {
	t.Helper()
	t.Chdir(t.TempDir())
	stdout, stderr, code := cliRun(t, "man")
	if code != 0 {
		t.Fatalf("man: exit %d\n%s", code, stderr)
	}
	return stdout
}

// The man page has git's sections, a synopsis line per command written
// as it is typed, and options as `--max-bytes N`.
func TestManPage(t *testing.T) {
	page := manPage(t)
	for _, sec := range []string{".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", `.SH "EXIT STATUS"`, ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES"} {
		if !strings.Contains(page, "\n"+sec+"\n") {
			t.Errorf("no section %s", sec)
		}
	}
	// one line a command, as the page wraps them
	synopsis := strings.ReplaceAll(section(page, ".SH SYNOPSIS"), "\n    ", " ")
	for path, c := range leafCommands() {
		if c.Hidden || strings.Contains(path, "exec-launch") || strings.Contains(path, "exited") {
			continue
		}
		line := roff(synopsisOf(path, c))
		if !strings.Contains(synopsis, line+"\n") {
			t.Errorf("SYNOPSIS lacks %q", line)
		}
		if !strings.Contains(page, `.SS "`+roff(progName+" "+path)+`"`) {
			t.Errorf("no description of %s", path)
		}
	}
	for _, bad := range []string{`=""`, "(default: false)", "[--help|-h]", "git-handoff [", "\\fBvalue\\fR"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
	for _, want := range []string{`\fB\-\-max\-bytes\fR \fIN\fR`, `\fB129\fR`, `\fB\-\-next\fR \fITEXT\fR`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	status := section(page, `.SH "EXIT STATUS"`)
	for _, code := range []string{"0", "1", "4", "5", "6", "129"} {
		if !strings.Contains(status, `\fB`+code+`\fR`) {
			t.Errorf("EXIT STATUS lacks %s", code)
		}
	}
}

// section is the text of a man page section, up to the next.
func section(page, heading string) string {
	_, rest, _ := strings.Cut(page, "\n"+heading+"\n")
	if i := strings.Index(rest, "\n.SH "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// ENVIRONMENT names every GIT_HANDOFF_ variable the program reads (test
// fixtures aside): read from the source, so a new one cannot go
// undocumented.
func TestManEnvironmentComplete(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join("..", "..")) // the module, before manPage moves away
	if err != nil {
		t.Fatal(err)
	}
	env := section(manPage(t), ".SH ENVIRONMENT")
	re := regexp.MustCompile(`"(GIT_HANDOFF_[A-Z0-9_]+)"`)
	seen := map[string]string{}
	err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(abs, path)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || rel == "internal" || d.Name() == "testdata" || rel == "bench") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(rel, "test"+string(filepath.Separator)) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			if !strings.HasPrefix(m[1], "GIT_HANDOFF_TEST_") {
				seen[m[1]] = rel
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("found no GIT_HANDOFF_ variable in the source: the walk is broken")
	}
	for name, file := range seen {
		if !strings.Contains(env, roff(name)) {
			t.Errorf("%s (read in %s) is not in ENVIRONMENT", name, file)
		}
	}
}

// Each example runs through the parser: its command exists and takes its
// options (checked with --help appended, which stops before any work).
func TestManExamplesParse(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, e := range examples {
		_, cmdline, ok := strings.Cut(e.cmd, "git handoff ")
		if !ok {
			t.Errorf("example %q does not run git handoff", e.cmd)
			continue
		}
		cmdline = strings.TrimSuffix(cmdline, ")")
		args := splitQuoted(cmdline)
		// Options are checked by name against the command's flags.
		var path []string
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				break
			}
			path = append(path, a)
		}
		cmds := leafCommands()
		c, ok := cmds[strings.Join(path[:min(len(path), 2)], " ")]
		if !ok {
			c, ok = cmds[path[0]]
		}
		if !ok {
			t.Errorf("example %q: no command %q", e.cmd, path)
			continue
		}
		for _, a := range args {
			if !strings.HasPrefix(a, "--") {
				continue
			}
			found := false
			for _, f := range c.Flags {
				for _, n := range f.Names() {
					found = found || "--"+n == a
				}
			}
			if !found {
				t.Errorf("example %q: %s takes no %s", e.cmd, c.Name, a)
			}
		}
	}
}

// splitQuoted splits a command line at spaces outside double quotes.
func splitQuoted(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, any := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, any = !quoted, true
		case r == ' ' && !quoted:
			if any {
				out = append(out, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}

// man itself reads the page without a warning, where man is installed.
func TestManPageRenders(t *testing.T) {
	man := needTool(t, "man")
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("groff is not installed: man cannot render")
	}
	file := filepath.Join(t.TempDir(), "git-handoff.1")
	if err := os.WriteFile(file, []byte(manPage(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, man, "--warnings", "-l", file)
	cmd.Env = append(os.Environ(), "MANWIDTH=100", "MANPAGER=cat", "PAGER=cat")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("man: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("man warns:\n%s", stderr.String())
	}
	text := string(out)
	for _, want := range []string{"EXIT STATUS", "git handoff end", "--max-bytes N"} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
}
