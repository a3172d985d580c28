package harness

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const (
	claudeID   = "0b0c8f9e-3f6a-4c55-9d7e-2a1b3c4d5e6f"
	codexID    = "019a3c2e-7b1d-7f00-8e2a-0c1d2e3f4a5b"
	geminiID   = "c2a1f3e4-5b6c-4d7e-8f90-a1b2c3d4e5f6"
	copilotID  = "6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
	cursorID   = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d"
	opencodeID = "ses_7f3a9b2c1d0eAbCdEfGhIjKlMn"
	gooseID    = "20251108_2"
)

func TestLookup(t *testing.T) {
	tests := []struct{ in, want string }{
		{"claude-code", "claude-code"},
		{"claude", "claude-code"},
		{"  Claude ", "claude-code"},
		{"CLAUDE-CODE", "claude-code"},
		{"codex", "codex"},
		{"gemini-cli", "gemini"},
		{"OpenCode", "opencode"},
		{"goose", "goose"},
		{"copilot", "copilot"},
		{"github-copilot", "copilot"},
		{"aider", "aider"},
		{"cursor", "cursor"},
		{"cursor-agent", "cursor"},
		{"person", "shell"},
		{"shell", "shell"},
	}
	for _, tt := range tests {
		h, err := Lookup(tt.in)
		if err != nil || h.Name != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tt.in, h.Name, err, tt.want)
		}
	}
	for _, bad := range []string{"", "vim", "claude code", "-rf", "cursor-agent2"} {
		_, err := Lookup(bad)
		if !errors.Is(err, ErrUnknown) {
			t.Errorf("Lookup(%q) err = %v, want ErrUnknown", bad, err)
			continue
		}
		for _, name := range Names() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("Lookup(%q) error %q does not list %q", bad, err, name)
			}
		}
	}
}

