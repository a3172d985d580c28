package transcript

import "encoding/json"

// Claude Code: ~/.claude/projects/<cwd, / as ->/<session id>.jsonl, one
// record a line. A "user" or "assistant" record holds one message of the
// API conversation, an assistant message split into one record per
// content block (text, tool_use, thinking) under the same message id;
// tool results come back as "user" records of tool_result blocks. Other
// record types (attachments such as a hook's context, queue operations,
// system notes) are the CLI's own bookkeeping.

type claudeRecord struct {
	Type             string `json:"type"`
	IsSidechain      bool   `json:"isSidechain"` // a subagent's, not the session's
	IsMeta           bool   `json:"isMeta"`      // the CLI's note to the model
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"` // a string, or blocks
	} `json:"message"`
}

type claudeBlock struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Input     any    `json:"input"`
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
}

func readClaude(lines [][]byte) *conversation {
	c := newConversation()
	for _, line := range lines {
		var r claudeRecord
		if !decode(line, &r) || r.IsSidechain || r.IsMeta {
			continue
		}
		if r.Type != "user" && r.Type != "assistant" {
			continue
		}
		var text string
		var blocks []claudeBlock
		if json.Unmarshal(r.Message.Content, &text) != nil {
			text = ""
			if !isArray(r.Message.Content) || !decode(r.Message.Content, &blocks) {
				continue
			}
		}
		switch {
		case r.Type == "user" && r.IsCompactSummary:
			c.say(summary, "", text+joinText(blocks))
		case r.Type == "user":
			c.say(user, "", userText(text))
			for _, b := range blocks {
				switch b.Type {
				case "text":
					c.say(user, "", userText(b.Text))
				case "tool_result":
					c.result(b.ToolUseID, okOr(!b.IsError))
				}
			}
		default:
			for _, b := range blocks {
				switch b.Type {
				case "text":
					c.say(assistant, r.Message.ID, b.Text)
				case "tool_use":
					c.call(b.ID, b.Name, b.Input)
				}
			}
		}
	}
	return c
}

func joinText(blocks []claudeBlock) string {
	var s string
	for _, b := range blocks {
		if b.Type == "text" {
			s += b.Text + "\n"
		}
	}
	return s
}

func okOr(ok bool) string {
	if ok {
		return statusOK
	}
	return statusFailed
}
