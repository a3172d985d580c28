package lineage

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sameAsReference fails t unless g, the indexed graph, answers every
// query as ref, the map-based graph it replaced, answers it: for every id
// a node has or a link names, and for ids nobody has.
func sameAsReference(t *testing.T, nodes []Node) {
	t.Helper()
	in := slices.Clone(nodes)
	compareToReference(t, NewGraph(nodes), nodes)
	if !slices.Equal(nodes, in) {
		t.Fatalf("NewGraph changed its nodes: %#v, were %#v", nodes, in)
	}
	// FromNodes may keep and reorder its slice: a copy of its own.
	compareToReference(t, FromNodes(slices.Clone(nodes)), nodes)
}

func compareToReference(t *testing.T, g *Graph, nodes []Node) {
	t.Helper()
	ref := newRefGraph(nodes)
	where := func() string { return fmt.Sprintf("nodes %#v", nodes) }
	if got, want := g.IDs(), ref.IDs(); !slices.Equal(got, want) {
		t.Fatalf("IDs() = %q, reference %q; %s", got, want, where())
	}
	gp, rp := g.Problems(), ref.Problems()
	if len(gp) != len(rp) {
		t.Fatalf("Problems() = %q, reference %q; %s", msgs(gp), msgs(rp), where())
	}
	for i := range gp {
		if gp[i].Kind != rp[i].Kind || gp[i].Msg != rp[i].Msg || !slices.Equal(gp[i].IDs, rp[i].IDs) {
			t.Fatalf("problem %d = %#v, reference %#v; %s", i, gp[i], rp[i], where())
		}
	}
	if got, want := errText(g.Validate()), errText(ref.Validate()); got != want {
		t.Fatalf("Validate() = %q, reference %q; %s", got, want, where())
	}
	if got, want := g.Roots(), ref.Roots(); !slices.Equal(got, want) {
		t.Fatalf("Roots() = %q, reference %q; %s", got, want, where())
	}
	ask := []string{"", "nobody"}
	for _, n := range nodes {
		ask = append(ask, n.ID, n.Supersedes, n.ReplacedBy)
	}
	for _, id := range ask {
		gn, gok := g.Node(id)
		rn, rok := ref.Node(id)
		if gn != rn || gok != rok {
			t.Fatalf("Node(%q) = %v, %v; reference %v, %v; %s", id, gn, gok, rn, rok, where())
		}
		gs, gok := g.Successor(id)
		rs, rok := ref.Successor(id)
		if gs != rs || gok != rok {
			t.Fatalf("Successor(%q) = %q, %v; reference %q, %v; %s", id, gs, gok, rs, rok, where())
		}
		gs, gok = g.Predecessor(id)
		rs, rok = ref.Predecessor(id)
		if gs != rs || gok != rok {
			t.Fatalf("Predecessor(%q) = %q, %v; reference %q, %v; %s", id, gs, gok, rs, rok, where())
		}
		if got, want := g.Chain(id), ref.Chain(id); !slices.Equal(got, want) {
			t.Fatalf("Chain(%q) = %q, reference %q; %s", id, got, want, where())
		}
		if got, want := g.Live(id), ref.Live(id); got != want {
			t.Fatalf("Live(%q) = %q, reference %q; %s", id, got, want, where())
		}
		if got, want := Summary(g, id), refSummary(ref, id); got != want {
			t.Fatalf("Summary(%q) = %q, reference %q; %s", id, got, want, where())
		}
		for _, other := range ask[:min(len(ask), 8)] {
			if got, want := errText(g.CheckReplace(id, other)), errText(ref.CheckReplace(id, other)); got != want {
				t.Fatalf("CheckReplace(%q, %q) = %q, reference %q; %s", id, other, got, want, where())
			}
		}
	}
	// A Summarizer answers as Summary whatever order it is asked in:
	// sorted (a listing), as given, backwards, and each id twice.
	sorted := slices.Clone(ask)
	slices.Sort(sorted)
	backwards := slices.Clone(ask)
	slices.Reverse(backwards)
	twice := slices.Concat(sorted, sorted)
	for _, order := range [][]string{sorted, ask, backwards, twice} {
		z := g.Summarizer()
		for _, id := range order {
			if got, want := z.Summary(id), refSummary(ref, id); got != want {
				t.Fatalf("Summarizer.Summary(%q) = %q, reference %q; order %q; %s", id, got, want, order, where())
			}
		}
	}
}

// refSummary is Summary as it read the map-based graph.
func refSummary(g *refGraph, id string) string {
	s := printable(id)
	p, ok := g.Predecessor(id)
	if !ok {
		return s
	}
	s += " ← " + printable(p)
	if n, _ := g.Node(p); n.Reason != "" {
		s += " (" + printableText(n.Reason) + ")"
	}
	return s
}

