package fakemodel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// faults collects what the server reports instead of failing the test, so
// a test can check that a fault is reported.
type faults struct {
	mu   sync.Mutex
	msgs []string
}

func (f *faults) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *faults) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.msgs...)
}

func start(t *testing.T, script Script) (*Server, *faults) {
	f := &faults{}
	s, err := New(script, f.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, f
}

func post(t *testing.T, url, body string) (*http.Response, []map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		events = append(events, ev)
	}
	return resp, events
}

func TestUnknownPathIsAFault(t *testing.T) {
	s, f := start(t, func(r *Request) Reply { return Say("x") })
	resp, _ := post(t, s.URL+"/v1/chat/completions", `{}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d, want 404", resp.StatusCode)
	}
	if got := f.all(); len(got) != 1 || !strings.Contains(got[0], "/v1/chat/completions") {
		t.Errorf("faults %q, want one naming the path", got)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests recorded, want 1", n)
	}
}

func TestBodyThatIsNotJSONIsAFault(t *testing.T) {
	s, f := start(t, func(r *Request) Reply { return Say("x") })
	resp, _ := post(t, s.URL+"/v1/messages", `not json`)
	if resp.StatusCode != http.StatusBadRequest || len(f.all()) != 1 {
		t.Errorf("status %d, faults %q; want 400 and one fault", resp.StatusCode, f.all())
	}
}

// An Anthropic conversation with a tool result: the script sees the tool
// result and the shell tool by the name the request offers, and its tool
// call streams as the events Claude Code parses.
func TestAnthropicToolCall(t *testing.T) {
	s, f := start(t, func(r *Request) Reply {
		if len(r.ToolResults) != 1 || r.ToolResults[0] != "OUT-1" {
			t.Errorf("tool results %q", r.ToolResults)
		}
		rep, ok := r.Shell("echo hi")
		if !ok {
			t.Error("no shell tool found")
		}
		return rep
	})
	_, events := post(t, s.URL+"/v1/messages?beta=true", `{"model":"m","stream":true,
		"system":[{"type":"text","text":"SYSTEM-TEXT"}],
		"tools":[{"name":"Read"},{"name":"Bash"}],
		"messages":[{"role":"user","content":"PROMPT-TEXT"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"x"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"OUT-1"}]}]}]}`)
	var types []string
	var partial string
	for _, ev := range events {
		types = append(types, ev["type"].(string))
		if d := asMap(ev["delta"]); d["type"] == "input_json_delta" {
			partial += d["partial_json"].(string)
		}
	}
	// A tool call without text is one tool_use block.
	want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events %s", got)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(partial), &in); err != nil || in["command"] != "echo hi" {
		t.Errorf("tool input %q: %v", partial, err)
	}
	r := s.Requests()[0]
	for _, txt := range []string{"SYSTEM-TEXT", "PROMPT-TEXT", "OUT-1"} {
		if !r.Contains(txt) {
			t.Errorf("Text lacks %q: %q", txt, r.Text)
		}
	}
	if len(f.all()) != 0 {
		t.Errorf("faults: %q", f.all())
	}
}

func TestToolNotOfferedIsAFault(t *testing.T) {
	s, f := start(t, func(r *Request) Reply { return Reply{Tool: &ToolCall{Name: "Bash", Input: map[string]any{}}} })
	post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[]}`)
	if got := f.all(); len(got) != 1 || !strings.Contains(got[0], `"Bash"`) {
		t.Errorf("faults %q, want one about Bash", got)
	}
}

