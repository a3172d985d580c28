// Package lineage is the graph of which session replaced which: a pure
// value built from plain nodes, with queries (Successor, Chain, Roots) and
// renderings (tree, JSON, DOT, Mermaid). It does no I/O; session records
// live in package session.
package lineage

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Node is the part of a session record the lineage graph needs. It is a
// plain value so the graph never depends on how sessions are stored.
type Node struct {
	ID         string
	Supersedes string // the session this one replaced, if any
	ReplacedBy string // the session that replaced this one, if any
	Status     string // active, ended, terminated, replaced, merged
	Reason     string // why it was replaced: stuck, crashed, confused, manual or free text
	Harness    string // claude-code, codex, …
	Branch     string
	At         time.Time // when the session started; orders roots
}

// Sentinels that every *LinkError wraps, so callers can test the kind of
// problem with errors.Is.
var (
	ErrCycle     = errors.New("lineage cycle")
	ErrFork      = errors.New("lineage fork")
	ErrMismatch  = errors.New("lineage links disagree")
	ErrDangling  = errors.New("lineage link to a missing session")
	ErrDuplicate = errors.New("duplicate session id")
	ErrRefused   = errors.New("replacement refused")
)

// LinkError is one problem in the graph, naming the sessions involved.
type LinkError struct {
	Kind error    // one of the sentinels above
	IDs  []string // the sessions involved, in the order the message reads
	Msg  string
}

func (e *LinkError) Error() string { return e.Msg }
func (e *LinkError) Unwrap() error { return e.Kind }

// Graph is an immutable view of session lineage. Each link may be stored on
// either side (old.ReplacedBy or new.Supersedes): a teammate's clone may hold
// only one of the two records up to date, so a link is derived from whichever
// side has it, and disagreements are kept as problems for Validate rather than
// silently resolved.
//
// A listing builds one over a hundred thousand sessions, so the nodes are
// held by position (sorted by id) and every relation is a slice of
// positions: one map from id to position instead of one per relation.
type Graph struct {
	nodes    []Node           // sorted by id, the first of each id only
	index    map[string]int32 // position of each id in nodes
	next     []int32          // chosen successor of each node, none: -1
	prev     []int32          // chosen predecessor of each node, none: -1
	problems []*LinkError     // found while building, sorted
}

// NewGraph builds a graph from nodes. It never fails: problems are recorded
// and reported by Validate, and the query methods stay total and terminate
// even on broken input. When an id repeats, the first node wins.
func NewGraph(nodes []Node) *Graph {
	return newGraph(nodes, false)
}

// FromNodes is NewGraph for a caller that has no further use for nodes:
// the graph may keep the slice and reorder it, instead of copying a
// listing's hundred thousand nodes.
func FromNodes(nodes []Node) *Graph {
	return newGraph(nodes, true)
}

func newGraph(nodes []Node, own bool) *Graph {
	g := &Graph{}
	g.addNodes(nodes, own)
	var l links
	l.init(g)
	l.collect()
	l.choose()
	l.findCycles()
	slices.SortFunc(g.problems, func(a, b *LinkError) int { return strings.Compare(a.Msg, b.Msg) })
	return g
}

// addNodes keeps the first node of each id, sorted by id. Records listed
// in ref order usually arrive sorted already, and then are not sorted
// again; with own, those are kept in in's own memory.
func (g *Graph) addNodes(in []Node, own bool) {
	var order []int32
	for i := 1; i < len(in); i++ {
		if in[i].ID < in[i-1].ID {
			order = make([]int32, len(in))
			for j := range order {
				order[j] = int32(j)
			}
			// Ties in input order: the first of an id is kept.
			slices.SortFunc(order, func(a, b int32) int {
				if c := strings.Compare(in[a].ID, in[b].ID); c != 0 {
					return c
				}
				return cmp.Compare(a, b)
			})
			break
		}
	}
	if own && order == nil {
		// In place: a node is written at or before where it was read.
		g.nodes = in[:0]
	} else {
		g.nodes = make([]Node, 0, len(in))
	}
	for k := range in {
		n := &in[k]
		if order != nil {
			n = &in[order[k]]
		}
		if last := len(g.nodes) - 1; last >= 0 && g.nodes[last].ID == n.ID {
			g.problem(ErrDuplicate, []string{n.ID}, "session %q appears more than once", n.ID)
			continue
		}
		g.nodes = append(g.nodes, *n)
	}
	g.index = make(map[string]int32, len(g.nodes))
	for i := range g.nodes {
		g.index[g.nodes[i].ID] = int32(i)
	}
}

