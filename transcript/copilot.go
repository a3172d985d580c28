package transcript

// Copilot CLI: ~/.copilot/session-state/<session id>/events.jsonl, one
// event a line, {type, data, id, timestamp, parentId}. The conversation is
// in "user.message" (data.content is what the user typed;
// transformedContent adds the CLI's own context), "assistant.message"
// (data.content and data.toolRequests) and "tool.execution_complete"
// (data.success); the rest are deltas, hooks and accounting.

type copilotEvent struct {
	Type string `json:"type"`
	Data struct {
		Content      string `json:"content"`
		MessageID    string `json:"messageId"`
		ToolRequests []struct {
			ToolCallID string `json:"toolCallId"`
			Name       string `json:"name"`
			Arguments  any    `json:"arguments"`
		} `json:"toolRequests"`
		ToolCallID     string `json:"toolCallId"`
		Success        *bool  `json:"success"`
		ShellExecution struct {
			// A shell tool that ran a command that failed succeeded.
			ExitCode *int `json:"exitCode"`
		} `json:"shellExecution"`
	} `json:"data"`
}

func readCopilot(lines [][]byte) *conversation {
	c := newConversation()
	for _, line := range lines {
		var ev copilotEvent
		if !decode(line, &ev) {
			continue
		}
		switch ev.Type {
		case "user.message":
			c.say(user, "", userText(ev.Data.Content))
		case "assistant.message":
			c.say(assistant, ev.Data.MessageID, ev.Data.Content)
			for _, tr := range ev.Data.ToolRequests {
				c.call(tr.ToolCallID, tr.Name, tr.Arguments)
			}
		case "tool.execution_complete":
			status := statusDone
			if ev.Data.Success != nil {
				status = okOr(*ev.Data.Success)
			}
			if code := ev.Data.ShellExecution.ExitCode; code != nil && status == statusOK {
				status = okOr(*code == 0)
			}
			c.result(ev.Data.ToolCallID, status)
		}
	}
	return c
}