func msgs(ps []*LinkError) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Msg)
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// The lineages a listing can meet, and some it cannot (an empty id, the
// same id twice: a record's id names its ref), spelled out.
func TestGraphMatchesReferenceOnTrickyLineages(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tests := map[string][]Node{
		"empty":                    nil,
		"self cycle":               {link("a", "a", "a")},
		"self cycle one side":      {{ID: "a", ReplacedBy: "a"}},
		"two-cycle":                {link("a", "b", "b"), link("b", "a", "a")},
		"three-cycle one side":     {{ID: "c", ReplacedBy: "a"}, {ID: "a", ReplacedBy: "b"}, {ID: "b", ReplacedBy: "c"}},
		"cycle hanging off a root": {{ID: "r", ReplacedBy: "x"}, {ID: "x", ReplacedBy: "y"}, {ID: "y", ReplacedBy: "x"}},
		"two cycles sharing a node": {
			{ID: "a", ReplacedBy: "b"}, {ID: "b", ReplacedBy: "a"}, {ID: "c", Supersedes: "b"}, {ID: "b", Supersedes: "c"},
			{ID: "c", ReplacedBy: "b"},
		},
		"replaced twice": {
			{ID: "a", ReplacedBy: "b", Status: "replaced"}, {ID: "b", Supersedes: "a", Reason: "stuck"},
			{ID: "c", Supersedes: "a", Reason: "crashed"},
		},
		"replaced twice, neither on the old node": {{ID: "a"}, {ID: "c", Supersedes: "a"}, {ID: "b", Supersedes: "a"}},
		"two predecessors":                        {{ID: "a", ReplacedBy: "c"}, {ID: "b", ReplacedBy: "c"}, {ID: "c"}},
		"replacedBy names a missing session":      {{ID: "a", ReplacedBy: "ghost"}},
		"supersedes names a missing session":      {{ID: "b", Supersedes: "ghost"}},
		"two claim the same missing session":      {{ID: "b", Supersedes: "ghost"}, {ID: "c", Supersedes: "ghost"}, {ID: "d", ReplacedBy: "ghost"}, {ID: "e", ReplacedBy: "ghost"}},
		"sides disagree":                          {{ID: "a", ReplacedBy: "b"}, {ID: "b", Supersedes: "x"}, {ID: "x"}},
		"duplicate id, first wins":                {{ID: "a"}, {ID: "a", ReplacedBy: "b"}, {ID: "b", Supersedes: "a"}, {ID: "a", Supersedes: "b"}},
		"duplicates out of order":                 {{ID: "b", ReplacedBy: "a"}, {ID: "a"}, {ID: "b"}, {ID: "a", Supersedes: "b"}, {ID: "0"}},
		"an empty id":                             {{ID: ""}, {ID: "a"}, {ID: "b", Supersedes: "a"}, {ID: "c", ReplacedBy: "b"}},
		"an empty id in a line":                   {{ID: "", ReplacedBy: "a"}, {ID: "a", Supersedes: ""}},
		"roots by start then id": {
			{ID: "z", At: t0}, {ID: "late", At: t0.Add(time.Hour)}, {ID: "a", At: t0},
			{ID: "early", At: t0.Add(-time.Hour)}, {ID: "child", Supersedes: "early", At: t0.Add(-time.Minute)},
		},
		"hostile ids": {{ID: "a b", ReplacedBy: "\u202ex"}, {ID: "\u202ex", Supersedes: "a b", Reason: "bad\nline"}, {ID: "a\x00b", ReplacedBy: "a"}, {ID: "a", ReplacedBy: "a\x00b"}},
	}
	for name, nodes := range tests {
		t.Run(name, func(t *testing.T) {
			sameAsReference(t, nodes)
			rev := slices.Clone(nodes)
			slices.Reverse(rev)
			sameAsReference(t, rev)
		})
	}
}

