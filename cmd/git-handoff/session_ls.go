package main

import (
	"fmt"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/view"
)

// sessionListJSON is the result of `session ls --json`, as printJSONEach
// writes it.
type sessionListJSON struct {
	Sessions []sessionJSON `json:"sessions"`
	Notices  []string      `json:"notices"`
}

func sessionLsCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "ls",
		Aliases:   []string{"list"},
		Usage:     "list active sessions with their agent, branch, status and lineage",
		UsageText: "git handoff session ls [--all] [--json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include ended, terminated, replaced and merged sessions"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "session ls takes no arguments, got %q", c.Args().First())
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			all := c.Bool("all")
			if c.Bool("json") {
				return sessionLsJSON(c, d, st, handoff.SessionListOptions{All: all})
			}
			return sessionLsText(c, d, st, all)
		},
	}
}

// sessionRow is what the table shows of a session but its lineage and
// what tmux said of it, in memory of its own.
type sessionRow struct{ harness, branch, status, updated string }

// sessionLsText prints the table of sessions, each kept as the text of
// its row, not as its record, until the lineage of every one is known.
func sessionLsText(c *cli.Context, d *deps, st *refstore.Store, all bool) error {
	// What is kept is the lineage nodes and the rows: collected as
	// records are read, they were scanned over and over (see
	// sessionLsJSON).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var text textBlocks
	var tbuf []byte
	items, notices, err := handoff.SessionListEach(c.Context, st, handoff.SessionListOptions{All: all}, func(r *session.Record) sessionRow {
		status := r.Status
		if r.Switching != nil {
			status += " (switching to " + r.Switching.To + ")"
		}
		tbuf = r.UpdatedAt.UTC().AppendFormat(tbuf[:0], "2006-01-02 15:04")
		return sessionRow{harness: text.copy(orDash(r.Harness)), branch: text.copy(orDash(r.Branch)),
			status: text.copy(status), updated: text.copy(unsafe.String(unsafe.SliceData(tbuf), len(tbuf)))}
	})
	if err != nil {
		return err
	}
	notify(d.stderr, notices)
	if len(items) == 0 {
		if all {
			fmt.Fprintln(d.stderr, "no sessions")
		} else {
			fmt.Fprintln(d.stderr, "no active sessions (--all shows the others)")
		}
		return nil
	}
	return writeTable(d.stdout, len(items)+1, func(i int) [tableCells]string {
		if i == 0 {
			return [tableCells]string{"SESSION", "AGENT", "BRANCH", "STATUS", "UPDATED"}
		}
		it := &items[i-1]
		status := it.V.status
		if rt := runtimeText(it.Runtime); rt != "" {
			status += ", " + rt
		}
		return [tableCells]string{it.Lineage, it.V.harness, it.V.branch, status, it.V.updated}
	})
}

// textBlocks holds copies of many short strings in shared blocks: one
// allocation per block, which the collector need not scan, instead of
// one per string. A block is only ever appended to, so the bytes a
// string was given never change.
type textBlocks struct{ b []byte }

func (t *textBlocks) copy(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > 4<<10 {
		return strings.Clone(s)
	}
	if cap(t.b)-len(t.b) < len(s) {
		t.b = make([]byte, 0, 64<<10)
	}
	off := len(t.b)
	t.b = append(t.b, s...)
	return unsafe.String(&t.b[off], len(s))
}

// sessionLsJSON prints sessionListJSON, byte for byte what the Encoder
// wrote for it, without holding 100,000 records: each is packed as it is
// read (view.PackRecord: its strings and times, nothing of the JSON) and
// written out when it is printed (view.PackedWriter, indented as
// printJSONEach's items are), its runtime and lineage after it. A record
// with a part the packed form does not hold is kept as its indented JSON
// up to those (view.AppendRecordOpenIndented); one the fast writers
// cannot write keeps its record for the Encoder, which says why as it
// always did.
func sessionLsJSON(c *cli.Context, d *deps, st *refstore.Store, opts handoff.SessionListOptions) error {
	// The arena needs no scanning; the lineage nodes and graph do, and
	// are what is kept: collect as records are read only when the heap
	// has grown well past them.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	type entry struct {
		span   listSpan
		packed bool            // span is view.PackRecord's, else indented JSON
		rec    *session.Record // set when the fast writer declined
		rt     *view.Runtime   // the record's runtime, shown with what tmux said
	}
	var arena listArena
	var scratch []byte
	items, notices, err := handoff.SessionListEach(c.Context, st, opts, func(r *session.Record) entry {
		if p, ok := view.PackRecord(scratch[:0], r); ok {
			scratch = p
			return entry{span: arena.add(p), packed: true}
		}
		out, rt, err := view.AppendRecordOpenIndented(scratch[:0], r)
		if err != nil {
			rec := r.Clone() // r is borrowed
			return entry{rec: &rec}
		}
		scratch = out
		return entry{span: arena.add(out), rt: rt}
	})
	if err != nil {
		return err
	}
	enc, ebuf := itemEncoder()
	var packed view.PackedWriter
	return printJSONItems(d.stdout, false, "sessions", len(items), func(i int, dst []byte) ([]byte, error) {
		it := items[i]
		rec := it.V.rec
		out := dst
		if it.V.packed {
			var err error
			if out, err = packed.AppendIndented(dst, arena.bytes(it.V.span)); err != nil {
				// For the Encoder to say why.
				r := packed.Record(arena.bytes(it.V.span))
				rec = &r
			}
		} else if rec == nil {
			out = append(dst, arena.bytes(it.V.span)...)
		}
		if rec != nil {
			j := toSessionJSON(*rec, false)
			j.Lineage = it.Lineage
			withRuntime(&j, it.Runtime)
			ebuf.Reset()
			err := enc.Encode(j)
			return append(dst, ebuf.Bytes()...), err
		}
		j := sessionJSON{Runtime: it.V.rt}
		withRuntime(&j, it.Runtime)
		return view.AppendSessionTailIndented(out, j.Runtime, it.Lineage)
	}, d.withOpenNotices(notices))
}

func orDash(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if s == "" {
		return "-"
	}
	return s
}
