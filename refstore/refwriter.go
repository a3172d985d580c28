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
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// refWriter is a long-lived `git update-ref --stdin` that runs one
// transaction after another (start, the updates, prepare, commit), so
// every ref write of a Store takes git's locks, reflogs, fsync and
// reference-transaction hooks on whatever ref backend the repository has,
// for one git process per reflog message rather than one per swap. A
// transaction git refuses ends the process (git dies on a failed prepare);
// the next transaction starts another.
type refWriter struct {
	msg    string
	reflog bool       // --create-reflog (refLogged)
	stamp  identStamp // the files git read the reflog identity from
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *syncBuffer
}

// syncBuffer is a bytes.Buffer that the process's stderr copier and the
// reader of an error may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func startRefWriter(dir, msg string, stamp identStamp, reflog bool) (*refWriter, error) {
	// Not CommandContext: the process outlives the context of the first
	// transaction it runs. Each transaction watches its own context.
	w := &refWriter{msg: msg, reflog: reflog, stamp: stamp, stderr: &syncBuffer{}}
	args := []string{"update-ref", "--create-reflog", "-m", msg, "--stdin"}
	if !reflog {
		args = slices.Delete(args, 1, 2)
	}
	var err error
	if w.cmd, w.in, w.out, err = startCoprocess(dir, w.stderr, args...); err != nil {
		return nil, err
	}
	return w, nil
}

// refLogged reports whether a transaction of updates creates the reflogs
// of the refs it moves: a record's reflog is its history (superseded
// versions are read back from it), but a tracking copy of the remote's
// (RemotesPrefix) has none to keep. Its reflog would only grow with every
// sync, and git gc fails for good on an entry that names an object a
// prune took ("unable to read"), as one whose fetch a prune raced does.
// A ref that has a reflog already goes on logging, as git does.
func refLogged(updates []Update) bool {
	for _, u := range updates {
		if !strings.HasPrefix(u.Ref, RemotesPrefix) {
			return true
		}
	}
	return false
}

// errWriterGone is a transaction whose git process ended: the caller reads
// why from the process's exit (refWriter.end).
var errWriterGone = errors.New("git update-ref ended")

// transact runs one transaction. It returns nil when git committed it;
// otherwise the process is finished and its exit and stderr are returned.
func (w *refWriter) transact(ctx context.Context, zero string, updates []Update) (stderr string, err error) {
	var in bytes.Buffer
	in.WriteString("start\n")
	for _, u := range updates {
		old := u.Old
		if old == "" {
			old = zero
		}
		if u.noDeref {
			in.WriteString("option no-deref\n")
		}
		if u.New == "" {
			fmt.Fprintf(&in, "delete %s %s\n", u.Ref, old)
		} else {
			fmt.Fprintf(&in, "update %s %s %s\n", u.Ref, u.New, old)
		}
	}
	// commit goes with prepare, not after git answers it: git holds the
	// transaction's locks from prepare to commit, and a round trip through
	// this process in between held them longer than git's own commands
	// do. A kill -9 of the command's process group there left them, and
	// on reftable its tables.list.lock stops every ref write in the clone,
	// the user's commits too, until someone removes it (bench/soak met it
	// in about one kill trial in thirty). A prepare git refuses ends the
	// process before it reads the commit.
	in.WriteString("prepare\ncommit\n")
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	stop := context.AfterFunc(ctx, func() { w.cmd.Process.Kill() })
	defer stop()
	if _, err := w.in.Write(in.Bytes()); err != nil {
		return w.end()
	}
	for _, step := range []string{"start", "prepare", "commit"} {
		if !w.answered(step) {
			return w.end()
		}
	}
	return "", nil
}

// answered reads git's "<step>: ok".
func (w *refWriter) answered(step string) bool {
	line, err := w.out.ReadString('\n')
	return err == nil && line == step+": ok\n"
}

// end closes the process and returns what it said and how it exited.
func (w *refWriter) end() (string, error) {
	w.in.Close()
	err := w.cmd.Wait()
	if err == nil {
		err = errWriterGone
	}
	return w.stderr.String(), err
}

func (w *refWriter) close() error {
	w.in.Close()
	return w.cmd.Wait()
}

// abandon ends a writer that never started a transaction. Killed, not
// closed: at the end of its input a fresh update-ref commits the empty
// transaction it opened by default, running reference-transaction hooks
// for nothing. Idle, it holds no lock.
func (w *refWriter) abandon() {
	w.cmd.Process.Kill()
	w.in.Close()
	w.cmd.Wait()
}

