package harness

import "strings"

// Detect names the agent running this command, or "" when none is known. It
// reads only the variables agents set for their child processes:
// AI_AGENT (a proposed cross-agent convention; its value, or the part before
// its first "_" as in Claude Code's "claude-code_2.1.197_agent", is looked up
// as a harness name or alias) first, because it names the agent outright;
// then each harness's own DetectEnv, in catalogue order. A variable counts
// when it is set to anything but "" or "0".
func Detect(getenv func(string) string) string {
	name, _ := DetectNative(getenv)
	return name
}

// DetectNative is Detect, with the agent's own session id when its shell
// tool's environment carries one (Codex's CODEX_THREAD_ID) and it has the
// shape that agent's ids have.
func DetectNative(getenv func(string) string) (name, nativeID string) {
	h, ok := detect(getenv)
	if !ok {
		return "", ""
	}
	if h.NativeEnv != "" {
		if id := getenv(h.NativeEnv); id != "" && h.ValidateNativeID(id) == nil {
			nativeID = id
		}
	}
	return h.Name, nativeID
}

func detect(getenv func(string) string) (Harness, bool) {
	if v := getenv("AI_AGENT"); v != "" && v != "0" {
		if h, err := Lookup(v); err == nil {
			return h, true
		}
		if prefix, _, ok := strings.Cut(v, "_"); ok {
			if h, err := Lookup(prefix); err == nil {
				return h, true
			}
		}
	}
	for _, h := range catalogue {
		for _, key := range h.DetectEnv {
			if v := getenv(key); v != "" && v != "0" {
				return h, true
			}
		}
	}
	return Harness{}, false
}
