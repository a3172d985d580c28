package transcript

import "encoding/json"

// Gemini CLI: ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl. A
// header line (sessionId, projectHash, …), then message records that are
// upserted by id (a reply is written again once its tool calls have
// results), {"$set": {…}} records that update the session's fields (a
// "messages" list replaces the whole conversation), and {"$rewindTo": id}
// records that drop that message and everything after it.

type geminiRecord struct {
	ID       *string `json:"id"`
	RewindTo *string `json:"$rewindTo"`
	Set      *struct {
		Messages []json.RawMessage `json:"messages"`
	} `json:"$set"`
	// The header of a file written whole by an older CLI holds the
	// messages too.
	SessionID *string           `json:"sessionId"`
	Messages  []json.RawMessage `json:"messages"`
}

type geminiMessage struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`    // user, gemini, info, error, warning
	Content   json.RawMessage `json:"content"` // a string, or parts
	ToolCalls []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Args   any    `json:"args"`
		Status string `json:"status"`
		Result []struct {
			FunctionResponse struct {
				Response struct {
					Output string `json:"output"`
				} `json:"response"`
			} `json:"functionResponse"`
		} `json:"result"`
	} `json:"toolCalls"`
}

type geminiPart struct {
	Text *string `json:"text"`
}

// geminiChat is the conversation as the CLI would load it: messages in
// the order first written, each as last written.
type geminiChat struct {
	order []string
	byID  map[string]geminiMessage
}

func (g *geminiChat) upsert(m geminiMessage) {
	if _, ok := g.byID[m.ID]; !ok {
		g.order = append(g.order, m.ID)
	}
	g.byID[m.ID] = m
}

func (g *geminiChat) replace(raw []json.RawMessage) {
	g.order, g.byID = nil, map[string]geminiMessage{}
	for _, r := range raw {
		var m geminiMessage
		if decode(r, &m) && m.ID != "" {
			g.upsert(m)
		}
	}
}

// rewind drops the message id and all after it; a message before the
// window drops everything read.
func (g *geminiChat) rewind(id string) {
	i := 0
	for i < len(g.order) && g.order[i] != id {
		i++
	}
	if i == len(g.order) {
		i = 0
	}
	for _, gone := range g.order[i:] {
		delete(g.byID, gone)
	}
	g.order = g.order[:i]
}

func readGemini(lines [][]byte) *conversation {
	g := &geminiChat{byID: map[string]geminiMessage{}}
	for _, line := range lines {
		var r geminiRecord
		if !decode(line, &r) {
			continue
		}
		switch {
		case r.RewindTo != nil:
			g.rewind(*r.RewindTo)
		case r.Set != nil:
			if r.Set.Messages != nil {
				g.replace(r.Set.Messages)
			}
		case r.ID != nil:
			var m geminiMessage
			if decode(line, &m) && m.ID != "" {
				g.upsert(m)
			}
		case r.SessionID != nil && r.Messages != nil:
			g.replace(r.Messages)
		}
	}
	c := newConversation()
	for _, id := range g.order {
		m := g.byID[id]
		switch m.Type {
		case "user":
			c.say(user, "", userText(geminiText(m.Content)))
		case "gemini":
			c.say(assistant, m.ID, geminiText(m.Content))
			for _, tc := range m.ToolCalls {
				c.call(tc.ID, tc.Name, tc.Args)
				status := geminiStatus(tc.Status)
				// A shell call succeeds when its command fails; the
				// output it returns names the exit code then.
				for _, r := range tc.Result {
					if s, ok := exitStatus(r.FunctionResponse.Response.Output); ok && status == statusOK {
						status = s
					}
				}
				c.result(tc.ID, status)
			}
		}
	}
	return c
}

// geminiText is the text of a message's content: a string, or the text
// parts of a list (function calls and responses left out).
func geminiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []geminiPart
	if json.Unmarshal(raw, &parts) != nil {
		var one geminiPart
		if json.Unmarshal(raw, &one) != nil {
			return ""
		}
		parts = []geminiPart{one}
	}
	for _, p := range parts {
		if p.Text != nil {
			s += *p.Text + "\n"
		}
	}
	return s
}

func geminiStatus(s string) string {
	switch s {
	case "success":
		return statusOK
	case "error":
		return statusFailed
	case "":
		return statusPending
	}
	return s // cancelled, …
}
