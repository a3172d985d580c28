package refstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

func (s *Store) catFile(ctx context.Context) (*catFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batcher == nil {
		b, err := startCatFile(s.workDir, os.Stderr)
		if err != nil {
			return nil, err
		}
		s.batcher = b
	}
	return s.batcher, nil
}

type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startCatFile(dir string, stderr io.Writer) (*catFile, error) {
	cmd, in, out, err := startCoprocess(dir, stderr, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	return &catFile{cmd: cmd, in: in, out: out}, nil
}

// read asks for name (a ref or an id). cat-file resolves a ref name itself;
// a missing one answers "<name> missing".
func (c *catFile) read(name string) (Entry, error) {
	if strings.ContainsAny(name, "\n") {
		return Entry{}, fmt.Errorf("%w: %q", ErrBadName, name)
	}
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		return Entry{}, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return Entry{}, fmt.Errorf("git cat-file: %w", err)
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return Entry{}, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return Entry{}, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return Entry{}, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	e := Entry{OID: f[0], Type: f[1], Size: size}
	e.Data, err = readSized(c.out, size)
	return e, err
}

// readSized reads size bytes and the newline git puts after them; it keeps
// the bytes only when they fit a record.
func readSized(r *bufio.Reader, size int64) ([]byte, error) {
	var data []byte
	if size <= MaxRecord {
		data = make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, err
		}
	} else if _, err := io.CopyN(io.Discard, r, size); err != nil {
		return nil, err
	}
	if b, err := r.ReadByte(); err != nil || b != '\n' {
		return nil, fmt.Errorf("git: object not followed by a newline")
	}
	return data, nil
}

func (c *catFile) close() error {
	c.in.Close()
	return c.cmd.Wait()
}

// heldWriter keeps what a process writes until release passes it, and
// everything after, on to w, or drop discards it: the stderr of a git
// started before the Store knew there is a repository, which would say
// so again beside the Store's own error.
type heldWriter struct {
	mu      sync.Mutex
	w       io.Writer // nil while held
	buf     bytes.Buffer
	dropped bool
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.dropped:
		return len(p), nil
	case h.w != nil:
		return h.w.Write(p)
	}
	return h.buf.Write(p)
}

func (h *heldWriter) release(w io.Writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.w = w
	w.Write(h.buf.Bytes())
	h.buf.Reset()
}

func (h *heldWriter) drop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropped = true
	h.buf.Reset()
}
