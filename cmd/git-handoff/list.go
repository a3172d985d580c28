package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/internal/safetext"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/sign"
	"github.com/git-handoff/git-handoff/view"
)

func listCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the batons waiting for me (--all: every owner's, claimed ones too)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every owner's batons, claimed ones too"},
			ownerFlag(),
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			opts := handoff.ListOptions{All: c.Bool("all"), Owner: c.String("owner")}
			if c.Bool("json") {
				return listJSON(c, d, st, opts)
			}
			res, err := handoff.List(c.Context, st, opts)
			if err != nil {
				return err
			}
			list := res.Handoffs
			notify(d.stderr, res.Notices)
			if len(list) == 0 {
				fmt.Fprintln(d.stderr, "no batons")
				return nil
			}
			tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tOWNER\tBRANCH\tSTATE\tSIGNATURE\tCREATED\tNEXT STEP")
			for _, h := range list {
				state := "waiting"
				if h.Claimed {
					state = "claimed by " + h.ClaimedBySession
				}
				if h.Shared {
					state += " (shared)"
				}
				if s, ok := res.Snapshots[h.SessionID]; ok {
					state += ", snapshot " + s.Commit[:min(12, len(s.Commit))]
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h.ID, h.Owner, h.Branch, state, signatureCell(h.Signature), h.CreatedAt.Format("2006-01-02 15:04"), firstLine(h.NextSteps))
			}
			return tw.Flush()
		},
	}
}

// listedJSON is a baton of `list --json`, with the snapshot of
// uncommitted work its session left, when there is one.
type listedJSON struct {
	*handoffJSON
	Snapshot *snapshotJSON `json:"snapshot,omitempty"`
}

func firstLine(steps []string) string {
	if len(steps) == 0 {
		return ""
	}
	s := steps[0]
	for i, r := range s {
		if r == '\n' || i >= 60 {
			return s[:i] + "…"
		}
	}
	return s
}

// signatureCell is a baton's verification in a table cell: the state, and
// who signed when it is someone other than the owner.
func signatureCell(v *refstore.Verification) string {
	switch {
	case v == nil:
		return "-"
	case v.State == sign.Other:
		return "signed by " + v.Signer
	}
	return string(v.State)
}

// listJSON prints what printJSONArray would of the batons, byte for byte,
// but encodes each baton as it is read and keeps only its text (in large
// shared chunks) until the sort has put them in order: a hundred thousand
// decoded batons and their JSON shapes are never all held at once. The
// text is written by view.AppendStoredItemOpen, which writes what the
// Encoder writes without its reflection, already as a safetext.Writer
// would pass it and indented with tabs, which printing turns into the
// listing's indentation (jsonrec.Reindent) and nothing scans again; a
// baton it cannot write goes to the Encoder, which says why as it always
// did.
func listJSON(c *cli.Context, d *deps, st *refstore.Store, opts handoff.ListOptions) error {
	// What is kept is the arena, free of pointers, and each baton's sort
	// key; what decoding leaves behind is little and garbage at once. So
	// the collector runs only when the heap nears a limit (a few times for
	// 100,000 batons, each cheap: the arena needs no scanning), which keeps
	// the process under 100 MB without a collection every few megabytes.
	// The limit grows with the arena, so that a larger listing, which
	// keeps more, is never collected without end.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(listHeapLimit))
	chunks := 0
	var arena listArena
	var encErr error
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var scratch, ind []byte
	snapshot := handoff.SnapshotsOf(c.Context, st)
	// conv copies what it keeps of each baton (its text, into the arena):
	// the batons are borrowed.
	spans, notices, err := handoff.ListEachBorrowed(c.Context, st, opts, func(s *baton.Stored) listSpan {
		var snap *snapshotJSON
		if sn, ok := snapshot(s.SessionID); ok {
			snap = toSnapshotJSON(&sn, false)
		}
		out, err := appendListed(scratch[:0], s, snap, enc, &buf)
		if err == nil {
			scratch = out
			sp := arena.add(out)
			if n := len(arena.chunks); n != chunks {
				chunks = n
				debug.SetMemoryLimit(max(listHeapLimit, int64(arena.size())+listHeapHeadroom))
			}
			return sp
		}
		item := listedJSON{handoffJSON: toJSON(s), Snapshot: snap}
		buf.Reset()
		if err := enc.Encode(item); err != nil && encErr == nil {
			encErr = err
		}
		scratch = safetext.Append(scratch[:0], bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		ind = jsonrec.Indent(ind[:0], scratch, "", "\t")
		return arena.add(ind)
	})
	if err == nil {
		err = encErr
	}
	if err != nil {
		return err
	}
	// Every item was made safe for a terminal as it was written: the
	// output is not scanned again on its way out.
	return printJSONEachEscaped(d.stdout, "handoffs", len(spans), func(i int, out *bytes.Buffer) error {
		out.Write(jsonrec.Reindent(out.AvailableBuffer(), arena.bytes(spans[i]), "    ", "  "))
		return nil
	}, d.withOpenNotices(notices))
}

// listHeapLimit is the heap a listing may grow to before a collection,
// or its arena and listHeapHeadroom once that is larger. The headroom is
// what decoding may leave behind between two collections: besides the
// arena, the sort keys and the reader's bases are live too, and with the
// limit at half as much again as the arena, 100,000 batons ended in a
// collection every megabyte or two (25 in all, 7% of the CPU, for
// 13 now and 3 MB more at the peak).
const (
	listHeapLimit    = 60 << 20
	listHeapHeadroom = 32 << 20
)

// appendListed appends listedJSON{toJSON(s), snap} as the arena keeps it: the Encoder's JSON as a
// safetext.Writer filters it, indented with tabs (view.AppendStoredItemOpen); the rare snapshot is the
// Encoder's own writing (enc writes into buf), filtered and indented here.
func appendListed(dst []byte, s *baton.Stored, snap *snapshotJSON, enc *json.Encoder, buf *bytes.Buffer) ([]byte, error) {
	dst, err := view.AppendStoredItemOpen(dst, s)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		buf.Reset()
		if err := enc.Encode(snap); err != nil {
			return nil, err
		}
		dst = append(dst, ",\n\t\"snapshot\": "...)
		dst = jsonrec.Indent(dst, safetext.Append(nil, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), "\t", "\t")
	}
	return append(dst, "\n}"...), nil
}

// listArena holds encoded entries back to back in chunks of a megabyte or
// so: one allocation per chunk instead of one per entry, and no copying
// of everything so far when it grows.
type listArena struct{ chunks [][]byte }

type listSpan struct{ chunk, off, n int32 }

func (a *listArena) add(b []byte) listSpan {
	last := len(a.chunks) - 1
	if last < 0 || cap(a.chunks[last])-len(a.chunks[last]) < len(b) {
		a.chunks = append(a.chunks, make([]byte, 0, max(1<<20, len(b))))
		last++
	}
	off := len(a.chunks[last])
	a.chunks[last] = append(a.chunks[last], b...)
	return listSpan{chunk: int32(last), off: int32(off), n: int32(len(b))}
}

// size is the memory the arena holds.
func (a *listArena) size() int {
	n := 0
	for _, c := range a.chunks {
		n += cap(c)
	}
	return n
}

func (a *listArena) bytes(sp listSpan) []byte {
	return a.chunks[sp.chunk][sp.off : sp.off+sp.n]
}
