package transcript

import (
	"encoding/json"
	"sort"
	"strings"
)

// maxToolLine is the most of a tool call's summary the excerpt shows.
const maxToolLine = 200

// shellTools are the agents' shell tools, by the names their transcripts
// give them: a call is shown as the command it ran.
var shellTools = map[string]bool{
	"Bash":              true, // Claude Code
	"exec_command":      true, // Codex
	"shell":             true, // Codex, older
	"shell_command":     true, // Codex
	"local_shell":       true, // Codex
	"run_shell_command": true, // Gemini CLI
	"bash":              true, // Copilot CLI, OpenCode
}

// argKeys are the arguments that say best what a call of another tool
// was about, most telling first.
var argKeys = []string{
	"command", "cmd", "file_path", "absolute_path", "filePath", "path", "dir_path",
	"pattern", "query", "url", "description", "prompt", "intent",
}

// toolSummary is one line for a call of the tool name with input: "$ cmd"
// for a shell, else the name and its most telling argument.
func toolSummary(name string, input any) string {
	if s, ok := input.(string); ok {
		// Codex's custom tools take text: apply_patch names its files.
		return oneLine(strings.TrimSpace(name+" "+patchFiles(s)), maxToolLine)
	}
	args, _ := input.(map[string]any)
	if shellTools[name] {
		if cmd := command(args); cmd != "" {
			return oneLine("$ "+cmd, maxToolLine)
		}
	}
	for _, k := range argKeys {
		if v := argString(args[k]); v != "" {
			return oneLine(name+" "+v, maxToolLine)
		}
	}
	if len(args) == 0 {
		return oneLine(name, maxToolLine)
	}
	// None of the usual: the arguments themselves, in a stable order.
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		b, _ := json.Marshal(args[k])
		parts = append(parts, k+"="+string(b))
	}
	return oneLine(name+" "+strings.Join(parts, " "), maxToolLine)
}

// command is a shell call's command line. Codex's older shell tool gives
// an argv, usually ["bash", "-lc", script].
func command(args map[string]any) string {
	for _, k := range []string{"command", "cmd"} {
		switch v := args[k].(type) {
		case string:
			return v
		case []any:
			var argv []string
			for _, a := range v {
				s, _ := a.(string)
				argv = append(argv, s)
			}
			if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
				return argv[2]
			}
			return strings.Join(argv, " ")
		}
	}
	return ""
}

func argString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// patchFiles names the files an apply_patch input touches.
func patchFiles(patch string) string {
	var files []string
	for _, l := range strings.Split(patch, "\n") {
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(l, p); ok {
				files = append(files, strings.TrimSpace(f))
			}
		}
	}
	return strings.Join(files, " ")
}

// oneLine makes s one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) <= n {
		return s
	}
	return headRunes(s, n-len("…")) + "…"
}
