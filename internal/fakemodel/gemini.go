package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// parseGemini reads a generateContent request: systemInstruction, contents
// (parts of text, functionCall, functionResponse) and tools'
// functionDeclarations. The CLI's code-assist wrapper nests the same under
// "request"; both are accepted.
func parseGemini(r *Request) {
	j := r.json
	if inner := asMap(j["request"]); inner != nil {
		j = inner
	}
	for _, t := range asList(j["tools"]) {
		for _, fd := range asList(asMap(t)["functionDeclarations"]) {
			if n := asString(asMap(fd)["name"]); n != "" {
				r.Tools = append(r.Tools, n)
			}
		}
	}
	contents := asList(j["contents"])
	r.Text = joined(j["systemInstruction"], contents)
	for _, c := range contents {
		for _, p := range asList(asMap(c)["parts"]) {
			if fr := asMap(p)["functionResponse"]; fr != nil {
				r.ToolResults = append(r.ToolResults, joined(asMap(fr)["response"]))
			}
		}
	}
	for i := len(contents) - 1; i >= 0; i-- {
		cm := asMap(contents[i])
		if asString(cm["role"]) != "user" {
			continue
		}
		var parts []string
		for _, p := range asList(cm["parts"]) {
			if t := asString(asMap(p)["text"]); t != "" {
				parts = append(parts, t)
			}
		}
		if len(parts) > 0 {
			r.LastUser = strings.Join(parts, "\n")
			break
		}
	}
	gc := asMap(j["generationConfig"])
	r.Schema = asMap(gc["responseJsonSchema"])
	if r.Schema == nil {
		r.Schema = asMap(gc["responseSchema"])
	}
}

func geminiAnswer(parts []any) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "gemini-fake",
	}
}

// answerGemini streams the reply as one SSE event.
func (s *Server) answerGemini(w http.ResponseWriter, r *Request, reply Reply) {
	var parts []any
	if reply.Text != "" || reply.Tool == nil {
		text := reply.Text
		if text == "" {
			text = "ok"
		}
		parts = append(parts, map[string]any{"text": text})
	}
	if reply.Tool != nil {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": reply.Tool.Name, "args": reply.Tool.Input}})
	}
	e := newSSE(w)
	e.event("", geminiAnswer(parts))
}

// answerGeminiJSON answers a side question with a JSON value that matches
// the schema the request gives (the CLI rejects anything else and retries).
func (s *Server) answerGeminiJSON(w http.ResponseWriter, r *Request) {
	if r.Schema == nil {
		s.fault("%s: a non-streamed request without a JSON schema (%.300s)", r.Path, r.Body)
		writeJSON(w, geminiAnswer([]any{map[string]any{"text": "ok"}}))
		return
	}
	v, _ := json.Marshal(fromSchema(r.Schema))
	writeJSON(w, geminiAnswer([]any{map[string]any{"text": string(v)}}))
}

// fromSchema builds a value that satisfies a JSON schema: the first enum
// value, the first of anyOf, every property of an object.
func fromSchema(s map[string]any) any {
	if e := asList(s["enum"]); len(e) > 0 {
		return e[0]
	}
	if a := asList(s["anyOf"]); len(a) > 0 {
		return fromSchema(asMap(a[0]))
	}
	typ := strings.ToLower(asString(s["type"]))
	if l := asList(s["type"]); len(l) > 0 {
		typ = strings.ToLower(asString(l[0]))
	}
	switch typ {
	case "object":
		out := map[string]any{}
		for k, p := range asMap(s["properties"]) {
			out[k] = fromSchema(asMap(p))
		}
		return out
	case "array":
		n := 0
		if m, ok := s["minItems"].(float64); ok {
			n = int(m)
		}
		out := []any{}
		for range n {
			out = append(out, fromSchema(asMap(s["items"])))
		}
		return out
	case "string":
		v := "fake"
		if m, ok := s["minLength"].(float64); ok && int(m) > len(v) {
			v = strings.Repeat("x", int(m))
		}
		return v
	case "number", "integer":
		// The CLI checks bounds (its router wants a score of 1 to 100).
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok {
			return m + 1
		}
		if m, ok := s["maximum"].(float64); ok && m < 1 {
			return m
		}
		// Unbounded in the schema but not in the CLI's own check: its
		// router's complexity score must be 1 to 100.
		return 1
	case "boolean":
		return false
	}
	return nil
}
