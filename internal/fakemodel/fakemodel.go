// Package fakemodel is a scripted model server on 127.0.0.1 that the coding
// agents' real CLIs accept as their model provider: Anthropic's Messages API
// (Claude Code, and Copilot or OpenCode pointed at it), OpenAI's Responses
// API (Codex) and Gemini's generateContent API (Gemini CLI).
//
// A test gives a Script that decides each answer from the request; the
// server records every request so the test can assert what reached the
// model. Anything the server does not understand is reported as a fault
// (by default a test error) and answered 404 or 400, so a wrong path or a
// changed request shape shows instead of hanging an agent.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// API names the wire protocol a request came in on.
type API string

const (
	Anthropic API = "anthropic"
	OpenAI    API = "openai"
	Gemini    API = "gemini"
)

// Request is one request the server received, decoded enough to script on.
type Request struct {
	API    API
	Method string
	Path   string // path and raw query, as sent
	Body   []byte // raw body
	At     time.Time
	// Text is every string of the conversation the model is shown: the
	// system prompt or instructions and all messages (tool results
	// included), joined by newlines. Tool definitions are left out, so a
	// marker found here reached the model as context, not as a schema.
	Text string
	// Tools are the names of the tools the request offers the model.
	Tools []string
	// Freeform are the names among Tools of freeform tools (the Responses
	// API's "custom" type), which take one raw string, not JSON arguments.
	Freeform []string
	// ToolResults are the texts of the tool results in the conversation,
	// oldest first.
	ToolResults []string
	// LastUser is the text of the last user message (for Codex, the last
	// user item), where the next turn's prompt or a hook's feedback lands.
	LastUser string
	// Stream says whether the client asked for a streamed answer.
	Stream bool
	// Router is set on Gemini's non-streaming generateContent calls, which
	// the CLI uses for side questions (model routing, next-speaker checks)
	// that must be answered with JSON matching Schema.
	Router bool
	Schema map[string]any

	json map[string]any
}

// freeform says whether the request offers name as a freeform tool.
func (r *Request) freeform(name string) bool {
	for _, n := range r.Freeform {
		if n == name {
			return true
		}
	}
	return false
}

// HasTool says whether the request offers a tool of that name.
func (r *Request) HasTool(name string) bool {
	for _, n := range r.Tools {
		if n == name {
			return true
		}
	}
	return false
}

// Contains says whether s is in the conversation text.
func (r *Request) Contains(s string) bool { return strings.Contains(r.Text, s) }

// Reply is what the scripted model answers: text, or one tool call (with
// optional text before it).
type Reply struct {
	Text string
	Tool *ToolCall
	// InputTokens, if set, is the prompt size the answer reports (else an
	// estimate from the request's size): a large figure makes an agent
	// that compacts by token count compact now.
	InputTokens int
	// Fail, if set, answers with an API error instead of a message (only
	// on Anthropic's API so far).
	Fail *Failure
}

// Failure is an error answer: the HTTP status, the error's type and
// message as the API's error body carries them, and headers sent with it.
type Failure struct {
	Status  int
	Type    string
	Message string
	Header  map[string]string
}

func (rep Reply) inputTokens(r *Request) int {
	if rep.InputTokens > 0 {
		return rep.InputTokens
	}
	return len(r.Body) / 4
}

// ToolCall asks the client to run one of its tools: a function tool with
// Input as its JSON arguments, or a freeform tool (Codex's apply_patch,
// offered as a "custom" tool to models whose metadata asks for it) with
// Raw as its whole input.
type ToolCall struct {
	Name  string
	Input map[string]any
	Raw   string
}

// Say is a text-only reply.
func Say(text string) Reply { return Reply{Text: text} }

// shellTools are the shell tools each CLI offers, with the argument that
// carries the command line. The first one the request offers is used.
var shellTools = []struct{ name, arg string }{
	{"Bash", "command"},              // Claude Code
	{"exec_command", "cmd"},          // Codex (unified exec)
	{"shell_command", "command"},     // Codex (older shell tool)
	{"run_shell_command", "command"}, // Gemini CLI
	{"bash", "command"},              // OpenCode
}

// Shell is a reply that asks the client to run cmd through the shell tool
// the request offers. It returns ok=false when the request offers none.
func (r *Request) Shell(cmd string) (Reply, bool) {
	for _, st := range shellTools {
		if r.HasTool(st.name) {
			in := map[string]any{st.arg: cmd}
			if st.name == "Bash" {
				in["description"] = "run a command"
			}
			return Reply{Tool: &ToolCall{Name: st.name, Input: in}}, true
		}
	}
	return Reply{}, false
}

// OffersShell says whether the request offers a shell tool: it is a turn
// of the agent's main loop, not a side request (a title, a summary check,
// a router question) made without tools.
func (r *Request) OffersShell() bool {
	_, ok := r.Shell("true")
	return ok
}

// Script decides the answer to one request. It runs on the server's
// goroutines, one request at a time.
type Script func(r *Request) Reply

// Server is a running fake model server.
type Server struct {
	URL string // http://127.0.0.1:PORT, no trailing slash

	script Script
	fault  func(format string, args ...any)
	srv    *http.Server
	ln     net.Listener

	scriptMu sync.Mutex // one script call at a time
	mu       sync.Mutex
	reqs     []*Request
	seq      int
}

