package refstore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// blobWriter is a long-lived `git hash-object -w --no-filters
// --stdin-paths`: git writes every blob of a Store, as it writes every
// object (format, compression, fsync, shared permissions), for one git
// process however many blobs a command writes. Each blob goes through a
// temporary file under <common dir>/handoff/tmp, which git reads and we
// remove.
type blobWriter struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	tmp string
}

func startBlobWriter(dir, tmp string) (*blobWriter, error) {
	cmd, in, out, err := startCoprocess(dir, os.Stderr, "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	return &blobWriter{cmd: cmd, in: in, out: out, tmp: tmp}, nil
}

func (w *blobWriter) write(data []byte) (string, error) {
	f, err := os.CreateTemp(w.tmp, "blob-")
	if err != nil {
		return "", err
	}
	name := f.Name()
	defer os.Remove(name)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if _, err := io.WriteString(w.in, name+"\n"); err != nil {
		return "", fmt.Errorf("git hash-object: %w", err)
	}
	line, err := w.out.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("git hash-object: %w", err)
	}
	id := strings.TrimSuffix(line, "\n")
	if !isHexID(id) {
		return "", fmt.Errorf("git hash-object: unexpected %q", line)
	}
	return id, nil
}

func (w *blobWriter) close() error {
	w.in.Close()
	return w.cmd.Wait()
}

// writeBlobBatched writes data through the Store's blobWriter, starting
// it on the first blob. ok is false when it cannot (a temporary directory
// that cannot be made, a path git would read as two), and the caller
// writes the blob another way.
func (s *Store) writeBlobBatched(ctx context.Context, data []byte) (id string, ok bool, err error) {
	w := s.blobWriter(ctx)
	if w == nil {
		return "", false, nil
	}
	id, err = w.write(data)
	if err != nil {
		// Whatever went wrong, the next blob gets a new process.
		s.mu.Lock()
		if s.blobw == w {
			s.blobw = nil
		}
		s.mu.Unlock()
		w.close()
		return "", false, nil
	}
	return id, true, nil
}

// blobWriter is the Store's blobWriter, started if need be; nil when it
// cannot be.
func (s *Store) blobWriter(ctx context.Context) *blobWriter {
	s.mu.Lock()
	w := s.blobw
	s.mu.Unlock()
	if w != nil {
		return w
	}
	tmp := filepath.Join(s.commonDir, "handoff", "tmp")
	if strings.ContainsAny(tmp, "\n\r\"\\") {
		return nil
	}
	if err := s.MkdirAll(ctx, tmp); err != nil {
		return nil
	}
	w, err := startBlobWriter(s.workDir, tmp)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	s.blobw = w
	s.mu.Unlock()
	return w
}

// WriteAhead starts the process that writes the Store's blobs now, for a
// command that will write some once it has read what it needs: git then
// starts while those reads run, not after them. (A command that ends up
// writing no blob has started one git process for nothing.)
func (s *Store) WriteAhead(ctx context.Context) { s.blobWriter(ctx) }
