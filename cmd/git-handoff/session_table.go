package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// tableCells is the number of cells of a row of writeTable.
const tableCells = 7

// writeTable writes n rows of cells as tabwriter.NewWriter(w, 0, 4, 2,
// ' ', 0) writes them, each printed as its cells joined by tabs and
// ended by a newline, byte for byte. When every row has all its cells,
// tabwriter's columns are as wide as their widest cell and two spaces
// more, all the way down: that is written straight, without the Writer's
// cell per piece of text, which for 100,000 sessions cost more than
// reading them. A cell holding a byte tabwriter gives a meaning (a tab, a
// newline, a vertical tab, a form feed, its escape byte 0xff) goes
// through tabwriter itself. row(i) is called twice for each row and must
// give the same cells each time.
func writeTable(w io.Writer, n int, row func(i int) [tableCells]string) error {
	var widths [tableCells - 1]int
	for i := range n {
		cells := row(i)
		for j, c := range cells {
			if strings.ContainsAny(c, "\t\n\v\f\xff") {
				return writeTabwriter(w, n, row)
			}
			if j < len(widths) {
				widths[j] = max(widths[j], utf8.RuneCountInString(c))
			}
		}
	}
	const padding = 2
	var buf []byte
	for i := range n {
		cells := row(i)
		for j, c := range cells {
			buf = append(buf, c...)
			if j < len(widths) {
				buf = appendSpaces(buf, widths[j]+padding-utf8.RuneCountInString(c))
			}
		}
		buf = append(buf, '\n')
		if len(buf) >= 60<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// writeTabwriter is writeTable through tabwriter.
func writeTabwriter(w io.Writer, n int, row func(i int) [tableCells]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i := range n {
		c := row(i)
		fmt.Fprintln(tw, strings.Join(c[:], "\t"))
	}
	return tw.Flush()
}

const spaces = "                                                                "

func appendSpaces(dst []byte, n int) []byte {
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	return append(dst, spaces[:n]...)
}