func (g *Graph) problem(kind error, ids []string, format string, args ...any) {
	g.problems = append(g.problems, &LinkError{Kind: kind, IDs: ids, Msg: fmt.Sprintf(format, args...)})
}

// links is the working state of NewGraph: every link claimed by either
// side, between names. A name is a node's position, or a number past the
// nodes for an id that links name but no node has (dangling).
type links struct {
	g       *Graph
	missing map[string]int32 // the names of ids no node has
	names   []string         // those ids, by name minus len(g.nodes)
	succ    claims           // successors claimed for each name
	pred    claims           // predecessors claimed for each name
}

// claims holds a set of names for each name: the first claimed, and any
// further ones (a fork, which is rare) in more.
type claims struct {
	first []int32 // none: -1
	more  map[int32][]int32
}

func (c *claims) add(k, v int32) {
	switch f := c.first[k]; {
	case f == -1:
		c.first[k] = v
	case f == v || slices.Contains(c.more[k], v):
	default:
		if c.more == nil {
			c.more = map[int32][]int32{}
		}
		c.more[k] = append(c.more[k], v)
	}
}

// all returns k's claims (a new slice).
func (c *claims) all(k int32) []int32 {
	if c.first[k] == -1 {
		return nil
	}
	return append([]int32{c.first[k]}, c.more[k]...)
}

func (l *links) init(g *Graph) {
	n := len(g.nodes)
	l.g = g
	l.succ.first = make([]int32, n)
	l.pred.first = make([]int32, n)
	g.next = make([]int32, n)
	g.prev = make([]int32, n)
	for i := range n {
		l.succ.first[i], l.pred.first[i], g.next[i], g.prev[i] = -1, -1, -1, -1
	}
}

// name returns id's name and whether a node has it.
func (l *links) name(id string) (int32, bool) {
	if i, ok := l.g.index[id]; ok {
		return i, true
	}
	if i, ok := l.missing[id]; ok {
		return i, false
	}
	if l.missing == nil {
		l.missing = map[string]int32{}
	}
	i := int32(len(l.g.nodes) + len(l.names))
	l.missing[id] = i
	l.names = append(l.names, id)
	l.succ.first = append(l.succ.first, -1)
	l.pred.first = append(l.pred.first, -1)
	return i, false
}

func (l *links) id(k int32) string {
	if n := int32(len(l.g.nodes)); k >= n {
		return l.names[k-n]
	}
	return l.g.nodes[k].ID
}

func (l *links) ids(ks []int32) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = l.id(k)
	}
	return out
}

// collect gathers every link claimed by either side and records the
// dangling and disagreeing ones and the forks. A node's own link to an
// existing node is its chosen one (choose fills in the rest).
func (l *links) collect() {
	g := l.g
	for i := range g.nodes {
		n := &g.nodes[i]
		id := int32(i)
		if s := n.ReplacedBy; s != "" {
			k, ok := l.name(s)
			l.succ.add(id, k)
			l.pred.add(k, id)
			if !ok {
				g.problem(ErrDangling, []string{n.ID, s}, "session %q is replaced by %q, which does not exist", n.ID, s)
			} else {
				g.next[i] = k
				if other := g.nodes[k].Supersedes; other != "" && other != n.ID {
					g.problem(ErrMismatch, []string{n.ID, s, other},
						"session %q says it is replaced by %q, but %q says it supersedes %q", n.ID, s, s, other)
				}
			}
		}
		if p := n.Supersedes; p != "" {
			k, ok := l.name(p)
			l.succ.add(k, id)
			l.pred.add(id, k)
			if !ok {
				g.problem(ErrDangling, []string{n.ID, p}, "session %q supersedes %q, which does not exist", n.ID, p)
			} else {
				g.prev[i] = k
				if other := g.nodes[k].ReplacedBy; other != "" && other != n.ID {
					g.problem(ErrMismatch, []string{n.ID, p, other},
						"session %q says it supersedes %q, but %q says it is replaced by %q", n.ID, p, p, other)
				}
			}
		}
	}
	l.forks(&l.succ, "successors")
	l.forks(&l.pred, "predecessors")
}

