package transcript

import (
	"encoding/json"
	"regexp"
	"strconv"
	"sync"
)

// Codex: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl,
// records {timestamp, ordinal, type, payload}. "response_item" records are
// the model's conversation: messages (role user, assistant, or developer
// for instructions and hook context), function calls and their outputs.
// "event_msg" records are what the CLI showed: a command's exit code
// (item_completed of a CommandExecution, exec_command_end before) and, at
// the end of a turn, task_complete with last_agent_message.

type codexRecord struct {
	Type     string          `json:"type"`
	Payload  json.RawMessage `json:"payload"`
	Metadata codexMetadata   `json:"metadata"`
}

type codexMetadata struct {
	// CompactionOutput marks the summary compaction left in place of the
	// conversation it dropped.
	CompactionOutput bool `json:"compaction_output"`
}

type codexPayload struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Metadata codexMetadata `json:"metadata"`

	Name      string `json:"name"`
	Arguments string `json:"arguments"` // function_call: a JSON object, as text
	Input     string `json:"input"`     // custom_tool_call
	Action    struct {
		Command []any `json:"command"`
	} `json:"action"` // local_shell_call
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`

	ExitCode         *int    `json:"exit_code"`
	LastAgentMessage *string `json:"last_agent_message"`
	Item             struct {
		Type     string `json:"type"`
		ID       string `json:"id"`
		ExitCode *int   `json:"exit_code"`
	} `json:"item"`
}

func readCodex(lines [][]byte) *conversation {
	c := newConversation()
	for _, line := range lines {
		var r codexRecord
		var p codexPayload
		if !decode(line, &r) || !decode(r.Payload, &p) {
			continue
		}
		switch r.Type {
		case "response_item":
			readCodexItem(c, p, r.Metadata.CompactionOutput || p.Metadata.CompactionOutput)
		case "event_msg":
			switch {
			case p.Type == "item_completed" && p.Item.Type == "CommandExecution" && p.Item.ExitCode != nil:
				c.result(p.Item.ID, okOr(*p.Item.ExitCode == 0))
			case p.Type == "exec_command_end" && p.ExitCode != nil:
				c.result(p.CallID, okOr(*p.ExitCode == 0))
			case p.Type == "task_complete" && p.LastAgentMessage != nil:
				// The same text as the turn's last assistant message,
				// unless that one is before the window.
				if clean(*p.LastAgentMessage) != c.lastReply() {
					c.say(assistant, "", *p.LastAgentMessage)
				}
			}
		}
	}
	return c
}

func readCodexItem(c *conversation, p codexPayload, compaction bool) {
	switch p.Type {
	case "message":
		var text string
		for _, part := range p.Content {
			if part.Type == "input_text" || part.Type == "output_text" || part.Type == "text" {
				text += part.Text + "\n"
			}
		}
		switch {
		case p.Role == "assistant" && compaction:
			c.say(summary, "", text)
		case p.Role == "assistant":
			c.say(assistant, "", text)
		case p.Role == "user":
			c.say(user, "", userText(text))
		}
	case "function_call":
		var args map[string]any
		json.Unmarshal([]byte(p.Arguments), &args)
		c.call(p.CallID, p.Name, args)
	case "custom_tool_call":
		c.call(p.CallID, p.Name, p.Input)
	case "local_shell_call":
		c.call(p.CallID, "local_shell", map[string]any{"command": p.Action.Command})
	case "function_call_output", "custom_tool_call_output":
		c.result(p.CallID, codexOutputStatus(p.Output))
	}
}

// exitLine is how a command's output tells its exit code to the model.
// (Codex: "Process exited with code 1"; Gemini CLI: "Exit Code: 1").
var exitLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit [Cc]ode:) (-?\d+)$`)
})

// codexOutputStatus reads a call's status from its output: text that
// names an exit code, an older {"output", "metadata": {"exit_code"}} as
// text, or {"content", "success"}.
func codexOutputStatus(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		if status, ok := exitStatus(text); ok {
			return status
		}
		var old struct {
			Metadata struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(text), &old) == nil && old.Metadata.ExitCode != nil {
			return okOr(*old.Metadata.ExitCode == 0)
		}
		return statusDone
	}
	var obj struct {
		Success *bool `json:"success"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Success != nil {
		return okOr(*obj.Success)
	}
	return statusDone
}

// exitStatus reads the exit code a command's output names, if it names
// one.
func exitStatus(output string) (string, bool) {
	m := exitLine().FindStringSubmatch(output)
	if m == nil {
		return "", false
	}
	code, err := strconv.Atoi(m[1])
	return okOr(code == 0), err == nil
}