func TestNamesAndAliasesAreUnique(t *testing.T) {
	want := []string{"aider", "claude-code", "codex", "copilot", "cursor", "gemini", "goose", "opencode", "shell"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	seen := map[string]string{}
	for _, h := range All() {
		for _, n := range append([]string{h.Name}, h.Aliases...) {
			if n != strings.ToLower(n) {
				t.Errorf("%s: name %q is not lower case, Lookup could never match it", h.Name, n)
			}
			if other, dup := seen[n]; dup {
				t.Errorf("name %q belongs to both %s and %s", n, other, h.Name)
			}
			seen[n] = h.Name
		}
		if h.CanResume && h.IDFormat == "" {
			t.Errorf("%s resumes by id but says nothing of its id format", h.Name)
		}
	}
}

func must(t *testing.T, name string) Harness {
	t.Helper()
	h, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestFresh(t *testing.T) {
	tests := []struct {
		harness string
		opts    LaunchOptions
		argv    []string
		env     []string
		note    string // substring; "" means no note
	}{
		// Claude Code
		{"claude", LaunchOptions{Prompt: "fix the build"},
			[]string{"claude", "--", "fix the build"}, nil, ""},
		{"claude", LaunchOptions{Prompt: "go", Model: "opus", SessionID: claudeID},
			[]string{"claude", "--model=opus", "--session-id", claudeID, "--", "go"}, nil, ""},
		{"claude", LaunchOptions{PromptFile: "/tmp/brief.md"},
			[]string{"claude", "--", "Read the handoff brief in /tmp/brief.md before doing anything else."}, nil, "pointer"},
		// Codex
		{"codex", LaunchOptions{Prompt: "fix the build", Model: "gpt-5-codex"},
			[]string{"codex", "--model=gpt-5-codex", "--", "fix the build"}, nil, ""},
		// Gemini
		{"gemini", LaunchOptions{Prompt: "fix the build"},
			[]string{"gemini", "--prompt-interactive=fix the build"}, nil, ""},
		{"gemini", LaunchOptions{Prompt: "go", Model: "gemini-2.5-pro", SessionID: geminiID},
			[]string{"gemini", "--model=gemini-2.5-pro", "--session-id=" + geminiID, "--prompt-interactive=go"}, nil, ""},
		// OpenCode
		{"opencode", LaunchOptions{Prompt: "fix the build", Model: "anthropic/claude-sonnet-4"},
			[]string{"opencode", "--model=anthropic/claude-sonnet-4", "--prompt=fix the build"}, nil, ""},
		// Goose
		{"goose", LaunchOptions{Prompt: "fix the build", Model: "gpt-4o"},
			[]string{"goose", "run", "--interactive", "--model=gpt-4o", "--text=fix the build"}, nil, ""},
		{"goose", LaunchOptions{PromptFile: "brief.md"},
			[]string{"goose", "run", "--interactive", "--instructions=brief.md"}, nil, ""},
		{"goose", LaunchOptions{PromptFile: "-"},
			[]string{"goose", "run", "--interactive", "--instructions=./-"}, nil, ""},
		// Copilot
		{"copilot", LaunchOptions{Prompt: "fix the build", Model: "gpt-5"},
			[]string{"copilot", "--model=gpt-5", "--interactive=fix the build"}, nil, ""},
		{"copilot", LaunchOptions{Prompt: "fix the build", SessionID: copilotID},
			[]string{"copilot", "--session-id=" + copilotID, "--interactive=fix the build"}, nil, ""},
		// Aider
		{"aider", LaunchOptions{PromptFile: ".handoff/brief.md", Model: "sonnet"},
			[]string{"aider", "--model=sonnet", "--read=.handoff/brief.md"}, nil, "no session ids"},
		{"aider", LaunchOptions{PromptFile: "b.md", Prompt: "also this"},
			[]string{"aider", "--read=b.md"}, nil, "prompt text was not sent"},
		{"aider", LaunchOptions{PromptFile: "-brief.md"},
			[]string{"aider", "--read=./-brief.md"}, nil, "no session ids"},
		// Cursor
		{"cursor", LaunchOptions{Prompt: "fix the build", Model: "sonnet-4"},
			[]string{"cursor-agent", "--model=sonnet-4", "--", "fix the build"}, nil, ""},
	}
	for _, tt := range tests {
		l, err := must(t, tt.harness).Fresh(tt.opts)
		if err != nil {
			t.Errorf("%s Fresh(%+v): %v", tt.harness, tt.opts, err)
			continue
		}
		checkLaunch(t, tt.harness+" Fresh", l, tt.argv, tt.env, tt.note)
	}
}

func TestResume(t *testing.T) {
	tests := []struct {
		harness, id string
		opts        LaunchOptions
		argv        []string
		env         []string
		note        string
	}{
		{"claude", claudeID, LaunchOptions{},
			[]string{"claude", "--resume", claudeID}, nil, ""},
		{"claude", claudeID, LaunchOptions{Prompt: "carry on", Model: "opus", SessionID: "ignored"},
			[]string{"claude", "--model=opus", "--resume", claudeID, "--", "carry on"}, nil, ""},
		{"codex", codexID, LaunchOptions{},
			[]string{"codex", "resume", "--", codexID}, nil, ""},
		{"codex", codexID, LaunchOptions{Prompt: "carry on", Model: "o3"},
			[]string{"codex", "resume", "--model=o3", "--", codexID, "carry on"}, nil, ""},
		{"gemini", geminiID, LaunchOptions{},
			[]string{"gemini", "--resume=" + geminiID}, nil, ""},
		{"gemini", geminiID, LaunchOptions{Prompt: "carry on"},
			[]string{"gemini", "--resume=" + geminiID, "--prompt-interactive=carry on"}, nil, ""},
		// The released opencode (1.18.33) showed the old conversation but
		// never delivered --prompt with --session: the user is told instead.
		{"opencode", opencodeID, LaunchOptions{Prompt: "carry on"},
			[]string{"opencode", "--session=" + opencodeID}, nil, "does not deliver a prompt when resuming"},
		{"goose", gooseID, LaunchOptions{},
			[]string{"goose", "session", "--resume", "--session-id=" + gooseID}, nil, ""},
		{"goose", gooseID, LaunchOptions{Prompt: "carry on", Model: "gpt-4o"},
			[]string{"goose", "session", "--resume", "--session-id=" + gooseID}, []string{"GOOSE_MODEL=gpt-4o"}, "cannot take a prompt"},
		{"copilot", copilotID, LaunchOptions{Model: "gpt-5"},
			[]string{"copilot", "--model=gpt-5", "--resume=" + copilotID}, nil, ""},
		{"copilot", copilotID, LaunchOptions{Prompt: "carry on"},
			[]string{"copilot", "--resume=" + copilotID, "--interactive=carry on"}, nil, ""},
		{"cursor", cursorID, LaunchOptions{},
			[]string{"cursor-agent", "--resume=" + cursorID}, nil, ""},
		{"cursor", cursorID, LaunchOptions{Prompt: "carry on"},
			[]string{"cursor-agent", "--resume=" + cursorID, "--", "carry on"}, nil, ""},
	}
	for _, tt := range tests {
		l, err := must(t, tt.harness).Resume(tt.id, tt.opts)
		if err != nil {
			t.Errorf("%s Resume(%q): %v", tt.harness, tt.id, err)
			continue
		}
		checkLaunch(t, tt.harness+" Resume", l, tt.argv, tt.env, tt.note)
	}
}

func checkLaunch(t *testing.T, what string, l Launch, argv, env []string, note string) {
	t.Helper()
	if !slices.Equal(l.Argv, argv) {
		t.Errorf("%s argv:\n got %q\nwant %q", what, l.Argv, argv)
	}
	if !slices.Equal(l.Env, env) {
		t.Errorf("%s env = %q, want %q", what, l.Env, env)
	}
	if (note == "") != (l.Note == "") || !strings.Contains(l.Note, note) {
		t.Errorf("%s note = %q, want one containing %q", what, l.Note, note)
	}
}

func TestEveryLauncherIsCovered(t *testing.T) {
	// Each harness with a launcher builds a sane fresh argv, and each that
	// resumes builds a sane resume argv: program first, no empty elements.
	ids := map[string]string{"claude-code": claudeID, "codex": codexID, "gemini": geminiID,
		"copilot": copilotID, "cursor": cursorID, "opencode": opencodeID, "goose": gooseID}
	for _, h := range All() {
		if h.Binary == "" {
			continue
		}
		l, err := h.Fresh(LaunchOptions{Prompt: "p", PromptFile: "f"})
		if err != nil {
			t.Errorf("%s Fresh: %v", h.Name, err)
		} else if l.Argv[0] != h.Binary || slices.Contains(l.Argv, "") {
			t.Errorf("%s Fresh argv = %q", h.Name, l.Argv)
		}
		if !h.CanResume {
			continue
		}
		id, ok := ids[h.Name]
		if !ok {
			t.Errorf("%s resumes but the test has no id for it", h.Name)
			continue
		}
		l, err = h.Resume(id, LaunchOptions{})
		if err != nil {
			t.Errorf("%s Resume: %v", h.Name, err)
		} else if l.Argv[0] != h.Binary || !slices.ContainsFunc(l.Argv, func(a string) bool { return strings.Contains(a, id) }) {
			t.Errorf("%s Resume argv = %q, lacks the id", h.Name, l.Argv)
		}
	}
}

func TestFreshErrors(t *testing.T) {
	tests := []struct {
		harness string
		opts    LaunchOptions
		is      error
		want    string
	}{
		{"claude", LaunchOptions{}, ErrNoPrompt, "give a prompt or a brief file"},
		{"goose", LaunchOptions{Model: "x"}, ErrNoPrompt, "give a prompt"},
		{"aider", LaunchOptions{Prompt: "hi"}, ErrNoPrompt, "only as a file"},
		{"shell", LaunchOptions{Prompt: "hi"}, ErrNoLauncher, "shell"},
		{"codex", LaunchOptions{Prompt: "hi", SessionID: codexID}, nil, "cannot start under a chosen session id"},
		{"opencode", LaunchOptions{Prompt: "hi", SessionID: opencodeID}, nil, "cannot start under a chosen session id"},
		{"claude", LaunchOptions{Prompt: "hi", SessionID: "not-a-uuid"}, ErrBadID, `"not-a-uuid" is not a UUID`},
		{"claude", LaunchOptions{Prompt: "hi", SessionID: "--dangerously-skip-permissions"}, ErrBadID, "not a UUID"},
		{"gemini", LaunchOptions{Prompt: "hi", SessionID: opencodeID}, ErrBadID, "not a UUID"},
		{"claude", LaunchOptions{Prompt: "a\x00b"}, ErrBadArg, "NUL"},
		{"codex", LaunchOptions{Prompt: "p", Model: "m\x00"}, ErrBadArg, "model holds a NUL"},
		{"goose", LaunchOptions{PromptFile: "a\x00"}, ErrBadArg, "brief file name holds a NUL"},
		{"claude", LaunchOptions{Prompt: strings.Repeat("x", maxArg+1)}, ErrBadArg, "write it to a file"},
	}
	for _, tt := range tests {
		_, err := must(t, tt.harness).Fresh(tt.opts)
		if err == nil {
			t.Errorf("%s Fresh(%+.40v) = nil error, want %q", tt.harness, tt.opts, tt.want)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s Fresh: err = %v, want %v", tt.harness, err, tt.is)
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s Fresh: err = %q, want it to contain %q", tt.harness, err, tt.want)
		}
	}
	// The longest prompt a command line takes is still accepted.
	if _, err := must(t, "claude").Fresh(LaunchOptions{Prompt: strings.Repeat("x", maxArg)}); err != nil {
		t.Errorf("prompt of exactly maxArg bytes: %v", err)
	}
}

func TestResumeErrors(t *testing.T) {
	tests := []struct {
		harness, id string
		is          error
	}{
		{"aider", "anything", ErrCannotResume},
		{"shell", "anything", ErrNoLauncher},
		{"claude", "", ErrBadID},
		{"claude", "-r", ErrBadID},
		{"claude", "--help", ErrBadID},
		{"claude", claudeID + "\n--model=x", ErrBadID},
		{"claude", " " + claudeID, ErrBadID},
		{"codex", "--last", ErrBadID},
		{"gemini", "latest", ErrBadID}, // valid for gemini itself, but never a stored id
		{"opencode", "ses_", ErrBadID},
		{"opencode", "ses_abc/../x", ErrBadID},
		{"goose", "-20251108_1", ErrBadID},
		{"cursor", "-1", ErrBadID}, // cursor's --resume=-1 means "latest"
	}
	for _, tt := range tests {
		_, err := must(t, tt.harness).Resume(tt.id, LaunchOptions{})
		if !errors.Is(err, tt.is) {
			t.Errorf("%s Resume(%q) err = %v, want %v", tt.harness, tt.id, err, tt.is)
		}
	}
	if _, err := must(t, "claude").Resume(claudeID, LaunchOptions{Prompt: "x\x00"}); !errors.Is(err, ErrBadArg) {
		t.Errorf("resume with NUL prompt: err = %v", err)
	}
}

// Prompts and models are user text. Whatever they hold, each must reach the
// agent as one argv element that the agent cannot read as a flag: either
// after "--" or glued to its flag with "=".
func TestHostilePromptsStayValues(t *testing.T) {
	hostile := []string{
		"--dangerously-skip-permissions",
		"-p",
		"--",
		"-",
		"--model=evil",
		"$(rm -rf /); `reboot`",
		"line one\nline two\n--yolo",
		"'quoted' \"double\"",
		"ünïcødé ✓ \u202e",
	}
	for _, h := range All() {
		if h.Binary == "" || h.Name == "aider" {
			continue
		}
		for _, p := range hostile {
			l, err := h.Fresh(LaunchOptions{Prompt: p, Model: "-m"})
			if err != nil {
				t.Errorf("%s Fresh(%q): %v", h.Name, p, err)
				continue
			}
			checkValue(t, h.Name+" Fresh", l.Argv, p)
			checkValue(t, h.Name+" Fresh model", l.Argv, "-m")
		}
	}
}

// checkValue finds v in argv as a whole element after "--", or as the value
// part of a --flag=value element, and fails if v stands alone where a flag
// parser would see it.
func checkValue(t *testing.T, what string, argv []string, v string) {
	t.Helper()
	dashdash := slices.Index(argv, "--")
	for i, a := range argv {
		if a == v && dashdash >= 0 && i > dashdash {
			return
		}
		if k, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") && val == v && (dashdash < 0 || i < dashdash) {
			return
		}
	}
	t.Errorf("%s: %q is not passed safely in %q", what, v, argv)
}

// A session that went claude → codex → claude must resume claude with
// claude's own id. Callers keep each native id beside the harness that issued
// it; ValidateNativeID stops a mix-up wherever the formats differ.
func TestSwitchBackUsesThatHarnessesOwnID(t *testing.T) {
	stored := map[string]string{} // harness name → its native id, as a session record keeps them
	for _, step := range []struct{ harness, id string }{
		{"claude-code", claudeID}, {"codex", codexID}, {"opencode", opencodeID}, {"goose", gooseID},
	} {
		stored[step.harness] = step.id
	}
	back := must(t, "claude")
	l, err := back.Resume(stored[back.Name], LaunchOptions{})
	if err != nil || !slices.Contains(l.Argv, claudeID) || slices.Contains(l.Argv, codexID) {
		t.Fatalf("switching back to claude: argv %q, err %v", l.Argv, err)
	}

	// Where formats differ, another harness's id is refused.
	refused := []struct{ harness, foreignID string }{
		{"claude-code", opencodeID}, {"claude-code", gooseID},
		{"codex", opencodeID}, {"codex", gooseID},
		{"gemini", opencodeID}, {"gemini", gooseID},
		{"copilot", opencodeID}, {"cursor", gooseID},
		{"opencode", claudeID}, {"opencode", gooseID},
		{"goose", claudeID}, {"goose", opencodeID},
		{"aider", claudeID}, {"shell", claudeID},
	}
	for _, r := range refused {
		if err := must(t, r.harness).ValidateNativeID(r.foreignID); !errors.Is(err, ErrBadID) {
			t.Errorf("%s.ValidateNativeID(%q) = %v, want ErrBadID", r.harness, r.foreignID, err)
		}
	}
	// And each accepts its own.
	for name, id := range stored {
		if err := must(t, name).ValidateNativeID(id); err != nil {
			t.Errorf("%s.ValidateNativeID(own id %q) = %v", name, id, err)
		}
	}
}

func TestValidateNativeIDMessages(t *testing.T) {
	err := must(t, "opencode").ValidateNativeID(claudeID)
	if err == nil || !strings.Contains(err.Error(), `for opencode: "`+claudeID+`" is not an id like "ses_…"`) {
		t.Errorf("opencode message: %v", err)
	}
	err = must(t, "aider").ValidateNativeID("x")
	if err == nil || !strings.Contains(err.Error(), "aider has no session ids") {
		t.Errorf("aider message: %v", err)
	}
	for _, ok := range []string{strings.ToUpper(claudeID), "00000000-0000-0000-0000-000000000000"} {
		if err := must(t, "claude").ValidateNativeID(ok); err != nil {
			t.Errorf("claude rejects %q: %v", ok, err)
		}
	}
	for _, bad := range []string{"0b0c8f9e3f6a4c559d7e2a1b3c4d5e6f", "{" + claudeID + "}", claudeID + "0", "g" + claudeID[1:]} {
		if err := must(t, "claude").ValidateNativeID(bad); err == nil {
			t.Errorf("claude accepts %q", bad)
		}
	}
}

func TestCodexLaunchCarriesHooks(t *testing.T) {
	hooks := []Hook{{Event: "SessionStart", Command: `git handoff hook agent codex session-start || true`}, {Event: "Stop", Command: `echo "a\b"`}}
	l, err := must(t, "codex").Fresh(LaunchOptions{Prompt: "go", Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"codex",
		"-c", `hooks.SessionStart=[{hooks=[{type="command",command="git handoff hook agent codex session-start || true"}]}]`,
		"-c", `hooks.Stop=[{hooks=[{type="command",command="echo \"a\\b\""}]}]`,
		"--dangerously-bypass-hook-trust", "--", "go"}
	if !slices.Equal(l.Argv, want) {
		t.Fatalf("argv\n got %q\nwant %q", l.Argv, want)
	}
	l, err = must(t, "codex").Resume(codexID, LaunchOptions{BypassHookTrust: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"codex", "resume", "--dangerously-bypass-hook-trust", "--", codexID}; !slices.Equal(l.Argv, want) {
		t.Fatalf("resume argv %q", l.Argv)
	}
	// Agents that take no hooks on the command line ignore them.
	l, err = must(t, "claude").Fresh(LaunchOptions{Prompt: "go", Hooks: hooks})
	if err != nil || slices.Contains(l.Argv, "-c") {
		t.Fatalf("claude argv %q, %v", l.Argv, err)
	}
}
