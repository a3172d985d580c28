package refstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"time"
)

// EachStreamed lists the refs under prefix with their objects: the refs are listed by one
// `git for-each-ref` (RefIDs) and their objects streamed through one
// `git cat-file --batch` fed from a goroutine, so that neither process
// holds the listing: `git for-each-ref` with contents keeps every object
// it read until it has printed all of them (150 MB for 100,000 batons). In
// ref order.
//
// e.Data is valid only until fn returns: one buffer holds each object in
// turn, so that a hundred thousand of them are not a hundred thousand
// allocations. A caller that keeps the bytes copies them (every record
// decoder copies what it keeps).
func (s *Store) EachStreamed(ctx context.Context, prefix string, fn func(Entry) error) error {
	ids, err := s.RefIDs(ctx, prefix)
	if err != nil {
		return err
	}
	return s.catFileEach(ctx, ids, fn)
}

// ReadEach streams the objects ids name through one git cat-file, in the
// order given, handing each to fn with its ref: for a caller that listed
// ids with RefIDs and reads only the objects it does not know. e.Data is
// valid only until fn returns, as in EachStreamed; a missing object comes
// with the type "missing".
func (s *Store) ReadEach(ctx context.Context, ids []RefID, fn func(Entry) error) error {
	return s.catFileEach(ctx, ids, fn)
}

// catFileEach streams the objects of ids through one git cat-file.
func (s *Store) catFileEach(ctx context.Context, ids []RefID, fn func(Entry) error) error {
	if len(ids) == 0 {
		return nil
	}
	b, err := s.startBatch(ctx)
	if err != nil {
		return err
	}
	return b.run(ids, fn)
}

// batch is one `git cat-file --batch --buffer`: --buffer because every
// question is asked before any answer is read, so git need not flush after
// each object.
//
// git writes its answers into a spool, an unlinked temporary file, read
// while it grows. Through a pipe, the answers cost more than git's reading
// of them: cat-file streams each blob past its buffer, two writes an
// object, and a reader quicker than git wakes for each, 200,000 wake-ups
// of both processes for 100,000 batons. A write into a file wakes nobody;
// the reader, once it has caught up, waits a moment (spoolPoll) for more.
type batch struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     io.Reader
	spool   *os.File      // nil when git writes into a pipe (no temporary file could be made)
	exited  chan struct{} // closed when git has exited (spool only), with waitErr set
	waitErr error
	errb    bytes.Buffer
}

// spoolPoll is how long the reader of a spool that has caught up with git
// waits before it looks again: git writes some 50 KB meanwhile.
const spoolPoll = time.Millisecond

func (s *Store) startBatch(ctx context.Context) (*batch, error) {
	b := &batch{cmd: exec.CommandContext(ctx, "git", "cat-file", "--batch", "--buffer")}
	b.cmd.Dir = s.workDir
	b.cmd.Stderr = &b.errb
	var err error
	if b.in, err = b.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if f, err := os.CreateTemp("", "git-handoff-batch-"); err == nil {
		// Unlinked at once where the system allows it: nothing is left
		// behind, whatever happens to this process.
		if os.Remove(f.Name()) != nil {
			defer func() {
				if b.spool == nil {
					os.Remove(f.Name())
				}
			}()
		}
		b.spool, b.cmd.Stdout = f, f
	} else if b.out, err = b.cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := b.cmd.Start(); err != nil {
		if b.spool != nil {
			b.closeSpool()
		}
		return nil, fmt.Errorf("starting git cat-file: %w", err)
	}
	if b.spool != nil {
		b.exited = make(chan struct{})
		go func() {
			b.waitErr = b.cmd.Wait()
			close(b.exited)
		}()
		b.out = &spoolReader{f: b.spool, exited: b.exited}
	}
	return b, nil
}

func (b *batch) closeSpool() {
	name := b.spool.Name()
	b.spool.Close()
	os.Remove(name) // where it could not be unlinked while open
	b.spool = nil
}

// wait waits for git to exit.
func (b *batch) wait() error {
	if b.spool == nil {
		return b.cmd.Wait()
	}
	<-b.exited
	b.closeSpool()
	return b.waitErr
}

// abort ends a batch nothing was asked of.
func (b *batch) abort() {
	b.in.Close()
	b.cmd.Process.Kill()
	b.wait()
}

// spoolReader reads what git has written into the spool so far, waiting
// for more while git runs; the end of the spool after git exited is the
// end.
type spoolReader struct {
	f      *os.File
	off    int64
	exited <-chan struct{}
}

