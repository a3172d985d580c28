package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// lines splits records written one a line, as the readers get them.
func lines(records ...string) [][]byte {
	return splitTail([]byte(strings.Join(records, "\n")+"\n"), false).lines
}

func rendered(c *conversation) string { return c.excerpt(1 << 20) }

// Shapes the one-session fixtures do not hold, written as the agents
// write them (HARNESSES.md, and the CLIs' own readers).
func TestFormats(t *testing.T) {
	tests := []struct {
		name    string
		read    func([][]byte) *conversation
		records []string
		want    string
		reply   string
	}{
		{
			name: "gemini: upsert keeps the first place, $rewindTo drops from there, $set messages replaces all",
			read: readGemini,
			records: []string{
				`{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}`,
				`{"id":"u1","type":"user","content":[{"text":"first prompt"}]}`,
				`{"id":"g1","type":"gemini","content":"draft"}`,
				`{"id":"u2","type":"user","content":[{"text":"second prompt"}]}`,
				`{"id":"g1","type":"gemini","content":"first answer","toolCalls":[{"id":"c1","name":"read_file","args":{"absolute_path":"/a"},"status":"error"}]}`,
				`{"$set":{"lastUpdated":"t2"}}`,
				`{"id":"g2","type":"gemini","content":"second answer"}`,
				`{"$rewindTo":"u2"}`,
				`{"id":"u3","type":"user","content":"third prompt"}`,
				`{"id":"i1","type":"info","content":"an info line"}`,
			},
			want:  "user: first prompt\nassistant: first answer\ntool: read_file /a (failed)\nuser: third prompt",
			reply: "first answer",
		},
		{
			name: "gemini: $set messages",
			read: readGemini,
			records: []string{
				`{"id":"u1","type":"user","content":[{"text":"gone"}]}`,
				`{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"kept prompt"}]},{"id":"b","type":"gemini","content":[{"text":"kept answer"}]}]}}`,
				`{"$rewindTo":"not-seen"}`,
				`{"id":"c","type":"gemini","content":"after a rewind to before the window"}`,
			},
			want:  "assistant: after a rewind to before the window",
			reply: "after a rewind to before the window",
		},
		{
			name: "codex: custom tools, older outputs, compaction, a reply only task_complete holds",
			read: readCodex,
			records: []string{
				`{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"_git-handoff session S1 started"}]}}`,
				`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"patch it"}]}}`,
				`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"p1","input":"*** Begin Patch\n*** Update File: x.go\n*** End Patch"}}`,
				`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p1","output":"{\"output\":\"Success\",\"metadata\":{\"exit_code\":0}}"}}`,
				`{"type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"s1","arguments":"{\"command\":[\"bash\",\"-lc\",\"make\"]}"}}`,
				`{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"s1","exit_code":2}}`,
				`{"type":"response_item","payload":{"type":"function_call_output","call_id":"s1","output":"make: *** no rule"}}`,
				`{"type":"response_item","payload":{"type":"local_shell_call","call_id":"l1","action":{"command":["ls"]}}}`,
				`{"type":"response_item","payload":{"type":"function_call_output","call_id":"l1","output":{"content":"x","success":true}}}`,
				`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"what compaction kept"}]},"metadata":{"compaction_output":true}}`,
				`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt hook_run_id=\"r\">Before you stop: this git-handoff session (S1) x</hook_prompt>"}]}}`,
				`{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"Patched x.go."}}`,
			},
			want:  "user: patch it\ntool: apply_patch x.go (ok)\ntool: $ make (failed)\ntool: $ ls (ok)\nsummary: what compaction kept\nassistant: Patched x.go.",
			reply: "Patched x.go.",
		},
		{
			name: "claude: blocks, compaction summary, meta and sidechain records",
			read: readClaude,
			records: []string{
				`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"fix it"}]}}`,
				`{"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>x"}}`,
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"hmm"}]}}`,
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"On it."}]}}`,
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Running the tests."}]}}`,
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test"}}]}}`,
				`{"type":"assistant","isSidechain":true,"message":{"id":"m9","content":[{"type":"text","text":"a subagent's"}]}}`,
				`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"FAIL","is_error":true}]}}`,
				`{"type":"system","subtype":"compact_boundary"}`,
				`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued."}}`,
				`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.go"}}]}}`,
			},
			want:  "user: fix it\nassistant: On it.\n  Running the tests.\ntool: $ go test (failed)\nsummary: This session is being continued.\ntool: Read a.go (no result)",
			reply: "On it.\nRunning the tests.",
		},
		{
			name: "copilot: a failed tool, a message without text",
			read: readCopilot,
			records: []string{
				`{"type":"user.message","data":{"content":"fix it","transformedContent":"<current_datetime>x</current_datetime>\n\nfix it"}}`,
				`{"type":"assistant.message","data":{"messageId":"a","content":"","toolRequests":[{"toolCallId":"t1","name":"view","arguments":{"path":"/x"}}]}}`,
				`{"type":"tool.execution_complete","data":{"toolCallId":"t1","success":false}}`,
				`{"type":"assistant.message_delta","data":{"messageId":"b","deltaContent":"partial"},"ephemeral":true}`,
				`{"type":"assistant.message","data":{"messageId":"b","content":"Could not read /x."}}`,
			},
			want:  "user: fix it\ntool: view /x (failed)\nassistant: Could not read /x.",
			reply: "Could not read /x.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.read(lines(tt.records...))
			if got := rendered(c); got != tt.want {
				t.Errorf("excerpt\n%s\nwant\n%s", got, tt.want)
			}
			if got := c.lastReply(); got != tt.reply {
				t.Errorf("last reply %q, want %q", got, tt.reply)
			}
		})
	}
}

// fuzzReader checks a reader on any input: it does not panic, and what it
// gives fits its bound, is UTF-8, and holds none of git-handoff's texts.
func fuzzReader(f *testing.F, agent string, read func([][]byte) *conversation) {
	data, err := os.ReadFile(filepath.Join("testdata", agent+".jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, 4096)
	f.Add(data, 30)
	for _, l := range strings.Split(string(data), "\n") {
		f.Add([]byte(l), 200)
	}
	f.Fuzz(func(t *testing.T, data []byte, maxBytes int) {
		c := read(splitTail(data, false).lines)
		if r := c.lastReply(); !utf8.ValidString(r) {
			t.Errorf("last reply is not UTF-8: %q", r)
		}
		if maxBytes <= 0 || maxBytes > 1<<20 {
			return
		}
		ex := c.excerpt(maxBytes)
		if len(ex) > maxBytes || !utf8.ValidString(ex) {
			t.Errorf("excerpt(%d): %d bytes, UTF-8 %v", maxBytes, len(ex), utf8.ValidString(ex))
		}
		for _, l := range strings.Split(ex, "\n") {
			if body, ok := strings.CutPrefix(l, "user: "); ok && isOurs(body) {
				t.Errorf("excerpt holds git-handoff's own text: %q", l)
			}
		}
	})
}

func FuzzClaude(f *testing.F)  { fuzzReader(f, "claude-code", readClaude) }
func FuzzCodex(f *testing.F)   { fuzzReader(f, "codex", readCodex) }
func FuzzGemini(f *testing.F)  { fuzzReader(f, "gemini", readGemini) }
func FuzzCopilot(f *testing.F) { fuzzReader(f, "copilot", readCopilot) }
