package lineage

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The goldens live inline: this package keeps no testdata of its own.

func appGraph() *Graph {
	return NewGraph([]Node{
		{ID: "app-3", ReplacedBy: "app-7", Harness: "claude-code", Status: "replaced", Reason: "stuck"},
		// app-7 stores only one side of its link to app-12.
		{ID: "app-7", Supersedes: "app-3", Harness: "codex", Status: "replaced", Reason: "crashed"},
		{ID: "app-12", Supersedes: "app-7", Harness: "gemini", Status: "active"},
		{ID: "other", Harness: "aider", Status: "ended"},
	})
}

// hostileGraph holds ids a renderer must not trust: quotes, backslashes, a
// newline, unicode, a Mermaid keyword, a leading dash, markup and a bidi
// override.
func hostileGraph() *Graph {
	return NewGraph([]Node{
		{ID: `we"ird\`, ReplacedBy: "line\nbreak", Status: "replaced", Reason: `said "no" | #1 <b>`},
		{ID: "line\nbreak", Supersedes: `we"ird\`, ReplacedBy: "ünï-çødé.1", Harness: `a\nb`, Status: "replaced"},
		{ID: "ünï-çødé.1", Supersedes: "line\nbreak", ReplacedBy: "end", Status: "ended", Reason: "manual"},
		{ID: "end", Supersedes: "ünï-çødé.1", ReplacedBy: "-rf <x>", Harness: "`md`", Status: "replaced"},
		{ID: "-rf <x>", Supersedes: "end", Harness: "evil\u202etxt", Status: "active"},
	})
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name, id, format string
		graph            func() *Graph
		want             string
	}{
		{
			name: "tree", id: "app-12", format: "tree", graph: appGraph,
			want: `app-3  claude-code  replaced (stuck)
└─ app-7  codex  replaced (crashed)
   └─ app-12  gemini  active   ← you asked for this one
`,
		},
		{
			name: "tree marks a middle session", id: "app-7", format: "tree", graph: appGraph,
			want: `app-3  claude-code  replaced (stuck)
└─ app-7  codex  replaced (crashed)   ← you asked for this one
   └─ app-12  gemini  active
`,
		},
		{
			name: "tree of a lone session", id: "other", format: "tree", graph: appGraph,
			want: "other  aider  ended   ← you asked for this one\n",
		},
		{
			name: "json", id: "app-12", format: "json", graph: appGraph,
			want: `{
  "id": "app-12",
  "chain": [
    {
      "id": "app-3",
      "harness": "claude-code",
      "status": "replaced",
      "reason": "stuck",
      "supersedes": "",
      "replacedBy": "app-7"
    },
    {
      "id": "app-7",
      "harness": "codex",
      "status": "replaced",
      "reason": "crashed",
      "supersedes": "app-3",
      "replacedBy": "app-12"
    },
    {
      "id": "app-12",
      "harness": "gemini",
      "status": "active",
      "reason": "",
      "supersedes": "app-7",
      "replacedBy": ""
    }
  ]
}
`,
		},
		{
			name: "dot", id: "app-12", format: "dot", graph: appGraph,
			want: `digraph lineage {
  node [shape=box];
  "app-3" [label="app-3\nclaude-code\nreplaced"];
  "app-7" [label="app-7\ncodex\nreplaced"];
  "app-12" [label="app-12\ngemini\nactive", penwidth=3];
  "app-3" -> "app-7" [label="stuck"];
  "app-7" -> "app-12" [label="crashed"];
}
`,
		},
		{
			name: "mermaid", id: "app-12", format: "mermaid", graph: appGraph,
			want: `flowchart TD
  s0_app_3["app-3<br/>claude-code<br/>replaced"]
  s1_app_7["app-7<br/>codex<br/>replaced"]
  s2_app_12["app-12<br/>gemini<br/>active"]
  s0_app_3 -->|"stuck"| s1_app_7
  s1_app_7 -->|"crashed"| s2_app_12
  class s2_app_12 requested
  classDef requested stroke-width:3px
`,
		},
		{
			name: "hostile tree", id: "line\nbreak", format: "tree", graph: hostileGraph,
			want: `we"ird\  -  replaced (said "no" | #1 <b>)
└─ "line\nbreak"  a\nb  replaced   ← you asked for this one
   └─ ünï-çødé.1  -  ended (manual)
      └─ end  ` + "`md`" + `  replaced
         └─ "-rf <x>"  "evil\u202etxt"  active
`,
		},
		{
			name: "hostile json", id: "-rf <x>", format: "json", graph: hostileGraph,
			want: `{
  "id": "-rf <x>",
  "chain": [
    {
      "id": "we\"ird\\",
      "harness": "",
      "status": "replaced",
      "reason": "said \"no\" | #1 <b>",
      "supersedes": "",
      "replacedBy": "line\nbreak"
    },
    {
      "id": "line\nbreak",
      "harness": "a\\nb",
      "status": "replaced",
      "reason": "",
      "supersedes": "we\"ird\\",
      "replacedBy": "ünï-çødé.1"
    },
    {
      "id": "ünï-çødé.1",
      "harness": "",
      "status": "ended",
      "reason": "manual",
      "supersedes": "line\nbreak",
      "replacedBy": "end"
    },
    {
      "id": "end",
      "harness": "` + "`md`" + `",
      "status": "replaced",
      "reason": "",
      "supersedes": "ünï-çødé.1",
      "replacedBy": "-rf <x>"
    },
    {
      "id": "-rf <x>",
      "harness": "evil` + "\u202e" + `txt",
      "status": "active",
      "reason": "",
      "supersedes": "end",
      "replacedBy": ""
    }
  ]
}
`,
		},
		{
			name: "hostile dot", id: "end", format: "dot", graph: hostileGraph,
			want: `digraph lineage {
  node [shape=box];
  "we\"ird\\" [label="we\"ird\\\nreplaced"];
  "line\nbreak" [label="line\nbreak\na\\nb\nreplaced"];
  "ünï-çødé.1" [label="ünï-çødé.1\nended"];
  "end" [label="end\n` + "`md`" + `\nreplaced", penwidth=3];
  "-rf <x>" [label="-rf <x>\nevil` + "\u202e" + `txt\nactive"];
  "we\"ird\\" -> "line\nbreak" [label="said \"no\" | #1 <b>"];
  "line\nbreak" -> "ünï-çødé.1";
  "ünï-çødé.1" -> "end" [label="manual"];
  "end" -> "-rf <x>";
}
`,
		},
		{
			name: "hostile mermaid", id: "end", format: "mermaid", graph: hostileGraph,
			want: `flowchart TD
  s0_we_ird_["we#34;ird#92;<br/>replaced"]
  s1_line_break["line<br/>break<br/>a#92;nb<br/>replaced"]
  s2__n____d__1["ünï-çødé.1<br/>ended"]
  s3_end["end<br/>#96;md#96;<br/>replaced"]
  s4__rf__x_["-rf #60;x#62;<br/>evil` + "\u202e" + `txt<br/>active"]
  s0_we_ird_ -->|"said #34;no#34; #124; #35;1 #60;b#62;"| s1_line_break
  s1_line_break --> s2__n____d__1
  s2__n____d__1 -->|"manual"| s3_end
  s3_end --> s4__rf__x_
  class s3_end requested
  classDef requested stroke-width:3px
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.graph(), tt.id, tt.format)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if got != tt.want {
				t.Errorf("Render(%q, %q):\n--- got\n%s--- want\n%s", tt.id, tt.format, got, tt.want)
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	g := appGraph()
	_, err := Render(g, "app-12", "svg")
	if err == nil || !strings.Contains(err.Error(), `unknown lineage format "svg": use one of tree, json, dot, mermaid`) {
		t.Errorf("unknown format: err = %v", err)
	}
	for _, f := range Formats {
		if _, err := Render(g, "nope", f); !errors.Is(err, ErrNotInGraph) || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("Render(nope, %s): err = %v, want ErrNotInGraph naming the id", f, err)
		}
	}
}

func TestRenderJSONRoundTrips(t *testing.T) {
	for _, id := range hostileGraph().IDs() {
		out, err := Render(hostileGraph(), id, "json")
		if err != nil {
			t.Fatal(err)
		}
		var v ChainView
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("output for %q is not JSON: %v", id, err)
		}
		if v.ID != id || len(v.Chain) != 5 || v.Chain[0].ID != `we"ird\` || v.Chain[4].ID != "-rf <x>" {
			t.Errorf("round trip of %q lost data: %+v", id, v)
		}
	}
}

func TestRenderOnBrokenGraphsTerminates(t *testing.T) {
	g := NewGraph([]Node{
		{ID: "a", ReplacedBy: "b", Reason: "stuck"}, {ID: "b", ReplacedBy: "c"}, {ID: "c", ReplacedBy: "a"},
		{ID: "self", ReplacedBy: "self"}, {ID: "lost", Supersedes: "ghost"},
	})
	for _, id := range g.IDs() {
		for _, f := range Formats {
			if _, err := Render(g, id, f); err != nil {
				t.Errorf("Render(%q, %s) = %v", id, f, err)
			}
		}
	}
	if got, want := Summary(g, "b"), "b ← a (stuck)"; got != want {
		t.Errorf("Summary in a cycle = %q, want %q", got, want)
	}
}

func TestSummary(t *testing.T) {
	g := appGraph()
	h := hostileGraph()
	tests := []struct {
		g        *Graph
		id, want string
	}{
		{g, "app-12", "app-12 ← app-7 (crashed)"},
		{g, "app-7", "app-7 ← app-3 (stuck)"},
		{g, "app-3", "app-3"},
		{g, "other", "other"},
		{g, "unknown", "unknown"},
		{h, "line\nbreak", `"line\nbreak" ← we"ird\ (said "no" | #1 <b>)`},
		{h, "end", `end ← ünï-çødé.1 (manual)`},
		{h, "-rf <x>", `"-rf <x>" ← end`},
	}
	for _, tt := range tests {
		if got := Summary(tt.g, tt.id); got != tt.want {
			t.Errorf("Summary(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

// TestDOTParsesWithGraphviz feeds the hostile output to Graphviz when it is
// installed, and checks that every id survives as its own node.
func TestDOTParsesWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("graphviz not installed")
	}
	out, err := Render(hostileGraph(), "end", "dot")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "g.dot")
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	plain, err := exec.Command(dot, "-Tplain", file).CombinedOutput()
	if err != nil {
		t.Fatalf("dot rejected the output: %v\n%s\n%s", err, plain, out)
	}
	nodes := strings.Count(string(plain), "\nnode ")
	edges := strings.Count(string(plain), "\nedge ")
	if nodes != 5 || edges != 4 {
		t.Errorf("graphviz saw %d nodes and %d edges, want 5 and 4:\n%s", nodes, edges, plain)
	}
}

// printable quotes exactly what is not all printable runes but spaces,
// as it did rune by rune before it looked at ASCII bytes first.
func TestPrintableAsRuneByRune(t *testing.T) {
	slow := func(s string) string {
		for _, r := range s {
			if !unicode.IsPrint(r) || unicode.IsSpace(r) {
				return strconv.Quote(s)
			}
		}
		return s
	}
	texts := []string{"", "app-1", "a b", "tab\t", "é", "日本", "\u00a0", "\u2028", "bad \xff", "\x7f", "~", "!", "app-\u202e"}
	for c := range 256 {
		texts = append(texts, string(rune(c)), string([]byte{byte(c)}), "app-"+string([]byte{byte(c)})+"-x")
	}
	for _, a := range texts {
		for _, b := range []string{"", "app-12", "é"} {
			if got, want := printable(a+b), slow(a+b); got != want {
				t.Fatalf("printable(%q) = %q, want %q", a+b, got, want)
			}
		}
	}
}
