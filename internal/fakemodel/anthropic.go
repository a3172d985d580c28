package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// parseAnthropic reads a Messages API request: system, messages (whose
// content is a string or a list of blocks) and tools.
func parseAnthropic(r *Request) {
	j := r.json
	r.Stream, _ = j["stream"].(bool)
	for _, t := range asList(j["tools"]) {
		if n := asString(asMap(t)["name"]); n != "" {
			r.Tools = append(r.Tools, n)
		}
	}
	msgs := asList(j["messages"])
	r.Text = joined(j["system"], msgs)
	for _, m := range msgs {
		for _, b := range asList(asMap(m)["content"]) {
			if bm := asMap(b); asString(bm["type"]) == "tool_result" {
				r.ToolResults = append(r.ToolResults, joined(bm["content"]))
			}
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := asMap(msgs[i])
		if asString(m["role"]) != "user" {
			continue
		}
		var parts []string
		switch c := m["content"].(type) {
		case string:
			parts = append(parts, c)
		case []any:
			for _, b := range c {
				if bm := asMap(b); asString(bm["type"]) == "text" {
					parts = append(parts, asString(bm["text"]))
				}
			}
		}
		r.LastUser = strings.Join(parts, "\n")
		break
	}
}

// answerAnthropic streams (or, if not asked to stream, returns) one
// assistant message: a text block, then the tool call if any.
func (s *Server) answerAnthropic(w http.ResponseWriter, r *Request, reply Reply, id int) {
	model := asString(r.json["model"])
	if model == "" {
		model = "claude-fake"
	}
	msgID := fmt.Sprintf("msg_fake%04d", id)
	stop := "end_turn"
	var blocks []map[string]any
	if reply.Text != "" || reply.Tool == nil {
		text := reply.Text
		if text == "" {
			text = "ok"
		}
		blocks = append(blocks, map[string]any{"type": "text", "text": text})
	}
	if reply.Tool != nil {
		stop = "tool_use"
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake%04d", id), "name": reply.Tool.Name, "input": reply.Tool.Input})
	}
	usage := map[string]any{"input_tokens": reply.inputTokens(r), "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !r.Stream {
		writeJSON(w, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": reply.inputTokens(r), "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// failAnthropic answers with an error as the Messages API does: the
// status, and {"type":"error","error":{"type":…,"message":…}}.
func (s *Server) failAnthropic(w http.ResponseWriter, f Failure) {
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	json.NewEncoder(w).Encode(map[string]any{
		"type": "error", "error": map[string]any{"type": f.Type, "message": f.Message},
	})
}

// UsageLimit is the answer the Messages API gives an account over its
// usage limit: 429 with a rate_limit_error, the unified rate-limit headers
// saying the limit is reached and when it resets, and retry-after until
// then. Claude Code 2.1.197 with an API key shows it as "API Error: Request
// rejected (429) · …" whatever the headers say (the "session limit ·
// resets …" text is a subscriber's); it gives up at once on a retry-after
// that far away, and without one retries ten times, for minutes.
func UsageLimit(reset time.Time) Reply {
	return Reply{Fail: &Failure{
		Status:  http.StatusTooManyRequests,
		Type:    "rate_limit_error",
		Message: "This request would exceed your account's rate limit. Please try again later.",
		Header: map[string]string{
			"anthropic-ratelimit-unified-status":               "rejected",
			"anthropic-ratelimit-unified-reset":                strconv.FormatInt(reset.Unix(), 10),
			"anthropic-ratelimit-unified-representative-claim": "five_hour",
			"retry-after": strconv.Itoa(int(time.Until(reset).Seconds())),
		},
	}}
}
