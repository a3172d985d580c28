package refstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// fileReader reads one ref and its blob in process: ~30 µs, against ~1.5 ms
// for a git process. The ref is resolved from the files themselves; the
// object comes from the object database (objects.go).
type fileReader struct {
	store *Store
	refs  *refFiles
}

func (r *fileReader) get(ctx context.Context, ref string) (Entry, error) {
	oid, err := r.refs.resolve(ref)
	if errors.Is(err, ErrNotFound) {
		return Entry{Ref: ref}, fmt.Errorf("%s: %w", ref, ErrNotFound)
	}
	if errors.Is(err, errSymbolic) {
		return Entry{Ref: ref}, fmt.Errorf("%w: %s is a symbolic ref", ErrInvalidRecord, ref)
	}
	if err != nil {
		return Entry{Ref: ref}, fmt.Errorf("reading %s: %w", ref, err)
	}
	e, err := r.store.object(ctx, oid)
	e.Ref = ref
	if err != nil {
		return e, fmt.Errorf("reading %s (%s): %w", ref, oid, err)
	}
	return e, nil
}

// object reads an object in process. The packs are listed once, so after
// a fetch wrote a pack or while gc repacks, an object it does not find (or
// finds in a pack that is gone) may well be there: it lists the packs again
// and retries, and then asks git, which re-scans on a miss itself, before
// calling the object missing.
func (s *Store) object(ctx context.Context, oid string) (Entry, error) {
	e := Entry{OID: oid}
	var err error
	for try := 0; try < 2; try++ {
		if try > 0 {
			s.reindex()
		}
		if e, err = s.objectInProcess(oid); err == nil {
			return e, nil
		}
	}
	b, cerr := s.catFile(ctx)
	if cerr != nil {
		return Entry{OID: oid}, err
	}
	e, err = b.read(oid)
	e.OID = oid
	if errors.Is(err, ErrNotFound) {
		return e, fmt.Errorf("object %s: %w", short(oid), ErrNotFound)
	}
	return e, err
}

func (s *Store) objectInProcess(oid string) (Entry, error) {
	o, err := s.objects.read(oid, MaxRecord)
	if err != nil {
		return Entry{OID: oid}, err
	}
	return Entry{OID: oid, Type: o.typ, Size: o.size, Data: o.data}, nil
}

// reindex makes the object reader list the packs again at its next read.
func (s *Store) reindex() {
	if s.objects != nil {
		s.objects.reindex()
	}
}

func (r *fileReader) close() error { return nil }

// cliReader reads through a long-lived `git cat-file --batch`, for
// repositories whose objects are not read in process (objectsInProcess).
type cliReader struct{ store *Store }

func (r *cliReader) get(ctx context.Context, ref string) (Entry, error) {
	b, err := r.store.catFile(ctx)
	if err != nil {
		return Entry{Ref: ref}, err
	}
	e, err := b.read(ref)
	e.Ref = ref
	return e, err
}

func (r *cliReader) close() error { return nil }

func (s *Store) catFile(ctx context.Context) (*catFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batcher == nil {
		b, err := startCatFile(s.workDir)
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

func startCatFile(dir string) (*catFile, error) {
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
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

// cliLister lists refs with their blobs through one `git for-each-ref` using
// %(raw), framed by %(raw:size) so no content can break the parse.
type cliLister struct{ dir string }

const listFormat = "%(objectname) %(objecttype) %(raw:size) %(refname)%0a%(raw)"

func (l *cliLister) list(ctx context.Context, prefixes []string, fn func(Entry) error) ([]Entry, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"for-each-ref", "--format=" + listFormat}, prefixes...)...)
	cmd.Dir = l.dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting git for-each-ref: %w", err)
	}
	var entries []Entry
	perr := parseList(bufio.NewReaderSize(out, 64<<10), func(e Entry) error {
		if fn != nil {
			return fn(e)
		}
		entries = append(entries, e)
		return nil
	})
	if perr != nil {
		cmd.Process.Kill()
	}
	werr := cmd.Wait()
	if perr != nil {
		return nil, perr
	}
	if werr != nil {
		return nil, &GitError{Args: cmd.Args[1:], Stderr: errb.String(), Err: werr}
	}
	return entries, nil
}

func parseList(r *bufio.Reader, fn func(Entry) error) error {
	for {
		header, err := r.ReadString('\n')
		if err == io.EOF && header == "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("git for-each-ref: %w", err)
		}
		header = strings.TrimSuffix(header, "\n")
		f := strings.SplitN(header, " ", 4)
		if len(f) != 4 {
			return fmt.Errorf("git for-each-ref: unexpected line %q", header)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("git for-each-ref: unexpected line %q", header)
		}
		e := Entry{OID: f[0], Type: f[1], Size: size, Ref: f[3]}
		if e.Data, err = readSized(r, size); err != nil {
			return fmt.Errorf("git for-each-ref: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}
