package transcript_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/transcript"
)

// read calls both readers, failing the test if they disagree on the error.
func read(t *testing.T, agent, path string) (string, string, error) {
	t.Helper()
	reply, err1 := transcript.LastReply(agent, path)
	ex, err2 := transcript.Excerpt(agent, path, 4096)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("LastReply error %v, Excerpt error %v", err1, err2)
	}
	return reply, ex, err1
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMissingFile(t *testing.T) {
	for _, agent := range fixtureAgents {
		_, _, err := read(t, agent, filepath.Join(t.TempDir(), "gone.jsonl"))
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: error %v, want one wrapping os.ErrNotExist", agent, err)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	for _, agent := range fixtureAgents {
		for name, data := range map[string]string{"empty": "", "blank lines": "\n\n  \n"} {
			reply, ex, err := read(t, agent, write(t, "t.jsonl", []byte(data)))
			if err != nil || reply != "" || ex != "" {
				t.Errorf("%s, %s: %q, %q, %v; want nothing and no error", agent, name, reply, ex, err)
			}
		}
	}
}

func TestNotJSONL(t *testing.T) {
	inputs := map[string]string{
		"text":   "# notes\nnothing here is JSON\nat all\n",
		"binary": "\x00\x01\x02\xff\xfe\n\x89PNG\r\n\x1a\n",
		"arrays": "[1,2]\n[\"a\"]\n",
		// A whole JSON document, as Gemini CLI wrote its chats before.
		"json": "{\n  \"sessionId\": \"x\",\n  \"messages\": [\n    {\n      \"type\": \"user\"\n    }\n  ]\n}\n",
	}
	for _, agent := range fixtureAgents {
		for name, data := range inputs {
			_, _, err := read(t, agent, write(t, "t.jsonl", []byte(data)))
			if !errors.Is(err, transcript.ErrMalformed) {
				t.Errorf("%s, %s: error %v, want ErrMalformed", agent, name, err)
			}
		}
	}
}

// Another agent's transcript, or JSON lines of some other program, read
// as nothing: no error, no reply made up from records of another shape.
func TestOtherFormat(t *testing.T) {
	for _, agent := range fixtureAgents {
		for _, other := range fixtureAgents {
			if other == agent {
				continue
			}
			reply, _, err := read(t, agent, fixture(t, other))
			if err != nil {
				t.Errorf("%s reading %s's transcript: %v", agent, other, err)
			}
			if strings.Contains(reply, "FIXTURE") {
				t.Errorf("%s reading %s's transcript found reply %q", agent, other, reply)
			}
		}
	}
}

func TestNotARegularFile(t *testing.T) {
	for _, agent := range fixtureAgents {
		_, _, err := read(t, agent, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s reading a directory: %v", agent, err)
		}
	}
}

func TestUnsupported(t *testing.T) {
	p := fixture(t, "claude-code")
	for _, agent := range []string{"opencode", "aider", "shell", ""} {
		if transcript.Supported(agent) {
			t.Errorf("Supported(%q) = true", agent)
		}
		if _, err := transcript.LastReply(agent, p); !errors.Is(err, transcript.ErrUnsupported) {
			t.Errorf("LastReply(%q): %v, want ErrUnsupported", agent, err)
		}
		if _, err := transcript.Excerpt(agent, p, 100); !errors.Is(err, transcript.ErrUnsupported) {
			t.Errorf("Excerpt(%q): %v, want ErrUnsupported", agent, err)
		}
		if _, err := transcript.Locate(agent, "0b7d6f34-57b5-4b5a-9a80-0b51e0a3f4a1"); !errors.Is(err, transcript.ErrUnsupported) {
			t.Errorf("Locate(%q): %v, want ErrUnsupported", agent, err)
		}
	}
	for _, agent := range fixtureAgents {
		if !transcript.Supported(agent) {
			t.Errorf("Supported(%q) = false", agent)
		}
	}
	if _, err := transcript.Excerpt("claude-code", p, 0); err == nil {
		t.Error("Excerpt with maxBytes 0: no error")
	}
}

