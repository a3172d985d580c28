package lineage

// The graph as it was first written, with a map per relation, kept as the
// reference the indexed Graph is compared with (TestGraphMatchesReference,
// FuzzGraphMatchesReference): plain enough to trust by reading.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// refGraph: Graph is an immutable view of session lineage. Each link may be stored on
// either side (old.ReplacedBy or new.Supersedes): a teammate's clone may hold
// only one of the two records up to date, so a link is derived from whichever
// side has it, and disagreements are kept as problems for Validate rather than
// silently resolved.
type refGraph struct {
	nodes    map[string]Node
	ids      []string            // sorted, for deterministic iteration
	next     map[string]string   // chosen successor of each node (existing nodes only)
	prev     map[string]string   // chosen predecessor of each node (existing nodes only)
	problems []*LinkError        // found while building, sorted
	succs    map[string][]string // every successor claimed by either side
	preds    map[string][]string // every predecessor claimed by either side
}

// NewGraph builds a graph from nodes. It never fails: problems are recorded
// and reported by Validate, and the query methods stay total and terminate
// even on broken input. When an id repeats, the first node wins.
func newRefGraph(nodes []Node) *refGraph {
	g := &refGraph{
		nodes: make(map[string]Node, len(nodes)),
		next:  map[string]string{},
		prev:  map[string]string{},
		succs: map[string][]string{},
		preds: map[string][]string{},
	}
	for _, n := range nodes {
		if _, dup := g.nodes[n.ID]; dup {
			g.problem(ErrDuplicate, []string{n.ID}, "session %q appears more than once", n.ID)
			continue
		}
		g.nodes[n.ID] = n
		g.ids = append(g.ids, n.ID)
	}
	slices.Sort(g.ids)
	g.collectLinks()
	g.chooseLinks()
	g.findCycles()
	slices.SortFunc(g.problems, func(a, b *LinkError) int { return strings.Compare(a.Msg, b.Msg) })
	return g
}

func (g *refGraph) problem(kind error, ids []string, format string, args ...any) {
	g.problems = append(g.problems, &LinkError{Kind: kind, IDs: ids, Msg: fmt.Sprintf(format, args...)})
}

// collectLinks gathers every link claimed by either side and records the
// dangling and disagreeing ones.
func (g *refGraph) collectLinks() {
	add := func(m map[string][]string, k, v string) {
		if !slices.Contains(m[k], v) {
			m[k] = append(m[k], v)
		}
	}
	for _, id := range g.ids {
		n := g.nodes[id]
		if s := n.ReplacedBy; s != "" {
			add(g.succs, id, s)
			add(g.preds, s, id)
			if other, ok := g.nodes[s]; !ok {
				g.problem(ErrDangling, []string{id, s}, "session %q is replaced by %q, which does not exist", id, s)
			} else if other.Supersedes != "" && other.Supersedes != id {
				g.problem(ErrMismatch, []string{id, s, other.Supersedes},
					"session %q says it is replaced by %q, but %q says it supersedes %q", id, s, s, other.Supersedes)
			}
		}
		if p := n.Supersedes; p != "" {
			add(g.succs, p, id)
			add(g.preds, id, p)
			if other, ok := g.nodes[p]; !ok {
				g.problem(ErrDangling, []string{id, p}, "session %q supersedes %q, which does not exist", id, p)
			} else if other.ReplacedBy != "" && other.ReplacedBy != id {
				g.problem(ErrMismatch, []string{id, p, other.ReplacedBy},
					"session %q says it supersedes %q, but %q says it is replaced by %q", id, p, p, other.ReplacedBy)
			}
		}
	}
	for _, id := range refSortedKeys(g.succs) {
		if s := g.succs[id]; len(s) > 1 {
			slices.Sort(s)
			g.problem(ErrFork, append([]string{id}, s...), "session %q has %d successors: %s", id, len(s), refQuoteAll(s))
		}
	}
	for _, id := range refSortedKeys(g.preds) {
		if p := g.preds[id]; len(p) > 1 {
			slices.Sort(p)
			g.problem(ErrFork, append([]string{id}, p...), "session %q has %d predecessors: %s", id, len(p), refQuoteAll(p))
		}
	}
}

