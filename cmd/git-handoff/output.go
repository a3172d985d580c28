package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printJSONArray prints {"<key>": [items…], "notices": […]} as printJSON
// would, one item at a time: a listing of 100 MB is never held as one
// buffer of JSON text.
func printJSONArray[T any](w io.Writer, key string, items []T, notices []string) error {
	var text jsonText
	return printJSONItems(w, key, len(items), func(i int) ([]byte, error) { return text.compact(items[i]) }, notices)
}

// printJSONItems is printJSONArray over n items given as compact JSON
// text, which it indents as printJSON's encoder indents a value.
func printJSONItems(w io.Writer, key string, n int, item func(i int) ([]byte, error), notices []string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	indented := func(b []byte, prefix string) error {
		buf.Reset()
		if err := json.Indent(&buf, b, prefix, "  "); err != nil {
			return err
		}
		bw.Write(buf.Bytes())
		return nil
	}
	fmt.Fprintf(bw, "{\n  %q: [", key)
	for i := range n {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		b, err := item(i)
		if err == nil {
			err = indented(b, "    ")
		}
		if err != nil {
			return err
		}
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"notices\": ")
	var text jsonText
	b, err := text.compact(view.NonNil(notices))
	if err == nil {
		err = indented(b, "  ")
	}
	if err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// jsonText encodes values as printJSON does, HTML characters as they are,
// but compact: one reused buffer, whose bytes are valid until the next call.
type jsonText struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (t *jsonText) compact(v any) ([]byte, error) {
	if t.enc == nil {
		t.enc = json.NewEncoder(&t.buf)
		t.enc.SetEscapeHTML(false)
	}
	t.buf.Reset()
	if err := t.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(t.buf.Bytes(), []byte("\n")), nil
}

// jsonItems keeps the items of a listing as compact JSON text, encoded as
// each is read, in chunks that hold no pointers: a hundred thousand batons
// kept as text cost their bytes, where kept as values they cost many small
// allocations each and a collector that walks them all (list --all --json
// at 100,000 batons peaked at 110 MB as values).
type jsonItems struct {
	text   jsonText
	chunks [][]byte
	err    error // the first value that did not encode
}

// jsonSpan is where one item's text is: chunks[chunk][off:off+n].
type jsonSpan struct{ chunk, off, n int32 }

// jsonChunk is the size of a chunk: a full one is never copied to grow.
const jsonChunk = 1 << 20

// add encodes v and keeps its text.
func (t *jsonItems) add(v any) jsonSpan {
	b, err := t.text.compact(v)
	if err != nil {
		if t.err == nil {
			t.err = err
		}
		return jsonSpan{chunk: -1}
	}
	last := len(t.chunks) - 1
	if last < 0 || len(t.chunks[last])+len(b) > cap(t.chunks[last]) {
		t.chunks = append(t.chunks, make([]byte, 0, max(jsonChunk, len(b))))
		last++
	}
	c := t.chunks[last]
	sp := jsonSpan{chunk: int32(last), off: int32(len(c)), n: int32(len(b))}
	t.chunks[last] = append(c, b...)
	return sp
}

func (t *jsonItems) bytes(sp jsonSpan) []byte {
	return t.chunks[sp.chunk][sp.off : sp.off+sp.n]
}

// print prints the items of spans, in their order, as printJSONArray does.
func (t *jsonItems) print(w io.Writer, key string, spans []jsonSpan, notices []string) error {
	if t.err != nil {
		return t.err
	}
	return printJSONItems(w, key, len(spans), func(i int) ([]byte, error) { return t.bytes(spans[i]), nil }, notices)
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
