package harness

// Detect names the agent running this command, or "" when none is known. It
// reads only the variables agents set for their child processes:
// AI_AGENT (a proposed cross-agent convention; its value is looked up as a
// harness name or alias) first, because it names the agent outright; then
// each harness's own DetectEnv, in catalogue order. A variable counts when it
// is set to anything but "" or "0".
func Detect(getenv func(string) string) string {
	if v := getenv("AI_AGENT"); v != "" && v != "0" {
		if h, err := Lookup(v); err == nil {
			return h.Name
		}
	}
	for _, h := range catalogue {
		for _, key := range h.DetectEnv {
			if v := getenv(key); v != "" && v != "0" {
				return h.Name
			}
		}
	}
	return ""
}
