package lineage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Formats lists the values Render accepts, in the order help text shows them.
var Formats = []string{"tree", "json", "dot", "mermaid"}

// ErrNotInGraph is returned when asked to draw a session the graph lacks.
var ErrNotInGraph = errors.New("session not in lineage graph")

// ChainView is the JSON shape of `session lineage --format json`. It is made
// for output and kept stable; it is not the stored session record.
type ChainView struct {
	ID    string      `json:"id"`    // the session asked about
	Chain []ChainStep `json:"chain"` // its whole line, oldest first
}

// ChainStep is one session in a ChainView. Every key is always present;
// a missing value is "".
type ChainStep struct {
	ID         string `json:"id"`
	Harness    string `json:"harness"`
	Status     string `json:"status"`
	Reason     string `json:"reason"`
	Supersedes string `json:"supersedes"`
	ReplacedBy string `json:"replacedBy"`
}

// Render draws the line of sessions id belongs to in one of Formats.
func Render(g *Graph, id, format string) (string, error) {
	var draw func(*Graph, string, []string) (string, error)
	switch format {
	case "tree":
		draw = renderTree
	case "json":
		draw = renderJSON
	case "dot":
		draw = renderDOT
	case "mermaid":
		draw = renderMermaid
	default:
		return "", fmt.Errorf("unknown lineage format %q: use one of %s", format, strings.Join(Formats, ", "))
	}
	chain := g.Chain(id)
	if chain == nil {
		return "", fmt.Errorf("drawing lineage of %q: %w", id, ErrNotInGraph)
	}
	return draw(g, id, chain)
}

// View returns the JSON view of id's line.
func View(g *Graph, id string) (ChainView, error) {
	chain := g.Chain(id)
	if chain == nil {
		return ChainView{}, fmt.Errorf("viewing lineage of %q: %w", id, ErrNotInGraph)
	}
	v := ChainView{ID: id, Chain: make([]ChainStep, 0, len(chain))}
	for _, c := range chain {
		n, _ := g.Node(c)
		step := ChainStep{ID: c, Harness: n.Harness, Status: n.Status, Reason: n.Reason,
			Supersedes: n.Supersedes, ReplacedBy: n.ReplacedBy}
		// Prefer the links the graph resolved, so a side missing from one
		// record is filled in from the other.
		if p, ok := g.Predecessor(c); ok {
			step.Supersedes = p
		}
		if s, ok := g.Successor(c); ok {
			step.ReplacedBy = s
		}
		v.Chain = append(v.Chain, step)
	}
	return v, nil
}

// Summary is the one-line form used in listings: "app-12 ← app-7 (stuck)",
// the session, the one it replaced and why. A session that replaced nothing
// is just its id; an unknown id is returned as is.
func Summary(g *Graph, id string) string {
	p, ok := g.predecessor(id)
	return summary(id, p, ok)
}

func summary(id string, p Node, ok bool) string {
	s := printable(id)
	if !ok {
		return s
	}
	s += " ← " + printable(p.ID)
	if p.Reason != "" {
		s += " (" + printableText(p.Reason) + ")"
	}
	return s
}

// A Summarizer gives Summary for the ids of a listing, which come in id
// order (ref order, that is) or nearly: it walks the graph's nodes, kept
// in id order, alongside them, instead of looking each up. An id it has
// walked past is looked up.
type Summarizer struct {
	g    *Graph
	next int // the node the walk is at
}

// Summarizer returns a Summarizer of g.
func (g *Graph) Summarizer() *Summarizer { return &Summarizer{g: g} }

// Summary is Summary(g, id).
func (z *Summarizer) Summary(id string) string {
	nodes := z.g.nodes
	for z.next < len(nodes) && nodes[z.next].ID < id {
		z.next++
	}
	if z.next == len(nodes) || nodes[z.next].ID != id {
		return Summary(z.g, id)
	}
	i := z.next
	z.next++
	if p := z.g.prev[i]; p != -1 {
		return summary(id, nodes[p], true)
	}
	return summary(id, Node{}, false)
}

func renderJSON(g *Graph, id string, _ []string) (string, error) {
	v, err := View(g, id)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // ids like "a<b" stay readable; this is not HTML
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding lineage of %q: %w", id, err)
	}
	return buf.String(), nil
}