// Start starts a server for the test's lifetime. Faults (unknown paths,
// bodies that do not parse, a script reply the protocol cannot express)
// are reported with t.Errorf.
func Start(t testing.TB, script Script) *Server {
	t.Helper()
	s, err := New(script, func(format string, args ...any) {
		t.Helper()
		t.Errorf("fake model: "+format, args...)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts a server outside a test; fault receives every fault.
func New(script Script, fault func(format string, args ...any)) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script, fault: fault, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns a copy of the requests received so far, oldest first.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Find returns the requests whose conversation text contains text.
func (s *Server) Find(text string) []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Contains(text) {
			out = append(out, r)
		}
	}
	return out
}

// SawToolOutput says whether some request carried a tool result containing
// text: the client ran the tool and showed the model its output.
func (s *Server) SawToolOutput(text string) bool {
	for _, r := range s.Requests() {
		for _, tr := range r.ToolResults {
			if strings.Contains(tr, text) {
				return true
			}
		}
	}
	return false
}

// Dump describes every request briefly, for a failing test's log.
func (s *Server) Dump() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		fmt.Fprintf(&b, "#%d %s %s %s %s tools=%d results=%d last user=%.200q\n", i, r.At.Format("15:04:05.000"), r.API, r.Method, r.Path, len(r.Tools), len(r.ToolResults), r.LastUser)
		for _, tr := range r.ToolResults {
			fmt.Fprintf(&b, "    tool result=%.600q\n", tr)
		}
	}
	return b.String()
}

func (s *Server) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		s.fault("reading %s %s: %v", hr.Method, hr.URL, err)
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	path := hr.URL.Path
	r := &Request{Method: hr.Method, Path: hr.URL.RequestURI(), Body: body, At: time.Now()}
	switch {
	case hr.Method == http.MethodHead && path == "/":
		// Claude Code warms its connection with a HEAD of the base URL.
		s.record(r)
		return
	case hr.Method == http.MethodPost && path == "/v1/messages":
		r.API = Anthropic
	case hr.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		// Claude Code counts tokens for some features; any estimate will do.
		r.API = Anthropic
		s.record(r)
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
		return
	case hr.Method == http.MethodPost && path == "/v1/responses":
		r.API = OpenAI
	case hr.Method == http.MethodPost && strings.HasPrefix(path, "/v1beta/models/") && strings.HasSuffix(path, ":countTokens"):
		r.API = Gemini
		s.record(r)
		writeJSON(w, map[string]any{"totalTokens": len(body) / 4})
		return
	case hr.Method == http.MethodPost && strings.HasPrefix(path, "/v1beta/models/") &&
		(strings.HasSuffix(path, ":generateContent") || strings.HasSuffix(path, ":streamGenerateContent")):
		r.API = Gemini
		r.Stream = strings.HasSuffix(path, ":streamGenerateContent")
		r.Router = !r.Stream
	default:
		s.record(r)
		s.fault("unexpected request %s %s (body %.300s)", hr.Method, hr.URL.RequestURI(), body)
		http.NotFound(w, hr)
		return
	}
	if err := json.Unmarshal(body, &r.json); err != nil {
		s.record(r)
		s.fault("%s %s: body is not JSON: %v (%.300s)", hr.Method, r.Path, err, body)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	switch r.API {
	case Anthropic:
		parseAnthropic(r)
	case OpenAI:
		parseOpenAI(r)
	case Gemini:
		parseGemini(r)
	}
	s.record(r)
	if r.Router {
		// A side question: answered from its schema, the script is not asked.
		s.answerGeminiJSON(w, r)
		return
	}
	s.scriptMu.Lock()
	reply := s.script(r)
	s.scriptMu.Unlock()
	if reply.Fail != nil {
		if r.API != Anthropic {
			s.fault("%s: the script answered with a failure, which this fake sends only on Anthropic's API", r.Path)
			http.Error(w, "no failure here", http.StatusBadRequest)
			return
		}
		s.failAnthropic(w, *reply.Fail)
		return
	}
	if reply.Tool != nil && !r.HasTool(reply.Tool.Name) {
		s.fault("script asked for tool %q, which %s does not offer (offered: %v)", reply.Tool.Name, r.Path, r.Tools)
	}
	if t := reply.Tool; t != nil && r.HasTool(t.Name) && r.freeform(t.Name) != (t.Raw != "") {
		// A freeform tool given JSON, or a function tool given raw text,
		// would reach the client as a call it rejects: a script mistake.
		kind := "a function tool (JSON Input)"
		if r.freeform(t.Name) {
			kind = "a freeform tool (Raw input)"
		}
		s.fault("script called %q with Raw %q and Input %v, but %s offers it as %s", t.Name, t.Raw, t.Input, r.Path, kind)
	}
	id := s.next()
	switch r.API {
	case Anthropic:
		s.answerAnthropic(w, r, reply, id)
	case OpenAI:
		s.answerOpenAI(w, r, reply, id)
	case Gemini:
		s.answerGemini(w, r, reply)
	}
}

func (s *Server) record(r *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events and flushes after each, as the real
// services stream.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (e *sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	var buf bytes.Buffer
	if name != "" {
		fmt.Fprintf(&buf, "event: %s\n", name)
	}
	fmt.Fprintf(&buf, "data: %s\n\n", b)
	e.w.Write(buf.Bytes())
	if e.f != nil {
		e.f.Flush()
	}
}

// structural keys hold a message's shape, not what the model reads.
var structural = map[string]bool{
	"type": true, "role": true, "id": true, "tool_use_id": true, "call_id": true,
	"status": true, "cache_control": true, "signature": true, "media_type": true,
}

// collect gathers every string value under v, depth first, but those of
// structural keys.
func collect(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		if x != "" {
			*out = append(*out, x)
		}
	case []any:
		for _, e := range x {
			collect(e, out)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if !structural[k] {
				collect(x[k], out)
			}
		}
	}
}

func joined(vs ...any) string {
	var out []string
	for _, v := range vs {
		collect(v, &out)
	}
	return strings.Join(out, "\n")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Insertion sort: maps here are small, and the order only has to be
	// stable so Text reads the same on every run.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }
func asString(v any) string      { s, _ := v.(string); return s }