// chooseLinks picks one successor and one predecessor per node so queries
// give a stable answer even when the graph is invalid: the node's own field
// wins, otherwise the smallest id among the other side's claims. Links to
// missing nodes are never chosen.
func (g *refGraph) chooseLinks() {
	for _, id := range g.ids {
		n := g.nodes[id]
		if _, ok := g.nodes[n.ReplacedBy]; ok {
			g.next[id] = n.ReplacedBy
		} else if s := g.existing(g.succs[id]); s != "" {
			g.next[id] = s
		}
		if _, ok := g.nodes[n.Supersedes]; ok {
			g.prev[id] = n.Supersedes
		} else if p := g.existing(g.preds[id]); p != "" {
			g.prev[id] = p
		}
	}
}

// existing returns the smallest id in ids that names a node, or "".
func (g *refGraph) existing(ids []string) string {
	best := ""
	for _, id := range ids {
		if _, ok := g.nodes[id]; ok && (best == "" || id < best) {
			best = id
		}
	}
	return best
}

// findCycles reports each cycle once, named from its smallest id, by walking
// every successor claim (not only the chosen ones) between existing nodes.
func (g *refGraph) findCycles() {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	seen := map[string]bool{}
	var path []string
	var visit func(id string)
	visit = func(id string) {
		state[id] = onPath
		path = append(path, id)
		succ := slices.Clone(g.succs[id])
		slices.Sort(succ)
		for _, s := range succ {
			if _, ok := g.nodes[s]; !ok {
				continue
			}
			switch state[s] {
			case unseen:
				visit(s)
			case onPath:
				cycle := slices.Clone(path[slices.Index(path, s):])
				g.reportCycle(cycle, seen)
			}
		}
		path = path[:len(path)-1]
		state[id] = done
	}
	for _, id := range g.ids {
		if state[id] == unseen {
			visit(id)
		}
	}
}

func (g *refGraph) reportCycle(cycle []string, seen map[string]bool) {
	// Rotate so the smallest id leads: the same cycle found from any start
	// reads the same way and is reported once.
	low := 0
	for i, id := range cycle {
		if id < cycle[low] {
			low = i
		}
	}
	cycle = append(cycle[low:], cycle[:low]...)
	key := strings.Join(cycle, "\x00")
	if seen[key] {
		return
	}
	seen[key] = true
	if len(cycle) == 1 {
		g.problem(ErrCycle, cycle, "session %q replaces itself", cycle[0])
		return
	}
	g.problem(ErrCycle, cycle, "sessions form a cycle: %s → %q", strings.Join(refQuoteEach(cycle), " → "), cycle[0])
}

// Node returns the node with id.
func (g *refGraph) Node(id string) (Node, bool) {
	n, ok := g.nodes[id]
	return n, ok
}

// IDs returns every node id, sorted.
func (g *refGraph) IDs() []string { return slices.Clone(g.ids) }

// Successor returns the session that replaced id, if it is in the graph.
func (g *refGraph) Successor(id string) (string, bool) {
	s, ok := g.next[id]
	return s, ok
}

// Predecessor returns the session id replaced, if it is in the graph.
func (g *refGraph) Predecessor(id string) (string, bool) {
	p, ok := g.prev[id]
	return p, ok
}

// Chain returns the whole line id belongs to, oldest first: its predecessors,
// id itself, then its successors. It stops at a repeated node, so a cycle
// yields each of its members once. An unknown id yields nil.
func (g *refGraph) Chain(id string) []string {
	if _, ok := g.nodes[id]; !ok {
		return nil
	}
	seen := map[string]bool{id: true}
	var back []string
	for p, ok := g.prev[id]; ok && !seen[p]; p, ok = g.prev[p] {
		seen[p] = true
		back = append(back, p)
	}
	slices.Reverse(back)
	chain := append(back, id)
	for s, ok := g.next[id]; ok && !seen[s]; s, ok = g.next[s] {
		seen[s] = true
		chain = append(chain, s)
	}
	return chain
}