// Long lines: the walk for cycles is a loop now, not a recursion, and
// must find what the recursion found at any depth.
func TestGraphMatchesReferenceOnLongLines(t *testing.T) {
	const n = 5000
	id := func(i int) string { return "s-" + strconv.Itoa(i) }
	var line, cycle, listing []Node
	for i := range n {
		nd := Node{ID: id(i)}
		if i > 0 {
			nd.Supersedes = id(i - 1)
		}
		if i+1 < n {
			nd.ReplacedBy = id(i + 1)
		}
		line = append(line, nd)
		c := Node{ID: id(i), ReplacedBy: id((i + 1) % n)}
		cycle = append(cycle, c)
	}
	// As the benchmark's listing: a third in replacement pairs, in ref order.
	for i := range n {
		nd := Node{ID: "app-" + strconv.Itoa(i), Status: "active"}
		switch {
		case i%3 == 0 && i+1 < n:
			nd.ReplacedBy, nd.Status = "app-"+strconv.Itoa(i+1), "replaced"
		case i%3 == 1:
			nd.Supersedes = "app-" + strconv.Itoa(i-1)
		}
		listing = append(listing, nd)
	}
	slices.SortFunc(listing, func(a, b Node) int { return strings.Compare(a.ID, b.ID) })
	for name, nodes := range map[string][]Node{"line": line, "cycle": cycle, "listing": listing} {
		t.Run(name, func(t *testing.T) {
			g, ref := FromNodes(slices.Clone(nodes)), newRefGraph(nodes)
			if got, want := errText(g.Validate()), errText(ref.Validate()); got != want {
				t.Fatalf("Validate() = %.200q, reference %.200q", got, want)
			}
			if got, want := g.Roots(), ref.Roots(); !slices.Equal(got, want) {
				t.Fatalf("Roots() = %.200q, reference %.200q", got, want)
			}
			z := g.Summarizer()
			for _, nd := range nodes {
				want := refSummary(ref, nd.ID)
				if got := Summary(g, nd.ID); got != want {
					t.Fatalf("Summary(%q) = %q, reference %q", nd.ID, got, want)
				}
				if got := z.Summary(nd.ID); got != want {
					t.Fatalf("Summarizer.Summary(%q) = %q, reference %q", nd.ID, got, want)
				}
			}
			for _, i := range []int{0, 1, n / 2, n - 1} {
				if got, want := g.Live(nodes[i].ID), ref.Live(nodes[i].ID); got != want {
					t.Fatalf("Live(%q) = %q, reference %q", nodes[i].ID, got, want)
				}
				if got, want := g.Chain(nodes[i].ID), ref.Chain(nodes[i].ID); !slices.Equal(got, want) {
					t.Fatalf("Chain(%q) differs from the reference (%d ids, reference %d)", nodes[i].ID, len(got), len(want))
				}
			}
		})
	}
}

// randomNodes makes up to eight nodes whose ids and links come from a few
// names, so that cycles, forks, duplicates and dangling links are common.
func randomNodes(next func(n int) int) []Node {
	names := []string{"a", "b", "c", "d", "e", "f", "", "ghost"}
	statuses := []string{"active", "ended", "replaced", "merged", ""}
	reasons := []string{"", "stuck", "crashed", "free text (two words)"}
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	pick := func() string {
		// Links are empty half the time, as in real records.
		if next(2) == 0 {
			return ""
		}
		return names[next(len(names))]
	}
	nodes := make([]Node, next(9))
	for i := range nodes {
		id := names[next(len(names)-2)] // ids: never "ghost", seldom ""
		if next(16) == 0 {
			id = ""
		}
		nodes[i] = Node{
			ID: id, Supersedes: pick(), ReplacedBy: pick(),
			Status: statuses[next(len(statuses))], Reason: reasons[next(len(reasons))],
			Harness: "h" + strconv.Itoa(next(3)), At: t0.Add(time.Duration(next(3)) * time.Hour),
		}
	}
	return nodes
}

func TestGraphMatchesReferenceOnRandomLineages(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2026))
	for range 8000 {
		sameAsReference(t, randomNodes(r.IntN))
	}
}

func FuzzGraphMatchesReference(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{8, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7})
	f.Add(binary.LittleEndian.AppendUint64(nil, 0x0102030405060708))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fuzzer's bytes are the choices randomNodes makes.
		next := func(n int) int {
			if len(data) == 0 {
				return 0
			}
			c := int(data[0]) % n
			data = data[1:]
			return c
		}
		sameAsReference(t, randomNodes(next))
	})
}

// benchNodes are n nodes as the benchmark's listing holds them: a third
// in replacement pairs, in ref order.
func benchNodes(n int) []Node {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	nodes := make([]Node, 0, n)
	for i := range n {
		nd := Node{ID: "app-" + strconv.Itoa(i), Status: "active", Harness: "codex", Branch: "feature-" + strconv.Itoa(i), At: t0}
		switch {
		case i%3 == 0 && i+1 < n:
			nd.ReplacedBy, nd.Status = "app-"+strconv.Itoa(i+1), "replaced"
		case i%3 == 1:
			nd.Supersedes, nd.Reason = "app-"+strconv.Itoa(i-1), "stuck"
		}
		nodes = append(nodes, nd)
	}
	slices.SortFunc(nodes, func(a, b Node) int { return strings.Compare(a.ID, b.ID) })
	return nodes
}

func BenchmarkNewGraph(b *testing.B) {
	nodes := benchNodes(100000)
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			g := NewGraph(nodes)
			for i := range nodes {
				Summary(g, nodes[i].ID)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			g := newRefGraph(nodes)
			for i := range nodes {
				refSummary(g, nodes[i].ID)
			}
		}
	})
}