func (l *links) forks(c *claims, what string) {
	for k := range c.more {
		s := l.ids(c.all(k))
		slices.Sort(s)
		id := l.id(k)
		l.g.problem(ErrFork, append([]string{id}, s...), "session %q has %d %s: %s", id, len(s), what, quoteAll(s))
	}
}

// choose picks one successor and one predecessor per node so queries give
// a stable answer even when the graph is invalid: the node's own field
// wins (collect chose it), otherwise the smallest id among the other
// side's claims. Links to missing nodes are never chosen.
func (l *links) choose() {
	g := l.g
	// A node whose id is "" is the one an empty field names: the maps
	// this replaced found it so, and listings never hold one (a record's
	// id names its ref).
	empty, hasEmpty := g.index[""]
	for i := range g.nodes {
		n := &g.nodes[i]
		if g.next[i] == -1 {
			if n.ReplacedBy == "" && hasEmpty {
				g.next[i] = empty
			} else {
				g.next[i] = l.smallest(&l.succ, int32(i))
			}
		}
		if g.prev[i] == -1 {
			if n.Supersedes == "" && hasEmpty {
				g.prev[i] = empty
			} else {
				g.prev[i] = l.smallest(&l.pred, int32(i))
			}
		}
	}
}

// smallest returns the claim of k that names a node with the smallest id
// (positions are in id order), or -1. The node whose id is "" (position 0
// when there is one) is never chosen so, as the maps never chose it.
func (l *links) smallest(c *claims, k int32) int32 {
	n := int32(len(l.g.nodes))
	low := int32(0)
	if n > 0 && l.g.nodes[0].ID == "" {
		low = 1
	}
	best := int32(-1)
	if f := c.first[k]; f >= low && f < n {
		best = f
	}
	for _, v := range c.more[k] {
		if v >= low && v < n && (best == -1 || v < best) {
			best = v
		}
	}
	return best
}

// findCycles reports each cycle once, named from its smallest id, by a
// depth-first walk of every successor claim (not only the chosen ones)
// between existing nodes, from each node in id order and to successors in
// id order.
func (l *links) findCycles() {
	const (
		unseen = iota
		onPath
		done
	)
	g := l.g
	n := int32(len(g.nodes))
	state := make([]uint8, n)
	// succs are k's successors among the nodes, in id order.
	succs := func(k int32) []int32 {
		f := l.succ.first[k]
		if len(l.succ.more[k]) == 0 {
			if f == -1 || f >= n {
				return nil
			}
			return []int32{f}
		}
		var out []int32
		for _, v := range l.succ.all(k) {
			if v < n {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out
	}
	type frame struct {
		node  int32
		succs []int32
	}
	var (
		path  []int32
		stack []frame
		seen  map[string]bool
	)
	for root := range n {
		if state[root] != unseen {
			continue
		}
		state[root] = onPath
		path = append(path[:0], root)
		stack = append(stack[:0], frame{root, succs(root)})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.succs) == 0 {
				state[top.node] = done
				stack = stack[:len(stack)-1]
				path = path[:len(path)-1]
				continue
			}
			s := top.succs[0]
			top.succs = top.succs[1:]
			switch state[s] {
			case unseen:
				state[s] = onPath
				path = append(path, s)
				stack = append(stack, frame{s, succs(s)})
			case onPath:
				if seen == nil {
					seen = map[string]bool{}
				}
				l.reportCycle(slices.Clone(path[slices.Index(path, s):]), seen)
			}
		}
	}
}

func (l *links) reportCycle(cycle []int32, seen map[string]bool) {
	// Rotate so the smallest id leads: the same cycle found from any start
	// reads the same way and is reported once.
	low := 0
	for i, k := range cycle {
		if k < cycle[low] {
			low = i
		}
	}
	ids := l.ids(append(cycle[low:], cycle[:low]...))
	key := strings.Join(ids, "\x00")
	if seen[key] {
		return
	}
	seen[key] = true
	if len(ids) == 1 {
		l.g.problem(ErrCycle, ids, "session %q replaces itself", ids[0])
		return
	}
	l.g.problem(ErrCycle, ids, "sessions form a cycle: %s → %q", strings.Join(quoteEach(ids), " → "), ids[0])
}