// runUpdateRef runs one transaction of updates through the Store's
// update-ref for msg, starting one when there is none for msg.
func (s *Store) runUpdateRef(ctx context.Context, msg string, updates []Update) (string, error) {
	if n := killAfter(); n >= 0 {
		s.tornForTest(msg, updates, n)
	}
	// git reads the committer identity of its reflog entries when it
	// starts: a Store that lives on (serve, mcp) starts another once the
	// configuration it came from changed, or its entries would carry the
	// name the person had when it started.
	stamp := s.identStamp()
	reflog := refLogged(updates)
	s.mu.Lock()
	w := s.refw
	if w != nil && (w.msg != msg || w.stamp != stamp || w.reflog != reflog) {
		s.refw = nil
		w.close()
		w = nil
	}
	if a := s.refAhead; w == nil && a != nil && a.msg == msg && a.reflog == reflog {
		s.refAhead = nil
		if a.stamp == stamp {
			w = a
		} else {
			a.abandon()
		}
	}
	s.mu.Unlock()
	if w == nil {
		var err error
		if w, err = startRefWriter(s.workDir, msg, stamp, reflog); err != nil {
			return "", err
		}
	}
	stderr, err := w.transact(ctx, s.zeroID(), updates)
	s.mu.Lock()
	if err == nil {
		s.refw = w
	} else if s.refw == w {
		s.refw = nil
	}
	s.mu.Unlock()
	return strings.TrimSpace(stderr), err
}

// WriteRefsAhead starts the update-ref that a transaction under msg will
// run in, for a command that knows its message before it has read what it
// decides from: git then starts while those reads run. Transactions under
// other messages meanwhile run in their own processes; the one started
// here waits for its own (and ends, unused, with the Store).
func (s *Store) WriteRefsAhead(msg string) {
	w, err := startRefWriter(s.workDir, msg, s.identStamp(), true)
	if err != nil {
		return // the transaction starts its own, and says why it cannot
	}
	s.mu.Lock()
	old := s.refAhead
	s.refAhead = w
	s.mu.Unlock()
	if old != nil {
		old.abandon()
	}
}

// tornForTest leaves what a git update-ref killed after n of its renames
// leaves in the files backend — the first n updates made (reflog entries
// and all), a lock for each of the others (lockContent) — and kills
// this process, as a crash would, with the transaction's journal left
// behind. Only tests set killAfterEnv: it is how they check that the order
// a workflow gives its updates leaves every prefix harmless.
func (s *Store) tornForTest(msg string, updates []Update, n int) {
	zero := s.zeroID()
	for i, u := range updates {
		lock := filepath.Join(s.commonDir, filepath.FromSlash(u.Ref)+".lock")
		if i < n {
			old := u.Old
			if old == "" {
				old = zero
			}
			args := []string{"update-ref", "--create-reflog", "-m", msg, u.Ref, u.New, old}
			if u.New == "" {
				args = []string{"update-ref", "-m", msg, "-d", u.Ref, old}
			}
			Git(context.Background(), s.workDir, false, nil, args...)
			if u.New == "" {
				// git removes a deletion's lock last, after every
				// ref moved: it outlives the deleted ref.
				os.WriteFile(lock, lockContent(u), 0o666)
			}
			continue
		}
		os.MkdirAll(filepath.Dir(lock), 0o777)
		os.WriteFile(lock, lockContent(u), 0o666)
	}
	killSelf()
}

// lockContent is what git's files backend writes into the lock of u while
// it holds it: the new id, or nothing for a deletion.
func lockContent(u Update) []byte {
	if u.New == "" {
		return nil
	}
	return []byte(u.New + "\n")
}

// identStamp is what stat says of the configuration files a reflog
// identity comes from: the repository's and this worktree's, and the
// user's (GIT_CONFIG_GLOBAL, else ~/.gitconfig and the XDG file). Files
// pulled in by include are not watched.
type identStamp struct {
	repo [2]fileStamp
	user [2]fileStamp
}

func (s *Store) identStamp() identStamp {
	st := identStamp{repo: s.configStamp()}
	var user []string
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		user = []string{g}
	} else {
		home, _ := os.UserHomeDir()
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if home != "" {
			user = append(user, filepath.Join(home, ".gitconfig"))
		}
		if xdg != "" {
			user = append(user, filepath.Join(xdg, "git", "config"))
		}
	}
	for i, p := range user {
		if fi, err := os.Stat(p); err == nil {
			st.user[i] = fileStamp{ino: inodeOf(fi), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		}
	}
	return st
}
