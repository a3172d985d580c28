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
	s.mu.Lock()
	w := s.blobw
	s.mu.Unlock()
	if w == nil {
		tmp := filepath.Join(s.commonDir, "handoff", "tmp")
		if strings.ContainsAny(tmp, "\n\r\"\\") {
			return "", false, nil
		}
		if err := s.MkdirAll(ctx, tmp); err != nil {
			return "", false, nil
		}
		if w, err = startBlobWriter(s.workDir, tmp); err != nil {
			return "", false, nil
		}
		s.mu.Lock()
		s.blobw = w
		s.mu.Unlock()
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
