package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/internal/safetext"
	"github.com/git-handoff/git-handoff/view"
	"github.com/urfave/cli/v2"
)

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON on stdout and nothing else"}

// printJSON prints v, an output type of one command, as the only thing on
// stdout. What the store said when it was opened (a merge's conflicts, a
// killed transaction settled) goes into v's Notices, which every output
// type has; a type without one gets them on stderr.
func (d *deps) printJSON(v any) error {
	if len(d.openNotices) > 0 {
		rv := reflect.New(reflect.TypeOf(v)).Elem()
		rv.Set(reflect.ValueOf(v))
		if rv.Kind() == reflect.Struct {
			if f := rv.FieldByName("Notices"); f.IsValid() && f.Type() == reflect.TypeOf([]string(nil)) {
				f.Set(reflect.ValueOf(d.withOpenNotices(f.Interface().([]string))))
				v = rv.Interface()
			}
		}
		notify(d.stderr, d.withOpenNotices(nil))
	}
	return printJSON(d.stdout, v)
}

// withOpenNotices puts what the store said when it was opened before
// notices, once.
func (d *deps) withOpenNotices(notices []string) []string {
	if len(d.openNotices) == 0 {
		return notices
	}
	// The merge at open and the command itself can meet the same record
	// (sync reads the fetched copies the merge skipped): say it once.
	said := make(map[string]bool, len(notices))
	for _, n := range notices {
		said[n] = true
	}
	var out []string
	for _, n := range d.openNotices {
		if !said[n] {
			said[n] = true
			out = append(out, n)
		}
	}
	d.openNotices = nil
	return append(out, notices...)
}

func printJSON(w io.Writer, v any) error {
	if a, ok := v.(jsonAppender); ok {
		if compact, err := a.appendJSON(nil); err == nil {
			out := jsonrec.Indent(make([]byte, 0, len(compact)+len(compact)/4+64), compact, "", "  ")
			_, err = w.Write(append(out, '\n'))
			return err
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printJSONEach prints what printJSONArray prints, byte for byte, for n
// items that item writes (indented as printJSONArray indents them) one
// at a time: none needs to exist before it is written.
func printJSONEach(w io.Writer, key string, n int, item func(i int, out *bytes.Buffer) error, notices []string) error {
	return printJSONItems(w, false, key, n, bufferedItem(item), notices)
}

// printJSONEachEscaped is printJSONEach for items that item has made safe
// for a terminal already (as safetext.Writer would, with
// jsonrec.AppendSafeString's strings): they go to w unscanned
// (safetext.Escaped), and only the notices through the filter.
func printJSONEachEscaped(w io.Writer, key string, n int, item func(i int, out *bytes.Buffer) error, notices []string) error {
	return printJSONItems(w, true, key, n, bufferedItem(item), notices)
}

// bufferedItem adapts an item written into a bytes.Buffer to
// printJSONItems, which is handed the buffer's bytes.
func bufferedItem(item func(i int, out *bytes.Buffer) error) func(int, []byte) ([]byte, error) {
	var buf bytes.Buffer
	return func(i int, _ []byte) ([]byte, error) {
		buf.Reset()
		err := item(i, &buf)
		return buf.Bytes(), err
	}
}

// printJSONItems writes {"<key>": [items…], "notices": […]}, the items as
// item returns them (appended to dst, the last item's bytes, or in a
// buffer of its own), so a listing of 100 MB is never held or copied
// whole on its way to the bufio.Writer. With escaped, the items are
// terminal-safe already (printJSONEachEscaped).
func printJSONItems(w io.Writer, escaped bool, key string, n int, item func(i int, dst []byte) ([]byte, error), notices []string) error {
	if escaped {
		w = safetext.Escaped(w)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "{\n  %q: [", key)
	var buf []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		var err error
		if buf, err = item(i, buf[:0]); err != nil {
			return err
		}
		bw.Write(bytes.TrimSuffix(buf, []byte("\n")))
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"notices\": ")
	var nb bytes.Buffer
	enc := json.NewEncoder(&nb)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(view.NonNil(notices)); err != nil {
		return err
	}
	list := bytes.TrimSuffix(nb.Bytes(), []byte("\n"))
	if escaped {
		list = safetext.Append(nil, list)
	}
	bw.Write(list)
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// printJSONArray prints {"<key>": [items…], "notices": […]} one item at a
// time, so a list of ten thousand records never sits in memory twice over
// as JSON text.
func printJSONArray[T any](w io.Writer, key string, items []T, notices []string) error {
	enc, buf := itemEncoder()
	return printJSONEach(w, key, len(items), func(i int, out *bytes.Buffer) error {
		buf.Reset()
		err := enc.Encode(items[i])
		out.Write(buf.Bytes())
		return err
	}, notices)
}

// itemEncoder encodes one item of printJSONEach's array, indented as it
// sits there, into the buffer it returns.
func itemEncoder() (*json.Encoder, *bytes.Buffer) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	return enc, &buf
}

// notify prints messages for the user on stderr.
func notify(w io.Writer, notices []string) {
	for _, n := range condenseSkipped(notices) {
		fmt.Fprintf(w, "notice: %s\n", n)
	}
}

// ownerFlag and branchFlag let a command act for someone else or another
// branch; handoff.Resolve supplies the defaults they describe.
func ownerFlag() cli.Flag {
	return &cli.StringFlag{Name: "owner", Usage: "act for `OWNER` (default: git config handoff.owner, user.email, user.name)"}
}

func branchFlag() cli.Flag {
	return &cli.StringFlag{Name: "branch", Usage: "act for `BRANCH` (default: the current branch)"}
}