// Node returns the node with id.
func (g *Graph) Node(id string) (Node, bool) {
	if i, ok := g.index[id]; ok {
		return g.nodes[i], true
	}
	return Node{}, false
}

// IDs returns every node id, sorted.
func (g *Graph) IDs() []string {
	ids := make([]string, len(g.nodes))
	for i := range g.nodes {
		ids[i] = g.nodes[i].ID
	}
	return ids
}

// Successor returns the session that replaced id, if it is in the graph.
func (g *Graph) Successor(id string) (string, bool) {
	return g.link(g.next, id)
}

// Predecessor returns the session id replaced, if it is in the graph.
func (g *Graph) Predecessor(id string) (string, bool) {
	return g.link(g.prev, id)
}

func (g *Graph) link(rel []int32, id string) (string, bool) {
	if i, ok := g.index[id]; ok && rel[i] != -1 {
		return g.nodes[rel[i]].ID, true
	}
	return "", false
}

// predecessor returns the node id replaced, if it is in the graph: one
// lookup for a listing's Summary of every session.
func (g *Graph) predecessor(id string) (Node, bool) {
	if i, ok := g.index[id]; ok && g.prev[i] != -1 {
		return g.nodes[g.prev[i]], true
	}
	return Node{}, false
}

// Chain returns the whole line id belongs to, oldest first: its predecessors,
// id itself, then its successors. It stops at a repeated node, so a cycle
// yields each of its members once. An unknown id yields nil.
func (g *Graph) Chain(id string) []string {
	i, ok := g.index[id]
	if !ok {
		return nil
	}
	seen := map[int32]bool{i: true}
	var back []string
	for p := g.prev[i]; p != -1 && !seen[p]; p = g.prev[p] {
		seen[p] = true
		back = append(back, g.nodes[p].ID)
	}
	slices.Reverse(back)
	chain := append(back, id)
	for s := g.next[i]; s != -1 && !seen[s]; s = g.next[s] {
		seen[s] = true
		chain = append(chain, g.nodes[s].ID)
	}
	return chain
}

// Live follows successors from id to the newest session of its line: the one
// that should receive CI and review work now. It returns id itself when id has
// no successor in the graph (including when id is unknown), and stops before
// going round a cycle.
func (g *Graph) Live(id string) string {
	i, ok := g.index[id]
	if !ok {
		return id
	}
	seen := map[int32]bool{i: true}
	for {
		s := g.next[i]
		if s == -1 || seen[s] {
			return g.nodes[i].ID
		}
		seen[s] = true
		i = s
	}
}

// Roots returns the first session of every line, oldest first (by At, then
// id). Sessions that only sit on a cycle have no root; Validate reports them.
func (g *Graph) Roots() []string {
	var roots []int32
	for i := range g.nodes {
		if g.prev[i] == -1 {
			roots = append(roots, int32(i))
		}
	}
	slices.SortStableFunc(roots, func(a, b int32) int {
		return g.nodes[a].At.Compare(g.nodes[b].At)
	})
	if roots == nil {
		return nil
	}
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = g.nodes[r].ID
	}
	return out
}

// Problems returns every problem found, in a stable order.
func (g *Graph) Problems() []*LinkError { return slices.Clone(g.problems) }

// Validate reports cycles, forks, duplicate ids, links whose two sides
// disagree and links naming a missing session, all at once, each naming the
// sessions involved. It returns nil for a sound graph.
func (g *Graph) Validate() error {
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
func (g *Graph) CheckReplace(oldID, newID string) error {
	refuse := func(ids []string, format string, args ...any) error {
		return &LinkError{Kind: ErrRefused, IDs: ids, Msg: fmt.Sprintf(format, args...)}
	}
	if oldID == "" || newID == "" {
		return refuse([]string{oldID, newID}, "replacing %q with %q: both session ids are required", oldID, newID)
	}
	if oldID == newID {
		return refuse([]string{oldID}, "session %q cannot replace itself", oldID)
	}
	old, ok := g.Node(oldID)
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
	if n, ok := g.Node(newID); ok && n.Supersedes != "" {
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

func quoteEach(ids []string) []string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return q
}

func quoteAll(ids []string) string { return strings.Join(quoteEach(ids), ", ") }
