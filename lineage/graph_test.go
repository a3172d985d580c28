package lineage

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// link builds a node with both sides of its links; half-links are spelled out
// with Node literals in the tests that need them.
func link(id, supersedes, replacedBy string) Node {
	return Node{ID: id, Supersedes: supersedes, ReplacedBy: replacedBy}
}

func TestGraphQueries(t *testing.T) {
	type want struct {
		succ, pred string // "" means none
		chain      []string
		live       string
	}
	tests := []struct {
		name  string
		nodes []Node
		roots []string
		ask   map[string]want
	}{
		{
			name:  "empty",
			roots: nil,
			ask:   map[string]want{"x": {chain: nil, live: "x"}},
		},
		{
			name:  "single",
			nodes: []Node{{ID: "a"}},
			roots: []string{"a"},
			ask:   map[string]want{"a": {chain: []string{"a"}, live: "a"}},
		},
		{
			name:  "chain of three, both sides stored",
			nodes: []Node{link("a", "", "b"), link("b", "a", "c"), link("c", "b", "")},
			roots: []string{"a"},
			ask: map[string]want{
				"a": {succ: "b", chain: []string{"a", "b", "c"}, live: "c"},
				"b": {succ: "c", pred: "a", chain: []string{"a", "b", "c"}, live: "c"},
				"c": {pred: "b", chain: []string{"a", "b", "c"}, live: "c"},
			},
		},
		{
			name:  "only replacedBy stored",
			nodes: []Node{{ID: "a", ReplacedBy: "b"}, {ID: "b", ReplacedBy: "c"}, {ID: "c"}},
			roots: []string{"a"},
			ask: map[string]want{
				"c": {pred: "b", chain: []string{"a", "b", "c"}, live: "c"},
				"a": {succ: "b", chain: []string{"a", "b", "c"}, live: "c"},
			},
		},
		{
			name:  "only supersedes stored",
			nodes: []Node{{ID: "a"}, {ID: "b", Supersedes: "a"}, {ID: "c", Supersedes: "b"}},
			roots: []string{"a"},
			ask: map[string]want{
				"a": {succ: "b", chain: []string{"a", "b", "c"}, live: "c"},
				"b": {succ: "c", pred: "a", chain: []string{"a", "b", "c"}, live: "c"},
			},
		},
		{
			name: "live through several replacements",
			nodes: []Node{
				link("app-3", "", "app-7"), link("app-7", "app-3", "app-9"),
				link("app-9", "app-7", "app-12"), link("app-12", "app-9", "app-20"),
				link("app-20", "app-12", ""),
			},
			roots: []string{"app-3"},
			ask: map[string]want{
				"app-3":  {succ: "app-7", chain: []string{"app-3", "app-7", "app-9", "app-12", "app-20"}, live: "app-20"},
				"app-12": {succ: "app-20", pred: "app-9", chain: []string{"app-3", "app-7", "app-9", "app-12", "app-20"}, live: "app-20"},
			},
		},
		{
			name:  "two separate lines",
			nodes: []Node{link("b1", "", "b2"), link("b2", "b1", ""), link("a1", "", "a2"), link("a2", "a1", "")},
			roots: []string{"a1", "b1"},
			ask: map[string]want{
				"b2": {pred: "b1", chain: []string{"b1", "b2"}, live: "b2"},
				"a1": {succ: "a2", chain: []string{"a1", "a2"}, live: "a2"},
			},
		},
		{
			name:  "self cycle",
			nodes: []Node{link("a", "a", "a")},
			roots: nil,
			ask:   map[string]want{"a": {succ: "a", pred: "a", chain: []string{"a"}, live: "a"}},
		},
		{
			name:  "two-cycle",
			nodes: []Node{link("a", "b", "b"), link("b", "a", "a")},
			roots: nil,
			ask: map[string]want{
				"a": {succ: "b", pred: "b", chain: []string{"b", "a"}, live: "b"},
				"b": {succ: "a", pred: "a", chain: []string{"a", "b"}, live: "a"},
			},
		},
		{
			name:  "three-cycle",
			nodes: []Node{link("a", "c", "b"), link("b", "a", "c"), link("c", "b", "a")},
			roots: nil,
			ask: map[string]want{
				"b": {succ: "c", pred: "a", chain: []string{"c", "a", "b"}, live: "a"},
			},
		},
		{
			name:  "dangling replacedBy is not followed",
			nodes: []Node{{ID: "a", ReplacedBy: "ghost"}},
			roots: []string{"a"},
			ask:   map[string]want{"a": {chain: []string{"a"}, live: "a"}, "ghost": {live: "ghost"}},
		},
		{
			name:  "dangling supersedes is not followed",
			nodes: []Node{{ID: "b", Supersedes: "ghost"}},
			roots: []string{"b"},
			ask:   map[string]want{"b": {chain: []string{"b"}, live: "b"}},
		},
		{
			name: "fork: the node's own field wins over the other side's claim",
			// a says b replaced it; c also claims to supersede a.
			nodes: []Node{{ID: "a", ReplacedBy: "b"}, {ID: "b", Supersedes: "a"}, {ID: "c", Supersedes: "a"}},
			roots: []string{"a"},
			ask: map[string]want{
				"a": {succ: "b", chain: []string{"a", "b"}, live: "b"},
				"c": {pred: "a", chain: []string{"a", "c"}, live: "c"},
			},
		},
		{
			name:  "fork with neither side on the old node: smallest id wins",
			nodes: []Node{{ID: "a"}, {ID: "c", Supersedes: "a"}, {ID: "b", Supersedes: "a"}},
			roots: []string{"a"},
			ask:   map[string]want{"a": {succ: "b", chain: []string{"a", "b"}, live: "b"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGraph(tt.nodes)
			if got := g.Roots(); !slices.Equal(got, tt.roots) {
				t.Errorf("Roots() = %q, want %q", got, tt.roots)
			}
			for id, w := range tt.ask {
				s, ok := g.Successor(id)
				if s != w.succ || ok != (w.succ != "") {
					t.Errorf("Successor(%q) = %q, %v; want %q", id, s, ok, w.succ)
				}
				p, ok := g.Predecessor(id)
				if p != w.pred || ok != (w.pred != "") {
					t.Errorf("Predecessor(%q) = %q, %v; want %q", id, p, ok, w.pred)
				}
				if got := g.Chain(id); !slices.Equal(got, w.chain) {
					t.Errorf("Chain(%q) = %q, want %q", id, got, w.chain)
				}
				if got := g.Live(id); got != w.live {
					t.Errorf("Live(%q) = %q, want %q", id, got, w.live)
				}
			}
		})
	}
}

func TestRootsOrderedByStartThenID(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	g := NewGraph([]Node{
		{ID: "z", At: t0},
		{ID: "late", At: t0.Add(time.Hour)},
		{ID: "a", At: t0},
		{ID: "early", At: t0.Add(-time.Hour)},
		{ID: "child", Supersedes: "early", At: t0.Add(-time.Minute)},
	})
	want := []string{"early", "a", "z", "late"}
	for range 20 { // map order must never leak into the answer
		if got := g.Roots(); !slices.Equal(got, want) {
			t.Fatalf("Roots() = %q, want %q", got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		nodes []Node
		want  []string // each problem's message, in order; nil means valid
		kinds []error
	}{
		{name: "empty"},
		{name: "single", nodes: []Node{{ID: "a"}}},
		{name: "sound chain", nodes: []Node{link("a", "", "b"), link("b", "a", "c"), link("c", "b", "")}},
		{name: "one side only is fine", nodes: []Node{{ID: "a", ReplacedBy: "b"}, {ID: "b"}, {ID: "c", Supersedes: "b"}}},
		{
			name:  "self cycle",
			nodes: []Node{{ID: "a", ReplacedBy: "a"}},
			want:  []string{`session "a" replaces itself`},
			kinds: []error{ErrCycle},
		},
		{
			name:  "two-cycle",
			nodes: []Node{link("b", "a", "a"), link("a", "b", "b")},
			want:  []string{`sessions form a cycle: "a" → "b" → "a"`},
			kinds: []error{ErrCycle},
		},
		{
			name:  "three-cycle stored on one side only",
			nodes: []Node{{ID: "c", ReplacedBy: "a"}, {ID: "a", ReplacedBy: "b"}, {ID: "b", ReplacedBy: "c"}},
			want:  []string{`sessions form a cycle: "a" → "b" → "c" → "a"`},
			kinds: []error{ErrCycle},
		},
		{
			name:  "cycle hanging off a root",
			nodes: []Node{{ID: "r", ReplacedBy: "x"}, {ID: "x", ReplacedBy: "y"}, {ID: "y", ReplacedBy: "x"}},
			want: []string{
				`session "x" has 2 predecessors: "r", "y"`,
				`sessions form a cycle: "x" → "y" → "x"`,
			},
			kinds: []error{ErrFork, ErrCycle},
		},
		{
			name:  "two successors",
			nodes: []Node{{ID: "a"}, {ID: "b", Supersedes: "a"}, {ID: "c", Supersedes: "a"}},
			want:  []string{`session "a" has 2 successors: "b", "c"`},
			kinds: []error{ErrFork},
		},
		{
			name:  "two predecessors",
			nodes: []Node{{ID: "a", ReplacedBy: "c"}, {ID: "b", ReplacedBy: "c"}, {ID: "c"}},
			want:  []string{`session "c" has 2 predecessors: "a", "b"`},
			kinds: []error{ErrFork},
		},
		{
			name:  "sides disagree",
			nodes: []Node{{ID: "a", ReplacedBy: "b"}, {ID: "b", Supersedes: "x"}, {ID: "x"}},
			want: []string{
				`session "a" says it is replaced by "b", but "b" says it supersedes "x"`,
				`session "b" has 2 predecessors: "a", "x"`,
			},
			kinds: []error{ErrMismatch, ErrFork},
		},
		{
			name:  "dangling both ways",
			nodes: []Node{{ID: "a", ReplacedBy: "gone"}, {ID: "b", Supersedes: "lost"}},
			want: []string{
				`session "a" is replaced by "gone", which does not exist`,
				`session "b" supersedes "lost", which does not exist`,
			},
			kinds: []error{ErrDangling, ErrDangling},
		},
		{
			name:  "duplicate id",
			nodes: []Node{{ID: "a"}, {ID: "a", ReplacedBy: "b"}},
			want:  []string{`session "a" appears more than once`},
			kinds: []error{ErrDuplicate},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGraph(tt.nodes)
			err := g.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			probs := g.Problems()
			var got []string
			for _, p := range probs {
				got = append(got, p.Msg)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("problems:\n got %q\nwant %q", got, tt.want)
			}
			for i, kind := range tt.kinds {
				if !errors.Is(probs[i], kind) {
					t.Errorf("problem %d (%q) is not %v", i, probs[i].Msg, kind)
				}
				if !errors.Is(err, kind) {
					t.Errorf("Validate() error does not wrap %v", kind)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, missing %q", err, w)
				}
			}
		})
	}
}

func TestValidateIsDeterministic(t *testing.T) {
	nodes := []Node{
		{ID: "a", ReplacedBy: "a"}, {ID: "b", ReplacedBy: "gone"}, {ID: "c", Supersedes: "b"},
		{ID: "d", Supersedes: "b"}, {ID: "e", ReplacedBy: "f"}, {ID: "f", ReplacedBy: "e"},
	}
	first := NewGraph(nodes).Validate().Error()
	for range 20 {
		slices.Reverse(nodes)
		if got := NewGraph(nodes).Validate().Error(); got != first {
			t.Fatalf("Validate() changed with input order:\n%s\n---\n%s", first, got)
		}
	}
}

func TestCheckReplace(t *testing.T) {
	g := NewGraph([]Node{
		link("a", "", "b"), link("b", "a", "c"), link("c", "b", ""),
		{ID: "m", Status: "merged"},
		{ID: "r", Status: "replaced"},
		{ID: "free", Status: "active"},
		{ID: "taken", Supersedes: "x"}, {ID: "x", ReplacedBy: "taken"},
		{ID: "ended", Status: "ended"},
	})
	tests := []struct {
		old, new string
		want     string // substring of the error; "" means allowed
	}{
		{"c", "d", ""},
		{"free", "new-1", ""},
		{"ended", "new-2", ""},
		{"c", "free", ""}, // an existing, unlinked session may become the successor
		{"a", "d", `session "a" was already replaced by "b"; replace "c" instead`},
		{"b", "d", `already replaced by "c"`},
		{"r", "d", `session "r" was already replaced by an unrecorded session`},
		{"m", "d", `session "m" is merged`},
		{"c", "c", `session "c" cannot replace itself`},
		{"nope", "d", `session "nope" does not exist`},
		{"", "d", `both session ids are required`},
		{"c", "", `both session ids are required`},
		{"c", "a", `session "a" comes before "c" in its line; the replacement would make a cycle`},
		{"c", "b", `session "b" already supersedes "a"`},
		{"free", "taken", `session "taken" already supersedes "x"`},
	}
	for _, tt := range tests {
		err := g.CheckReplace(tt.old, tt.new)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckReplace(%q, %q) = %v, want nil", tt.old, tt.new, err)
		case tt.want != "" && err == nil:
			t.Errorf("CheckReplace(%q, %q) = nil, want %q", tt.old, tt.new, tt.want)
		case tt.want != "" && !strings.Contains(err.Error(), tt.want):
			t.Errorf("CheckReplace(%q, %q) = %q, want it to contain %q", tt.old, tt.new, err, tt.want)
		case tt.want != "" && !errors.Is(err, ErrRefused):
			t.Errorf("CheckReplace(%q, %q) error is not ErrRefused", tt.old, tt.new)
		}
	}
}

func TestCheckReplaceThenValidate(t *testing.T) {
	// Whatever CheckReplace allows must leave a graph that validates.
	base := []Node{link("a", "", "b"), link("b", "a", ""), {ID: "lone"}}
	for _, old := range []string{"a", "b", "lone", "missing"} {
		for _, nw := range []string{"a", "b", "lone", "fresh"} {
			g := NewGraph(base)
			if g.CheckReplace(old, nw) != nil {
				continue
			}
			var nodes []Node
			found := false
			for _, n := range base {
				if n.ID == old {
					n.ReplacedBy = nw
				}
				if n.ID == nw {
					n.Supersedes = old
					found = true
				}
				nodes = append(nodes, n)
			}
			if !found {
				nodes = append(nodes, Node{ID: nw, Supersedes: old})
			}
			if err := NewGraph(nodes).Validate(); err != nil {
				t.Errorf("CheckReplace(%q, %q) allowed it, but the result is invalid: %v", old, nw, err)
			}
		}
	}
}
