package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// window is how much of the end of a transcript is read. A turn's last
// reply and the few exchanges before it fit in it many times over; a
// larger window would only make a huge file cost more.
const window = 1 << 20

// maxLine is the longest line decoded. Longer ones are tool results and
// pasted files far more often than an agent's reply, and decoding them
// would cost several times their size.
const maxLine = 256 << 10

// tail is the end of a file split into its JSON records.
type tail struct {
	lines [][]byte // the lines that are JSON objects, oldest first
	bad   int      // complete non-blank lines that are not
	cut   bool     // the file goes on before the window
}

// readTail reads the last size bytes of the file at path, drops the
// partial line the window starts in, and keeps the lines that are JSON
// objects. Only regular files are read: a FIFO or a device given as a
// transcript path would block or never end.
func readTail(path string, size int64) (tail, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return tail{}, fmt.Errorf("reading transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return tail{}, fmt.Errorf("reading transcript %q: not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return tail{}, fmt.Errorf("reading transcript: %w", err)
	}
	defer f.Close()
	// The file may have been replaced since the Stat; what was opened is
	// what counts.
	if fi, err = f.Stat(); err != nil {
		return tail{}, fmt.Errorf("reading transcript %q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return tail{}, fmt.Errorf("reading transcript %q: not a regular file (%s)", path, fi.Mode().Type())
	}
	// One byte more than the window, before it: a newline there means
	// the window starts with a whole line.
	off := max(fi.Size()-size-1, 0)
	buf := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return tail{}, fmt.Errorf("reading transcript %q: %w", path, err)
	}
	return splitTail(buf[:n], off > 0), nil
}

// splitTail splits buf into lines; cut says buf starts inside the file,
// and its first line is partial (it may be the newline that ends the line
// before the window).
func splitTail(buf []byte, cut bool) tail {
	t := tail{cut: cut}
	if cut {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return t
		}
		buf = buf[i+1:]
	}
	for len(buf) > 0 {
		line, complete := buf, false
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf, complete = buf[:i], buf[i+1:], true
		} else {
			buf = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
		case len(line) > maxLine:
			// Neither a record read nor a sign of another format.
		case line[0] != '{' || !json.Valid(line):
			// A last line without its newline is still being written
			// (or its writer died): not a sign of another format.
			if complete {
				t.bad++
			}
		default:
			t.lines = append(t.lines, line)
		}
	}
	return t
}
