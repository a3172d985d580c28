package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// tabwritten is what the table printed before writeTable: every row
// through tabwriter.
func tabwritten(rows [][tableCells]string) []byte {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	for _, c := range rows {
		fmt.Fprintln(tw, strings.Join(c[:], "\t"))
	}
	if err := tw.Flush(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func checkTable(t *testing.T, rows [][tableCells]string) {
	t.Helper()
	var got bytes.Buffer
	if err := writeTable(&got, len(rows), func(i int) [tableCells]string { return rows[i] }); err != nil {
		t.Fatal(err)
	}
	if want := tabwritten(rows); !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("writeTable:\n%q\ntabwriter:\n%q", got.Bytes(), want)
	}
}

// tableText is cell text of every kind: empty, wide and combining runes,
// invalid UTF-8, the bytes tabwriter treats specially, HTML it leaves
// alone, long cells past a buffer.
var tableText = []string{"", "-", "app-1", "app-12 ← app-11 (stuck)", "日本語", "e\u0301", "😀x", "bad \xff\xfe",
	"\xe2\x80", "a\tb", "line\nbreak", "v\vw", "f\fg", "<b>&amp;</b>", "\x1b[31mred", strings.Repeat("wide ", 3000),
	"active (switching to codex), tmux live", "2026-11-02 09:00"}

// writeTable writes what tabwriter writes, over tables of every shape:
// rows from tableText, one row or many, more than a buffer's worth.
func TestWriteTableMatchesTabwriter(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 12))
	for n := range 200 {
		// Three tables of thousands of rows: past writeTable's buffer.
		rows := make([][tableCells]string, 1+n%7+n/196*5000)
		for i := range rows {
			for j := range rows[i] {
				// Mostly plain text, so most tables take the fast way.
				if r.IntN(20) == 0 {
					rows[i][j] = tableText[r.IntN(len(tableText))]
					// Half the tables without the bytes that send
					// them through tabwriter.
					// The big tables cross the buffer by their rows; the
					// 15,000-byte cell, which the small ones try, would
					// widen every row of its column in them (a gigabyte
					// to write and compare, half a minute here).
					for n%2 == 0 && strings.ContainsAny(rows[i][j], "\t\n\v\f\xff") || len(rows) > 1000 && len(rows[i][j]) > 1000 {
						rows[i][j] = tableText[r.IntN(len(tableText))]
					}
				} else {
					rows[i][j] = fmt.Sprintf("c%d-%d", j, r.IntN(1000))
				}
			}
		}
		checkTable(t, rows)
	}
}

// FuzzWriteTableMatchesTabwriter: the same over any text.
func FuzzWriteTableMatchesTabwriter(f *testing.F) {
	for i, s := range tableText {
		if len(s) < 100 {
			f.Add(s, tableText[(i+3)%len(tableText)], uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, a, b string, shape uint8) {
		rows := [][tableCells]string{{"SESSION", "AGENT", "BRANCH", "STATUS", "UPDATED"}}
		for i := range int(shape%5) + 1 {
			var row [tableCells]string
			for j := range row {
				switch (int(shape) + i + j) % 3 {
				case 0:
					row[j] = a
				case 1:
					row[j] = b
				default:
					row[j] = a + b
				}
			}
			rows = append(rows, row)
		}
		checkTable(t, rows)
	})
}
