package harness

import (
	"fmt"
	"strings"
)

// The catalogue. Each entry says where its facts come from; "unverified"
// marks what no documentation read for this file confirmed. Where the flag
// parser is known (clap, yargs, commander, argparse), --flag=value and "--"
// follow that parser's rules even when the agent's docs only show the
// two-token form.
var catalogue = []Harness{
	claudeCode, codex, gemini, opencode, goose, copilot, aider, cursor, shell,
}

// Claude Code. Sources: Anthropic's CLI reference (`claude "query"` starts the
// REPL with a first prompt; `claude -r <id> "query"`; `--model`;
// `--session-id` must be a UUID and pins a new session's id), and
// HARNESSES.md. Ids are UUIDs (`--session-id` demands one). Checked with
// the released CLI (2.1.197): fresh with --session-id, --resume, "--" before
// the prompt.
var claudeCode = Harness{
	Name:      "claude-code",
	Aliases:   []string{"claude", "claudecode", "claude_code"},
	Binary:    "claude",
	CanResume: true,
	CanPinID:  true,
	DetectEnv: []string{"CLAUDECODE"}, // and AI_AGENT=claude-code_<version>_agent (Detect)
	IDFormat:  "a UUID",
	validID:   validUUID,
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		text, note := promptText(o)
		a := argv{h.Binary}.model(o.Model)
		if o.SessionID != "" {
			a = append(a, "--session-id", o.SessionID) // validated: cannot start with "-"
		}
		return Launch{Argv: a.positional(text), Note: note}, nil
	},
	resume: func(h Harness, id string, o LaunchOptions) (Launch, error) {
		a := argv{h.Binary}.model(o.Model)
		a = append(a, "--resume", id)
		if o.Prompt != "" {
			a = a.positional(o.Prompt)
		}
		return Launch{Argv: a}, nil
	},
}

// Codex CLI. Sources: `codex resume [OPTIONS] [SESSION_ID] [PROMPT]` with
// `-m/--model` (npm @openai/codex session-management docs); `codex "prompt"`
// starts the TUI with a first prompt; it parses with clap, whose own error
// text advises "--" before values that look like flags (openai/codex users'
// reports). Ids are UUIDs. Checked with the released CLI (0.171.0): fresh,
// `codex resume ID TEXT`; its shell tool runs with CODEX_THREAD_ID set to the
// session's own id (DetectNative), its hooks without it. Codex runs project
// hooks only once trusted and never from a linked worktree: a launch we make
// passes --dangerously-bypass-hook-trust only for hooks git-handoff installed
// itself (see agentconf), never by default.
var codex = Harness{
	Name:      "codex",
	Aliases:   []string{"codex-cli", "openai-codex"},
	Binary:    "codex",
	CanResume: true,
	DetectEnv: []string{"CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_SANDBOX"},
	NativeEnv: "CODEX_THREAD_ID",
	IDFormat:  "a UUID",
	validID:   validUUID,
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		text, note := promptText(o)
		return Launch{Argv: codexHooks(argv{h.Binary}, o).model(o.Model).positional(text), Note: note}, nil
	},
	resume: func(h Harness, id string, o LaunchOptions) (Launch, error) {
		a := codexHooks(argv{h.Binary, "resume"}, o).model(o.Model)
		if o.Prompt != "" {
			return Launch{Argv: a.positional(id, o.Prompt)}, nil
		}
		return Launch{Argv: a.positional(id)}, nil
	},
}