// renderTree draws the line as an indented tree, one session per line:
//
//	app-3  claude-code  replaced (stuck)
//	└─ app-7  codex  active   ← you asked for this one
func renderTree(g *Graph, id string, chain []string) (string, error) {
	var b strings.Builder
	for i, c := range chain {
		if i > 0 {
			b.WriteString(strings.Repeat("   ", i-1))
			b.WriteString("└─ ")
		}
		b.WriteString(describe(g, c, "  "))
		if c == id {
			b.WriteString("   ← you asked for this one")
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// describe is "id<sep>harness<sep>status (reason)" with every part made
// printable, "-" standing in for an unknown harness or status.
func describe(g *Graph, id, sep string) string {
	n, _ := g.Node(id)
	harness, status := n.Harness, n.Status
	if harness == "" {
		harness = "-"
	}
	if status == "" {
		status = "-"
	}
	s := printable(id) + sep + printable(harness) + sep + printable(status)
	if n.Reason != "" {
		s += " (" + printableText(n.Reason) + ")"
	}
	return s
}

// printable leaves an ordinary word alone and quotes one holding spaces,
// control or other invisible characters (bidi overrides included), so a
// hostile id can neither break a line nor blur the columns of the tree.
func printable(s string) string {
	// Printable ASCII but the space reads as itself, byte by byte: a
	// listing's hundred thousand ids, without decoding a rune of them.
	i := 0
	for i < len(s) && s[i] > ' ' && s[i] < 0x7f {
		i++
	}
	if i == len(s) {
		return s
	}
	for _, r := range s[i:] {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// printableText is printable for free text such as a reason, where the
// ASCII space is expected (unicode.IsPrint accepts it and no other space).
func printableText(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func renderDOT(g *Graph, id string, chain []string) (string, error) {
	var b strings.Builder
	b.WriteString("digraph lineage {\n")
	b.WriteString("  node [shape=box];\n")
	for _, c := range chain {
		n, _ := g.Node(c)
		fmt.Fprintf(&b, "  %s [label=%s", dotQuote(c), dotQuote(labelLines(n)))
		if c == id {
			b.WriteString(", penwidth=3")
		}
		b.WriteString("];\n")
	}
	for i := 1; i < len(chain); i++ {
		old, _ := g.Node(chain[i-1])
		fmt.Fprintf(&b, "  %s -> %s", dotQuote(chain[i-1]), dotQuote(chain[i]))
		if old.Reason != "" {
			fmt.Fprintf(&b, " [label=%s]", dotQuote(old.Reason))
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// labelLines is the text of a node's box: id, harness, status, one per line.
// The lines are joined with a real newline that dotQuote turns into DOT's \n.
func labelLines(n Node) string {
	parts := []string{n.ID}
	if n.Harness != "" {
		parts = append(parts, n.Harness)
	}
	if n.Status != "" {
		parts = append(parts, n.Status)
	}
	return strings.Join(parts, "\n")
}

// dotQuote makes a DOT double-quoted string. Only \" is an escape inside DOT
// quotes, but labels also read backslash sequences (\n, \l, \N), so a
// backslash is doubled: ids stay distinct and labels show it literally.
// Newlines become \n; other control characters are written as \xNN text,
// which cannot clash with a doubled backslash.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func renderMermaid(g *Graph, id string, chain []string) (string, error) {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	keys := make([]string, len(chain))
	for i, c := range chain {
		keys[i] = mermaidKey(i, c)
		n, _ := g.Node(c)
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", keys[i], mermaidText(labelLines(n)))
	}
	for i := 1; i < len(chain); i++ {
		old, _ := g.Node(chain[i-1])
		if old.Reason != "" {
			fmt.Fprintf(&b, "  %s -->|\"%s\"| %s\n", keys[i-1], mermaidText(old.Reason), keys[i])
		} else {
			fmt.Fprintf(&b, "  %s --> %s\n", keys[i-1], keys[i])
		}
	}
	for i, c := range chain {
		if c == id {
			fmt.Fprintf(&b, "  class %s requested\n", keys[i])
		}
	}
	b.WriteString("  classDef requested stroke-width:3px\n")
	return b.String(), nil
}

// mermaidKey is a node key Mermaid cannot misread: a position prefix keeps
// keys unique and never a keyword such as "end"; the id, reduced to ASCII
// letters, digits and underscores, keeps the source readable.
func mermaidKey(i int, id string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "s%d_", i)
	for _, r := range id {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// mermaidText makes text safe inside a quoted Mermaid label. Mermaid reads
// #name; and #123; as entity codes and labels as HTML, so the characters that
// could end the string, start an entity or tag, or switch to a markdown string
// become decimal entity codes; newlines become <br/>.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString("<br/>")
		case r == '"' || r == '#' || r == '<' || r == '>' || r == '&' || r == '`' || r == '|' ||
			r == '\\' || r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