func TestLocate(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("COPILOT_HOME", "")
	const id = "0b7d6f34-57b5-4b5a-9a80-0b51e0a3f4a1"
	if _, err := transcript.Locate("copilot", id); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Locate before the session exists: %v, want ErrNotExist", err)
	}
	want := filepath.Join(home, ".copilot", "session-state", id, "events.jsonl")
	os.MkdirAll(filepath.Dir(want), 0o755)
	os.WriteFile(want, nil, 0o644)
	if got, err := transcript.Locate("copilot", id); err != nil || got != want {
		t.Errorf("Locate = %q, %v; want %q", got, err, want)
	}
	other := t.TempDir()
	t.Setenv("COPILOT_HOME", other)
	if _, err := transcript.Locate("copilot", id); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Locate with COPILOT_HOME elsewhere: %v, want ErrNotExist", err)
	}
	for _, bad := range []string{"", "..", "../x", "a/b", "-rf", "id\n"} {
		if _, err := transcript.Locate("copilot", bad); err == nil || errors.Is(err, os.ErrNotExist) {
			t.Errorf("Locate(%q): %v, want an error that it is no session id", bad, err)
		}
	}
}

// hugeFile makes a 100 MB transcript in the test's temporary directory:
// sparse (no time to write) but for its end, which is tail.
func hugeFile(t testing.TB, tail []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const size = 100 << 20
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(tail, size); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHugeFile(t *testing.T) {
	for _, agent := range fixtureAgents {
		t.Run(agent, func(t *testing.T) {
			data, err := os.ReadFile(fixture(t, agent))
			if err != nil {
				t.Fatal(err)
			}
			// 100 MB of one line that never ends, then the session.
			p := hugeFile(t, append([]byte("\n"), data...))
			s := session{tok: "FIXTURE"}
			reply, ex, err := read(t, agent, p)
			if err != nil || reply != s.lastReply() {
				t.Errorf("LastReply = %q, %v; want %q", reply, err, s.lastReply())
			}
			// The window starts in the zeros: the excerpt says it is cut.
			if want := "(earlier lines cut)\n" + s.excerpt(); ex != want {
				t.Errorf("Excerpt =\n%s\nwant\n%s", ex, want)
			}
			// 100 MB that is one line, as far as the window sees.
			reply, ex, err = read(t, agent, hugeFile(t, []byte(`{"type":"assistant"}`)))
			if err != nil || reply != "" || ex != "" {
				t.Errorf("a 100 MB line: %q, %q, %v; want nothing and no error", reply, ex, err)
			}
			// 100 MB whose end is lines of another kind.
			reply, _, err = read(t, agent, hugeFile(t, bytes.Repeat([]byte("not json\n"), 200000)))
			if !errors.Is(err, transcript.ErrMalformed) || reply != "" {
				t.Errorf("100 MB of text: %q, %v; want ErrMalformed", reply, err)
			}
		})
	}
}

// Reading a 100 MB transcript allocates a bounded amount, whatever the
// file's size: a reader that read it all would allocate 100 MB or more.
func TestHugeFileMemory(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "codex"))
	if err != nil {
		t.Fatal(err)
	}
	// Real lines all through the window, then the session.
	var filler bytes.Buffer
	for filler.Len() < 2<<20 {
		filler.WriteString(`{"timestamp":"2026-12-02T12:00:00Z","type":"event_msg","payload":{"type":"token_count"}}` + "\n")
	}
	p := hugeFile(t, append(filler.Bytes(), data...))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := transcript.Excerpt("codex", p, 4096); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	const limit = 32 << 20
	if n := after.TotalAlloc - before.TotalAlloc; n > limit {
		t.Errorf("Excerpt of a 100 MB transcript allocated %d bytes, more than %d", n, limit)
	}
}

// BenchmarkHugeFile reports what reading the end of a 100 MB transcript
// costs (B/op is the memory; see TestHugeFileMemory for its bound).
func BenchmarkHugeFile(b *testing.B) {
	for _, agent := range fixtureAgents {
		b.Run(agent, func(b *testing.B) {
			data, err := os.ReadFile(fixture(b, agent))
			if err != nil {
				b.Fatal(err)
			}
			var filler bytes.Buffer
			for filler.Len() < 2<<20 {
				filler.Write(data)
			}
			p := hugeFile(b, filler.Bytes())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := transcript.Excerpt(agent, p, 4096); err != nil {
					b.Fatal(err)
				}
				if _, err := transcript.LastReply(agent, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