// codexHooks passes hooks as configuration overrides (`-c
// hooks.<Event>=[…]`, TOML), which Codex 0.171.0 ran only together with
// --dangerously-bypass-hook-trust (checked: without it neither these nor
// untrusted project hooks run), so either asks for that flag.
func codexHooks(a argv, o LaunchOptions) argv {
	if len(o.Hooks) == 0 && !o.BypassHookTrust {
		return a
	}
	for _, hk := range o.Hooks {
		a = append(a, "-c", fmt.Sprintf("hooks.%s=[{hooks=[{type=%q,command=%s}]}]", hk.Event, "command", tomlString(hk.Command)))
	}
	return append(a, "--dangerously-bypass-hook-trust")
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Gemini CLI. Sources: geminicli.com CLI reference and session-management
// docs (`-i/--prompt-interactive` runs a prompt and stays interactive;
// `--resume <uuid>`, also "latest" or an index; `-m/--model`; sessions by
// "full session UUID"); `--session-id` was added by google-gemini/gemini-cli
// PR #26060 (merged 2026-04) and conflicts with --resume. Parsed by yargs.
// Checked with the released CLI (0.61.0): --session-id on a fresh start,
// --resume=UUID together with --prompt-interactive. Older releases lack
// --session-id.
var gemini = Harness{
	Name:      "gemini",
	Aliases:   []string{"gemini-cli"},
	Binary:    "gemini",
	CanResume: true,
	CanPinID:  true,
	DetectEnv: []string{"GEMINI_CLI"},
	IDFormat:  "a UUID",
	validID:   validUUID,
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		text, note := promptText(o)
		a := argv{h.Binary}.model(o.Model).flag("--session-id", o.SessionID)
		return Launch{Argv: a.flag("--prompt-interactive", text), Note: note}, nil
	},
	resume: func(h Harness, id string, o LaunchOptions) (Launch, error) {
		a := argv{h.Binary}.model(o.Model).flag("--resume", id)
		return Launch{Argv: a.flag("--prompt-interactive", o.Prompt)}, nil
	},
}

// OpenCode. Sources: OpenCode CLI flag reference for the TUI (`--prompt`,
// `-s/--session` "session ID to continue", `-m/--model` as provider/model,
// `--continue`, `--fork`); ids are "ses_" prefixed (opencode's
// Identifier.ascending("session")), 26 characters after the prefix in
// 1.18.33. Parsed by yargs. Checked with the released CLI (1.18.33):
// `--session` shows the old conversation but did not deliver `--prompt`, so
// a resume with a prompt says to paste it.
var opencode = Harness{
	Name:      "opencode",
	Aliases:   []string{"open-code", "sst-opencode"},
	Binary:    "opencode",
	CanResume: true,
	IDFormat:  `an id like "ses_…"`,
	validID:   validOpenCodeID,
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		text, note := promptText(o)
		return Launch{Argv: argv{h.Binary}.model(o.Model).flag("--prompt", text), Note: note}, nil
	},
	resume: func(h Harness, id string, o LaunchOptions) (Launch, error) {
		l := Launch{Argv: argv{h.Binary}.model(o.Model).flag("--session", id)}
		if o.Prompt != "" {
			l.Note = "opencode does not deliver a prompt when resuming a session: paste it as the first message"
		}
		return l, nil
	},
}

// Goose. Sources: goose CLI commands guide (v1.50 docs): `goose session`
// takes no prompt, so a first prompt goes through `goose run --text TEXT
// --interactive` (or `--instructions FILE`), which also takes `--model`;
// resume is `goose session --resume --session-id ID`, ids like "20251108_1".
// `goose session` has no --model flag, so a model on resume goes through
// GOOSE_MODEL, the variable goose reads for its default model (widely used;
// goose's environment-variable page not re-read). Parsed by clap.
// Unverified: ids of goose releases older than 1.10 (they used other names).
var goose = Harness{
	Name:      "goose",
	Aliases:   []string{"goose-cli", "block-goose"},
	Binary:    "goose",
	CanResume: true,
	IDFormat:  `an id like "20251108_1"`,
	validID:   validGooseID,
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		a := argv{h.Binary, "run", "--interactive"}.model(o.Model)
		if o.Prompt == "" {
			return Launch{Argv: a.flag("--instructions", safePath(o.PromptFile))}, nil
		}
		return Launch{Argv: a.flag("--text", o.Prompt)}, nil
	},
	resume: func(h Harness, id string, o LaunchOptions) (Launch, error) {
		l := Launch{Argv: argv{h.Binary, "session", "--resume"}.flag("--session-id", id)}
		if o.Model != "" {
			l.Env = []string{"GOOSE_MODEL=" + o.Model}
		}
		if o.Prompt != "" {
			l.Note = "goose cannot take a prompt when resuming: paste it as the first message"
		}
		return l, nil
	},
}

