package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// parseOpenAI reads a Responses API request: instructions, input items
// (messages, function calls and their outputs) and tools.
func parseOpenAI(r *Request) {
	j := r.json
	r.Stream, _ = j["stream"].(bool)
	for _, t := range asList(j["tools"]) {
		tm := asMap(t)
		if n := asString(tm["name"]); n != "" {
			r.Tools = append(r.Tools, n)
			if asString(tm["type"]) == "custom" {
				r.Freeform = append(r.Freeform, n)
			}
		} else if typ := asString(tm["type"]); typ != "" {
			// Built-in tools (web_search, local_shell) have only a type.
			r.Tools = append(r.Tools, typ)
		}
	}
	input := asList(j["input"])
	if s, ok := j["input"].(string); ok {
		input = []any{map[string]any{"type": "message", "role": "user", "content": s}}
	}
	r.Text = joined(j["instructions"], input)
	for _, it := range input {
		im := asMap(it)
		switch asString(im["type"]) {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			r.ToolResults = append(r.ToolResults, joined(im["output"]))
		}
	}
	for i := len(input) - 1; i >= 0; i-- {
		im := asMap(input[i])
		if asString(im["role"]) == "user" {
			r.LastUser = joined(im["content"])
			break
		}
	}
}

// answerOpenAI streams one response holding a message or a function call.
func (s *Server) answerOpenAI(w http.ResponseWriter, r *Request, reply Reply, id int) {
	if !r.Stream {
		s.fault("%s: codex asked for a non-streamed response, which this fake does not serve", r.Path)
		http.Error(w, "stream required", http.StatusBadRequest)
		return
	}
	model := asString(r.json["model"])
	respID := fmt.Sprintf("resp_fake%04d", id)
	var items []map[string]any
	if reply.Text != "" || reply.Tool == nil {
		text := reply.Text
		if text == "" {
			text = "ok"
		}
		items = append(items, map[string]any{
			"type": "message", "id": fmt.Sprintf("msg_fake%04d", id), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
		})
	}
	switch {
	case reply.Tool != nil && r.freeform(reply.Tool.Name):
		items = append(items, map[string]any{
			"type": "custom_tool_call", "id": fmt.Sprintf("ctc_fake%04d", id), "call_id": fmt.Sprintf("call_fake%04d", id),
			"name": reply.Tool.Name, "input": reply.Tool.Raw, "status": "completed",
		})
	case reply.Tool != nil:
		args, _ := json.Marshal(reply.Tool.Input)
		items = append(items, map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_fake%04d", id), "call_id": fmt.Sprintf("call_fake%04d", id),
			"name": reply.Tool.Name, "arguments": string(args), "status": "completed",
		})
	}
	resp := func(status string, output []map[string]any) map[string]any {
		m := map[string]any{"id": respID, "object": "response", "model": model, "status": status, "output": output}
		if status == "completed" {
			m["usage"] = map[string]any{
				"input_tokens": reply.inputTokens(r), "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
				"total_tokens": reply.inputTokens(r) + 10,
			}
		}
		return m
	}
	e := newSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "response": resp("in_progress", []map[string]any{})})
	for i, it := range items {
		if it["type"] == "message" {
			added := map[string]any{"type": "message", "id": it["id"], "role": "assistant", "status": "in_progress", "content": []any{}}
			e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			text := asString(asMap(asList(it["content"])[0])["text"])
			e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": it["id"], "output_index": i, "content_index": 0, "delta": text})
		} else {
			e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		}
		e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	e.event("response.completed", map[string]any{"type": "response.completed", "response": resp("completed", items)})
}
