package main

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"strings"
	"text/tabwriter"

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
			res, err := handoff.SessionList(c.Context, st, handoff.SessionListOptions{All: all})
			if err != nil {
				return err
			}
			shown := res.Sessions
			notify(d.stderr, res.Notices)
			if len(shown) == 0 {
				if all {
					fmt.Fprintln(d.stderr, "no sessions")
				} else {
					fmt.Fprintln(d.stderr, "no active sessions (--all shows the others)")
				}
				return nil
			}
			tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tAGENT\tBRANCH\tSTATUS\tUPDATED")
			for _, s := range shown {
				status := s.Status
				if s.Switching != nil {
					status += " (switching to " + s.Switching.To + ")"
				}
				if rt := runtimeText(s.Runtime); rt != "" {
					status += ", " + rt
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Lineage, orDash(s.Harness), orDash(s.Branch), status, s.UpdatedAt.UTC().Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		},
	}
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
	var (
		packed view.PackedWriter
		buf    []byte
	)
	return printJSONEach(d.stdout, "sessions", len(items), func(i int, out *bytes.Buffer) error {
		it := items[i]
		rec := it.V.rec
		if it.V.packed {
			var err error
			if buf, err = packed.AppendIndented(buf[:0], arena.bytes(it.V.span)); err != nil {
				// For the Encoder to say why.
				r := packed.Record(arena.bytes(it.V.span))
				rec = &r
			}
		} else if rec == nil {
			buf = append(buf[:0], arena.bytes(it.V.span)...)
		}
		if rec != nil {
			j := toSessionJSON(*rec, false)
			j.Lineage = it.Lineage
			withRuntime(&j, it.Runtime)
			ebuf.Reset()
			err := enc.Encode(j)
			out.Write(ebuf.Bytes())
			return err
		}
		j := sessionJSON{Runtime: it.V.rt}
		withRuntime(&j, it.Runtime)
		var err error
		if buf, err = view.AppendSessionTailIndented(buf, j.Runtime, it.Lineage); err != nil {
			return err
		}
		out.Write(buf)
		return nil
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
