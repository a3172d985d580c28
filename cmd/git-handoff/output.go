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
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	// Each value without the newline the Encoder ends it with.
	write := func(v any) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return nil
	}
	fmt.Fprintf(bw, "{\n  %q: [", key)
	for i := range items {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		if err := write(items[i]); err != nil {
			return err
		}
	}
	if len(items) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"notices\": ")
	enc.SetIndent("  ", "  ")
	if err := write(view.NonNil(notices)); err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
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