// GitHub Copilot CLI. Sources: GitHub's Copilot CLI command reference
// (`-i PROMPT, --interactive=PROMPT` starts interactive and runs it;
// `--resume=SESSION-ID`; `--model=MODEL`; `--continue`); sessions are
// identified by UUIDs (~/.copilot/session-state/<id>/). Checked with the
// released CLI (1.0.102): `--session-id UUID` pins a new session's id,
// `--resume=ID --interactive=TEXT` resumes with a prompt; its shell tool
// runs with COPILOT_CLI=1 and COPILOT_AGENT_SESSION_ID, the session's id.
var copilot = Harness{
	Name:      "copilot",
	Aliases:   []string{"copilot-cli", "github-copilot", "gh-copilot"},
	Binary:    "copilot",
	CanResume: true,
	CanPinID:  true,
	DetectEnv: []string{"COPILOT_CLI"},
	NativeEnv: "COPILOT_AGENT_SESSION_ID",
	IDFormat:  "a UUID",
	validID:   validUUID,
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		text, note := promptText(o)
		a := argv{h.Binary}.model(o.Model).flag("--session-id", o.SessionID)
		return Launch{Argv: a.flag("--interactive", text), Note: note}, nil
	},
	resume: func(h Harness, id string, o LaunchOptions) (Launch, error) {
		a := argv{h.Binary}.model(o.Model).flag("--resume", id)
		return Launch{Argv: a.flag("--interactive", o.Prompt)}, nil
	},
}

// Aider. Sources: aider's options reference (`--read FILE` adds a read-only
// file, `--message` sends one message and exits, `--model`,
// `--restore-chat-history`); HARNESSES.md: no session ids at all. Parsed by
// argparse (configargparse), which accepts --flag=value.
var aider = Harness{
	Name:   "aider",
	Binary: "aider",
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		if o.PromptFile == "" {
			return Launch{}, errAiderNeedsFile
		}
		note := "aider has no session ids: started fresh with the brief as a read-only file"
		if o.Prompt != "" {
			note += " (the prompt text was not sent: --message would make aider exit after one reply)"
		}
		return Launch{Argv: argv{h.Binary}.model(o.Model).flag("--read", safePath(o.PromptFile)), Note: note}, nil
	},
}

var errAiderNeedsFile = fmt.Errorf("starting aider: %w: aider takes an interactive brief only as a file (--read); write the prompt to a file and pass PromptFile", ErrNoPrompt)

// Cursor CLI (cursor-agent, lately also installed as "agent"). Sources:
// Cursor's CLI docs ("--resume [thread id]", `cursor-agent resume`,
// `cursor-agent ls`, `-p/--print` for non-interactive runs) and CLI
// cheat-sheets (`agent "prompt"` starts interactive with a prompt; `--model`).
// Unverified: that chat ids are UUIDs (third-party integrations say so; Cursor
// does not document the format), and that "--" ends its options.
var cursor = Harness{
	Name:      "cursor",
	Aliases:   []string{"cursor-agent", "cursor-cli"},
	Binary:    "cursor-agent",
	CanResume: true,
	DetectEnv: []string{"CURSOR_AGENT"},
	IDFormat:  "a UUID",
	validID:   validUUID,
	fresh: func(h Harness, o LaunchOptions) (Launch, error) {
		text, note := promptText(o)
		return Launch{Argv: argv{h.Binary}.model(o.Model).positional(text), Note: note}, nil
	},
	resume: func(h Harness, id string, o LaunchOptions) (Launch, error) {
		a := argv{h.Binary}.model(o.Model).flag("--resume", id)
		if o.Prompt != "" {
			a = a.positional(o.Prompt)
		}
		return Launch{Argv: a}, nil
	},
}

// shell stands for a person at a terminal, or any tool we cannot launch. It
// lets a session record name who worked without pretending we can start them.
var shell = Harness{
	Name:    "shell",
	Aliases: []string{"person", "human", "manual"},
}