// Codex: the shell call is exec_command with "cmd", and the response
// stream ends with response.completed carrying the function call.
func TestOpenAIShellCall(t *testing.T) {
	s, _ := start(t, func(r *Request) Reply { rep, _ := r.Shell("ls"); return rep })
	_, events := post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,"instructions":"INSTR",
		"tools":[{"type":"function","name":"exec_command"},{"type":"web_search"}],
		"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"DEV"}]},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"USER-1"}]}]}`)
	last := events[len(events)-1]
	if last["type"] != "response.completed" {
		t.Fatalf("last event %v", last)
	}
	item := asMap(asList(asMap(last["response"])["output"])[0])
	if item["type"] != "function_call" || item["name"] != "exec_command" || item["arguments"] != `{"cmd":"ls"}` {
		t.Errorf("output item %v", item)
	}
	r := s.Requests()[0]
	if r.LastUser != "USER-1" || !r.Contains("INSTR") || !r.Contains("DEV") || !r.HasTool("web_search") {
		t.Errorf("parsed %+v", r)
	}
}

func TestGeminiRouterAnsweredFromSchema(t *testing.T) {
	s, f := start(t, func(r *Request) Reply { t.Error("the script was asked a router question"); return Say("x") })
	resp, err := http.Post(s.URL+"/v1beta/models/flash:generateContent", "application/json", strings.NewReader(`{
		"contents":[{"role":"user","parts":[{"text":"route me"}]}],
		"generationConfig":{"responseJsonSchema":{"type":"object","properties":{
			"reasoning":{"type":"string"},"model_choice":{"type":"string","enum":["flash","pro"]},
			"score":{"type":"integer"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	text := asString(asMap(asList(asMap(asMap(asList(out["candidates"])[0])["content"])["parts"])[0])["text"])
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("answer %q: %v", text, err)
	}
	if v["model_choice"] != "flash" || v["reasoning"] == "" || v["score"] != float64(1) {
		t.Errorf("answer %v", v)
	}
	if len(f.all()) != 0 {
		t.Errorf("faults %q", f.all())
	}
}

// Codex offers apply_patch as a freeform ("custom") tool: the call is a
// custom_tool_call carrying the raw patch, and its result comes back as a
// custom_tool_call_output.
func TestOpenAIFreeformCall(t *testing.T) {
	const patch = "*** Begin Patch\n*** Add File: a.go\n+package a\n*** End Patch\n"
	s, f := start(t, func(r *Request) Reply {
		if len(r.ToolResults) > 0 {
			return Say("done")
		}
		return Reply{Tool: &ToolCall{Name: "apply_patch", Raw: patch}}
	})
	tools := `"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch","format":{"type":"grammar"}}]`
	_, events := post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,`+tools+`,"input":[]}`)
	item := asMap(asList(asMap(events[len(events)-1]["response"])["output"])[0])
	if item["type"] != "custom_tool_call" || item["name"] != "apply_patch" || item["input"] != patch || item["call_id"] == "" {
		t.Errorf("output item %v", item)
	}
	post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,`+tools+`,"input":[
		{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"x"},
		{"type":"custom_tool_call_output","call_id":"c1","output":"REFUSED-HERE"}]}`)
	if r := s.Requests()[1]; len(r.ToolResults) != 1 || r.ToolResults[0] != "REFUSED-HERE" {
		t.Errorf("tool results %q, want the custom tool's output", r.ToolResults)
	}
	if got := f.all(); len(got) != 0 {
		t.Errorf("faults %q", got)
	}
	if r := s.Requests()[0]; len(r.Freeform) != 1 || r.Freeform[0] != "apply_patch" {
		t.Errorf("freeform tools %q, want apply_patch", r.Freeform)
	}
}

// A freeform tool called with JSON arguments, or a function tool with raw
// text, is a script mistake the client would reject: reported.
func TestFreeformMismatchIsAFault(t *testing.T) {
	tools := `"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"}]`
	for _, call := range []ToolCall{
		{Name: "apply_patch", Input: map[string]any{"input": "p"}},
		{Name: "exec_command", Raw: "ls"},
	} {
		s, f := start(t, func(r *Request) Reply { return Reply{Tool: &call} })
		post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,`+tools+`,"input":[]}`)
		if got := f.all(); len(got) != 1 || !strings.Contains(got[0], call.Name) {
			t.Errorf("%s: faults %q, want one naming it", call.Name, got)
		}
	}
}
