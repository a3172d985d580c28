package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
)

// Warning is a session record that could not be read (refstore.Skipped).
type Warning = refstore.Skipped

// List reads every session record through one git process, in ref
// order. Unreadable records come back as warnings.
func List(ctx context.Context, st refstore.Records) ([]Stored, []Warning, error) {
	out, warns, err := refstore.ListDecoded(ctx, st, refstore.SessionPrefix, Decode)
	if err != nil {
		return nil, nil, fmt.Errorf("listing sessions: %w", err)
	}
	return out, warns, nil
}

// Each decodes every session record in ref order (through one git
// process in the git store), handing each to fn without keeping it (List
// keeps them all); unreadable records come back as warnings.
//
// fn is handed the same variable each time: it keeps what it needs.
func Each(ctx context.Context, st refstore.Records, fn func(*Stored), warns *[]Warning) error {
	return each(ctx, st, fn, warns)
}

// each streams the session records to fn, decoded into one variable.
func each(ctx context.Context, st refstore.Records, fn func(*Stored), warns *[]Warning) error {
	var cur Stored
	err := st.EachStreamed(ctx, refstore.SessionPrefix, func(e refstore.Entry) error {
		if err := decodeInto(e, &cur); err != nil {
			*warns = append(*warns, Warning{Ref: e.Ref, Err: err})
			return nil
		}
		fn(&cur)
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing sessions: %w", err)
	}
	return nil
}

// Nodes turns session records into lineage nodes. The graph reads the
// reason for a replacement on the replaced (older) node, while the record
// keeps it on the successor (handoffReason), so it is moved across here.
func Nodes(sessions []Record) []lineage.Node {
	var ns NodeSet
	for i := range sessions {
		ns.Add(&sessions[i])
	}
	return ns.Nodes()
}

// NodeSet gathers lineage nodes one record at a time, for a listing that
// keeps no records (Nodes is it over a slice).
//
// A listing adds a hundred thousand: the nodes are kept in chunks that
// double up to a fixed size (a slice grown by append had been allocated
// five times over by the end), and the strings they hold are copied into
// shared blocks of text, growing alike (one allocation per block, which
// the collector need not scan, instead of four per node).
type NodeSet struct {
	// LinksOnly leaves out of the nodes what a listing's lineage does
	// not read (lineage.Summary, Graph.Problems): their status, harness,
	// branch and start. Each was a lookup or a copy per record.
	LinksOnly bool

	chunks [][]lineage.Node
	n      int
	text   []byte // the block the next strings are copied into
	// reasons: each successor's reason for the node it supersedes, in
	// the order added (the last for a node is its reason). Matched to
	// the nodes once they are all in; a map filled as they came was a
	// few percent of a listing.
	reasons []reasonOf
	words   map[string]string // statuses, harnesses and reasons, kept once each
}

type reasonOf struct{ id, reason string }

const (
	nodeChunk = 4096
	textBlock = 64 << 10
)

// Add adds s's node and returns its id. It keeps none of s's memory (s
// may be reused for the next record): what the node holds is copied, the few
// words that repeat (status, harness, reason) once each.
func (ns *NodeSet) Add(s *Record) string {
	n := lineage.Node{ID: ns.copy(s.ID), Supersedes: ns.copy(s.Supersedes), ReplacedBy: ns.copy(s.ReplacedBy)}
	if !ns.LinksOnly {
		n.Status, n.Harness, n.Branch, n.At = ns.word(s.Status), ns.word(s.Harness), ns.copy(s.Branch), s.CreatedAt
	}
	if n.Supersedes != "" && s.HandoffReason != "" {
		ns.reasons = append(ns.reasons, reasonOf{n.Supersedes, ns.word(s.HandoffReason)})
	}
	last := len(ns.chunks) - 1
	if last < 0 || len(ns.chunks[last]) == cap(ns.chunks[last]) {
		// Small first, for the few nodes of one line.
		size := 8
		if last >= 0 {
			size = min(2*cap(ns.chunks[last]), nodeChunk)
		}
		ns.chunks = append(ns.chunks, make([]lineage.Node, 0, size))
		last++
	}
	ns.chunks[last] = append(ns.chunks[last], n)
	ns.n++
	return n.ID
}

// copy returns a copy of w that shares the current text block. A block
// is only ever appended to, so the bytes a string was given never change.
func (ns *NodeSet) copy(w string) string {
	if w == "" {
		return ""
	}
	if len(w) > textBlock/4 {
		return strings.Clone(w)
	}
	if cap(ns.text)-len(ns.text) < len(w) {
		ns.text = make([]byte, 0, max(len(w), min(2*cap(ns.text), textBlock), 256))
	}
	off := len(ns.text)
	ns.text = append(ns.text, w...)
	return unsafe.String(&ns.text[off], len(w))
}

// maxWords bounds the words NodeSet keeps once each: past it (records of
// a hundred thousand harness names) each is copied.
const maxWords = 256

func (ns *NodeSet) word(w string) string {
	if w == "" {
		return ""
	}
	if k, ok := ns.words[w]; ok {
		return k
	}
	k := ns.copy(w)
	if len(ns.words) < maxWords {
		if ns.words == nil {
			ns.words = map[string]string{}
		}
		ns.words[k] = k
	}
	return k
}

// Nodes returns the nodes added, each with the reason its successor gave,
// in one slice of their own (lineage.FromNodes may keep it).
func (ns *NodeSet) Nodes() []lineage.Node {
	out := make([]lineage.Node, 0, ns.n)
	for _, c := range ns.chunks {
		out = append(out, c...)
	}
	if len(ns.reasons) == 0 {
		return out
	}
	if !slices.IsSortedFunc(out, func(a, b lineage.Node) int { return strings.Compare(a.ID, b.ID) }) {
		reason := make(map[string]string, len(ns.reasons))
		for _, r := range ns.reasons {
			reason[r.id] = r.reason
		}
		for i := range out {
			out[i].Reason = reason[out[i].ID]
		}
		return out
	}
	// In ref order, as a listing adds them: each reason's nodes (one, or
	// more with that id) found by binary search, later reasons over
	// earlier ones.
	for _, r := range ns.reasons {
		i, _ := slices.BinarySearchFunc(out, r.id, func(n lineage.Node, id string) int { return strings.Compare(n.ID, id) })
		for ; i < len(out) && out[i].ID == r.id; i++ {
			out[i].Reason = r.reason
		}
	}
	return out
}

// maxChain bounds how far a chain is walked record by record.
const maxChain = 10000

// Line reads the sessions of id's line one record at a time, following
// supersedes back and replacedBy forward: enough for CheckReplace and for
// drawing one line, without listing every session. Archived sessions
// are in it as live ones are (Find). Links to records this
// clone lacks are kept as dangling links for the graph to report.
func Line(ctx context.Context, st refstore.Records, id string) ([]Record, error) {
	first, err := Find(ctx, st, id)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{id: true}
	line := []Record{first.Record}
	follow := func(next func(Record) string) error {
		cur := first.Record
		for range maxChain {
			nid := next(cur)
			if nid == "" || seen[nid] {
				return nil
			}
			seen[nid] = true
			s, err := Find(ctx, st, nid)
			if errors.Is(err, refstore.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			line = append(line, s.Record)
			cur = s.Record
		}
		return nil
	}
	if err := follow(func(s Record) string { return s.Supersedes }); err != nil {
		return nil, err
	}
	if err := follow(func(s Record) string { return s.ReplacedBy }); err != nil {
		return nil, err
	}
	slices.SortFunc(line, func(a, b Record) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return line, nil
}

// LineGraph is the graph of id's line alone.
func LineGraph(ctx context.Context, st refstore.Records, id string) (*lineage.Graph, error) {
	line, err := Line(ctx, st, id)
	if err != nil {
		return nil, err
	}
	return lineage.NewGraph(Nodes(line)), nil
}

// Records returns the records without their storage details.
func Records(stored []Stored) []Record {
	out := make([]Record, len(stored))
	for i := range stored {
		out[i] = stored[i].Record
	}
	return out
}

// EachArchived hands fn every archived session (of the months from
// month from on; "" for all) that has no live record
// here (a clone that has not synced since another retired it still has
// both: the live one is the one listed), marked Archived, newest month
// first: one git ls-tree per month, then one cat-file read per record
// through the store's long-lived cat-file. Unreadable records come back
// as warnings. fn is handed a fresh record each time.
func EachArchived(ctx context.Context, st archive.Store, from string, fn func(Stored), warns *[]Warning) error {
	found, err := archive.ListFrom(ctx, st, archive.SessionsDir, from)
	if err != nil {
		return fmt.Errorf("listing archived sessions: %w", err)
	}
	if len(found) == 0 {
		return nil
	}
	live, err := st.RefIDs(ctx, refstore.SessionPrefix)
	if err != nil {
		return fmt.Errorf("listing sessions: %w", err)
	}
	isLive := make(map[string]bool, len(live))
	for _, l := range live {
		isLive[l.Ref] = true
	}
	for _, f := range found {
		rev := archive.Ref(f.Month) + ":" + f.Path
		id, err := refstore.DecodeComponent(strings.TrimPrefix(f.Path, archive.SessionsDir+"/"))
		if err != nil {
			*warns = append(*warns, Warning{Ref: rev, Err: err})
			continue
		}
		if ref, _ := refstore.SessionRef(id); isLive[ref] {
			continue
		}
		e, err := st.ReadObject(ctx, f.OID)
		if err != nil {
			*warns = append(*warns, Warning{Ref: rev, Err: err})
			continue
		}
		e.Ref = rev
		s, err := decodeArchived(e, id, f.Month)
		if err != nil {
			*warns = append(*warns, Warning{Ref: rev, Err: err})
			continue
		}
		fn(s)
	}
	return nil
}