// Live follows successors from id to the newest session of its line: the one
// that should receive CI and review work now. It returns id itself when id has
// no successor in the graph (including when id is unknown), and stops before
// going round a cycle.
func (g *refGraph) Live(id string) string {
	seen := map[string]bool{id: true}
	for {
		s, ok := g.next[id]
		if !ok || seen[s] {
			return id
		}
		seen[s] = true
		id = s
	}
}

// Roots returns the first session of every line, oldest first (by At, then
// id). Sessions that only sit on a cycle have no root; Validate reports them.
func (g *refGraph) Roots() []string {
	var roots []string
	for _, id := range g.ids {
		if _, ok := g.prev[id]; !ok {
			roots = append(roots, id)
		}
	}
	slices.SortStableFunc(roots, func(a, b string) int {
		return g.nodes[a].At.Compare(g.nodes[b].At)
	})
	return roots
}

// Problems returns every problem found, in a stable order.
func (g *refGraph) Problems() []*LinkError { return slices.Clone(g.problems) }

// Validate reports cycles, forks, duplicate ids, links whose two sides
// disagree and links naming a missing session, all at once, each naming the
// sessions involved. It returns nil for a sound graph.
func (g *refGraph) Validate() error {
	errs := make([]error, len(g.problems))
	for i, p := range g.problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// CheckReplace reports whether recording oldID → newID would be sound: both
// ids differ, oldID exists and is neither replaced (the error names its
// successor) nor merged, and newID is not already part of another line in a
// way that would create a fork or a cycle. newID may be absent from the graph,
// which is the usual case for a session about to be created.
func (g *refGraph) CheckReplace(oldID, newID string) error {
	refuse := func(ids []string, format string, args ...any) error {
		return &LinkError{Kind: ErrRefused, IDs: ids, Msg: fmt.Sprintf(format, args...)}
	}
	if oldID == "" || newID == "" {
		return refuse([]string{oldID, newID}, "replacing %q with %q: both session ids are required", oldID, newID)
	}
	if oldID == newID {
		return refuse([]string{oldID}, "session %q cannot replace itself", oldID)
	}
	old, ok := g.nodes[oldID]
	if !ok {
		return refuse([]string{oldID}, "session %q does not exist", oldID)
	}
	if s, ok := g.Successor(oldID); ok {
		return refuse([]string{oldID, s}, "session %q was already replaced by %q; replace %q instead", oldID, s, g.Live(oldID))
	}
	if old.ReplacedBy != "" || old.Status == "replaced" {
		by := old.ReplacedBy
		if by == "" {
			by = "an unrecorded session"
		} else {
			by = fmt.Sprintf("%q", by)
		}
		return refuse([]string{oldID}, "session %q was already replaced by %s", oldID, by)
	}
	if old.Status == "merged" {
		return refuse([]string{oldID}, "session %q is merged; start a new session instead of replacing it", oldID)
	}
	if p, ok := g.Predecessor(newID); ok {
		return refuse([]string{newID, p}, "session %q already supersedes %q", newID, p)
	}
	if n, ok := g.nodes[newID]; ok && n.Supersedes != "" {
		return refuse([]string{newID, n.Supersedes}, "session %q already supersedes %q", newID, n.Supersedes)
	}
	// A cycle would need newID to be an ancestor of oldID.
	for _, id := range g.Chain(oldID) {
		if id == oldID {
			break
		}
		if id == newID {
			return refuse([]string{oldID, newID}, "session %q comes before %q in its line; the replacement would make a cycle", newID, oldID)
		}
	}
	return nil
}

func refSortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func refQuoteEach(ids []string) []string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return q
}

func refQuoteAll(ids []string) string { return strings.Join(refQuoteEach(ids), ", ") }
