package refstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// EachStreamed is Each for long listings: the refs are listed in process
// (RefIDs) and their objects streamed through one `git cat-file --batch`
// fed from a goroutine, so that neither process holds the listing: `git
// for-each-ref` with contents keeps every object it read until it has
// printed all of them (150 MB for 100,000 batons). In ref order, as Each.
// Where RefIDs would ask git anyway it is Each.
func (s *Store) EachStreamed(ctx context.Context, prefix string, fn func(Entry) error) error {
	if s.refs == nil {
		return s.Each(ctx, prefix, fn)
	}
	ids, err := s.RefIDs(ctx, prefix)
	if err != nil {
		return err
	}
	return s.eachOfIDs(ctx, ids, fn)
}

// eachOfIDs streams the objects of ids, listed by RefIDs, to fn.
func (s *Store) eachOfIDs(ctx context.Context, ids []RefID, fn func(Entry) error) error {
	if len(ids) == 0 {
		return nil
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = s.workDir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting git cat-file: %w", err)
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		bw := bufio.NewWriterSize(in, 64<<10)
		for _, id := range ids {
			name := id.OID
			if name == "" {
				name = id.Ref // cat-file resolves it, as for-each-ref would
			}
			if _, err := bw.WriteString(name + "\n"); err != nil {
				break
			}
		}
		bw.Flush()
		in.Close()
	}()
	perr := readBatch(bufio.NewReaderSize(out, 64<<10), ids, fn)
	if perr != nil {
		cmd.Process.Kill()
	}
	<-fed
	werr := cmd.Wait()
	if perr != nil {
		return perr
	}
	if werr != nil {
		return &GitError{Args: cmd.Args[1:], Stderr: errb.String(), Err: werr}
	}
	return nil
}

// readBatch reads cat-file's answer for each of ids in turn. A ref whose
// object is missing comes to fn with the type "missing", which no record
// decoder accepts: it is skipped with the others that cannot be read.
func readBatch(r *bufio.Reader, ids []RefID, fn func(Entry) error) error {
	for _, id := range ids {
		header, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
		header = strings.TrimSuffix(header, "\n")
		if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
			if err := fn(Entry{Ref: id.Ref, OID: id.OID, Type: "missing"}); err != nil {
				return err
			}
			continue
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return fmt.Errorf("git cat-file: unexpected header %q", header)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("git cat-file: unexpected header %q", header)
		}
		e := Entry{Ref: id.Ref, OID: f[0], Type: f[1], Size: size}
		if e.Data, err = readSized(r, size); err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return fmt.Errorf("git cat-file: more answers than questions")
	}
	return nil
}