func (s *spoolReader) Read(p []byte) (int, error) {
	last := false
	for {
		n, err := s.f.ReadAt(p, s.off)
		s.off += int64(n)
		switch {
		case n > 0:
			return n, nil
		case err != io.EOF:
			return 0, err
		case last:
			return 0, io.EOF
		}
		select {
		case <-s.exited:
			last = true // all git wrote is there now: one more look
		default:
			time.Sleep(spoolPoll)
		}
	}
}

// run asks for the objects of ids (from a goroutine: git answers while it
// is asked) and hands each answer to fn.
func (b *batch) run(ids []RefID, fn func(Entry) error) error {
	if len(ids) == 0 {
		b.in.Close()
		b.wait()
		return nil
	}
	fed := make(chan struct{})
	// asked counts the questions written: readBatch lets go of each ref's
	// strings once answered, which the feeder has read before (the count
	// says so to the memory model).
	var asked atomic.Int64
	go func() {
		defer close(fed)
		bw := bufio.NewWriterSize(b.in, 64<<10)
		for i, id := range ids {
			name := id.OID
			if name == "" {
				name = id.Ref // cat-file resolves it, as for-each-ref would
			}
			bw.WriteString(name)
			if err := bw.WriteByte('\n'); err != nil {
				break
			}
			asked.Store(int64(i + 1))
		}
		bw.Flush()
		b.in.Close()
	}()
	perr := readBatch(bufio.NewReaderSize(b.out, 256<<10), ids, fn, &asked)
	if perr != nil {
		b.cmd.Process.Kill()
	}
	<-fed
	werr := b.wait()
	if perr != nil {
		return perr
	}
	if werr != nil {
		return &GitError{Args: b.cmd.Args[1:], Stderr: b.errb.String(), Err: werr}
	}
	return nil
}

// readBatch reads cat-file's answer for each of ids in turn. A ref whose
// object is missing comes to fn with the type "missing", which no record
// decoder accepts: it is skipped with the others that cannot be read.
// The headers are parsed in place and every object read into one buffer:
// nothing is allocated per object but what fn keeps.
//
// Each entry of ids is cleared once fn has seen it (ids is consumed): the
// refs' names and ids are most of what a long listing holds besides what
// fn keeps.
func readBatch(r *bufio.Reader, ids []RefID, fn func(Entry) error, asked *atomic.Int64) error {
	data := make([]byte, 0, 4<<10) // never nil: an empty blob is empty, not absent
	for i := range ids {
		id := ids[i]
		// Answered, so asked: the feeder is done with it.
		if i > 0 && asked.Load() >= int64(i) {
			ids[i-1] = RefID{}
		}
		line, err := r.ReadSlice('\n')
		if err != nil {
			if err == bufio.ErrBufferFull {
				err = fmt.Errorf("unexpected header %q", line)
			}
			return fmt.Errorf("git cat-file: %w", err)
		}
		header := line[:len(line)-1]
		if bytes.HasSuffix(header, []byte(" missing")) || bytes.HasSuffix(header, []byte(" ambiguous")) {
			if err := fn(Entry{Ref: id.Ref, OID: id.OID, Type: TypeMissing}); err != nil {
				return err
			}
			continue
		}
		oid, typ, size, ok := parseHeader(header)
		if !ok {
			return fmt.Errorf("git cat-file: unexpected header %q", header)
		}
		e := Entry{Ref: id.Ref, OID: id.OID, Type: typ, Size: size}
		if string(oid) != id.OID {
			e.OID = string(oid) // a symbolic ref, resolved by cat-file
		}
		if size <= MaxRecord {
			if cap(data) < int(size) {
				data = make([]byte, size, max(int(size), 2*cap(data)))
			}
			data = data[:size]
			if _, err := io.ReadFull(r, data); err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			e.Data = data
		} else if _, err := r.Discard(int(size)); err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
		if b, err := r.ReadByte(); err != nil || b != '\n' {
			return fmt.Errorf("git cat-file: object not followed by a newline")
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

// parseHeader splits "<oid> <type> <size>"; the type is one of git's four
// without an allocation.
func parseHeader(h []byte) (oid []byte, typ string, size int64, ok bool) {
	sp := bytes.IndexByte(h, ' ')
	if sp <= 0 {
		return nil, "", 0, false
	}
	oid, h = h[:sp], h[sp+1:]
	sp = bytes.IndexByte(h, ' ')
	if sp <= 0 || sp == len(h)-1 {
		return nil, "", 0, false
	}
	switch t := h[:sp]; string(t) {
	case "blob":
		typ = "blob"
	case "commit":
		typ = "commit"
	case "tree":
		typ = "tree"
	case "tag":
		typ = "tag"
	default:
		typ = string(t)
	}
	for _, c := range h[sp+1:] {
		if c < '0' || c > '9' || size > (1<<62)/10 {
			return nil, "", 0, false
		}
		size = size*10 + int64(c-'0')
	}
	return oid, typ, size, true
}
