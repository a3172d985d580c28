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
	"strings"
	"sync"
	"syscall"
	"time"
)

// repoEnvVars are the variables git sets for hooks and aliases that pin a
// command to one repository. Inherited by a git process aimed at another
// repository they would make it act on the wrong one (GIT_INDEX_FILE is even
// relative), so CleanEnv drops them.
var repoEnvVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX",
	"GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_QUARANTINE_PATH",
	"GIT_PUSH_OPTION_COUNT", "GIT_EXEC_PATH_OVERRIDE",
}

// CleanEnv returns env without the variables that tie git to one repository.
func CleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if isRepoEnvVar(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func isRepoEnvVar(name string) bool {
	for _, v := range repoEnvVars {
		if name == v {
			return true
		}
	}
	return strings.HasPrefix(name, "GIT_PUSH_OPTION_")
}

// GitError is a git process that exited non-zero. Its message carries git's
// own stderr, which names the file or ref at fault.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	msg = strings.TrimPrefix(msg, "fatal: ")
	msg = strings.TrimPrefix(msg, "error: ")
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", firstArg(e.Args), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// ExitCode is git's exit status, or -1 when it did not run to an exit.
func (e *GitError) ExitCode() int {
	var ee *exec.ExitError
	if errors.As(e.Err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// noSuchKey reports a `git config --get*` that found nothing: exit status 1,
// whatever GIT_TRACE may have written to stderr.
func noSuchKey(err error) bool {
	var ge *GitError
	return errors.As(err, &ge) && ge.ExitCode() == 1
}

func firstArg(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C":
			i++ // its value
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return strings.Join(args, " ")
}

// Git runs git with args in dir and returns its stdout. stdin may be nil.
// When clean is true the repository-pinning variables are dropped first,
// which is required whenever dir is not the repository a hook runs for.
func Git(ctx context.Context, dir string, clean bool, stdin []byte, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := runGit(ctx, dir, clean, stdin, &out, args...)
	return out.Bytes(), err
}

// gitLines runs git like Git and hands each line of its output, without
// its newline, to fn as git writes it: a listing of thousands of refs
// costs its lines, one string each, and no buffer of the whole (list
// --all at 100,000 batons kept one, and its slack, for its whole run).
// The first error fn returns is returned once git has finished.
func gitLines(ctx context.Context, dir string, fn func(line string) error, args ...string) error {
	lw := &lineWriter{fn: fn}
	err := runGit(ctx, dir, false, nil, lw, args...)
	if len(lw.partial) > 0 && lw.err == nil {
		lw.err = fn(string(lw.partial)) // a last line without its newline
	}
	if err != nil {
		return err
	}
	return lw.err
}

// lineWriter cuts what is written into lines for fn.
type lineWriter struct {
	fn      func(string) error
	partial []byte // the start of a line a later write ends
	err     error
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.partial = append(w.partial, p...)
			break
		}
		var line string
		if len(w.partial) > 0 {
			w.partial = append(w.partial, p[:i]...)
			line = string(w.partial)
			w.partial = w.partial[:0]
		} else {
			line = string(p[:i])
		}
		p = p[i+1:]
		if w.err == nil {
			w.err = w.fn(line)
		}
	}
	return n, nil
}

// runGit runs git with args in dir, its output written to out; the error
// is a *GitError with what git said.
func runGit(ctx context.Context, dir string, clean bool, stdin []byte, out io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	// A git killed by ctx may leave children holding its output open (a
	// transport's ssh, a remote's upload-pack that stalls): do not wait
	// for them longer than this once git itself is gone.
	cmd.WaitDelay = time.Second
	cmd.Dir = dir
	inOwnGroup(cmd)
	if clean {
		cmd.Env = CleanEnv(os.Environ())
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var errb bytes.Buffer
	cmd.Stdout = out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		gerr := &GitError{Args: args, Stderr: errb.String(), Err: err}
		if uerr := unwritableRefDir(dir, gerr.Stderr, gerr); uerr != nil {
			return uerr // a fetch into read-only refs: say why
		}
		return gerr
	}
	return nil
}

// ownGroup reports whether git with args runs in a process group of its
// own (startCoprocess says why): every git that cannot ask the user
// anything, and, when git-handoff has no terminal to ask on (an agent's
// harness, a hook), every git. A git that may ask for credentials (fetch,
// push, ls-remote) stays in the terminal's foreground group, where it can
// read it.
func ownGroup(args []string) bool {
	i := 0
	for i < len(args) && (args[i] == "-c" || args[i] == "-C") {
		i += 2
	}
	if i < len(args) {
		switch args[i] {
		case "fetch", "push", "ls-remote":
			return !hasTerminal()
		}
	}
	return true
}

// inOwnGroup puts cmd, a git to start, in a process group of its own when
// ownGroup says so.
func inOwnGroup(cmd *exec.Cmd) {
	if ownGroup(cmd.Args[1:]) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
}

// hasTerminal reports whether this process has a controlling terminal.
var hasTerminal = sync.OnceValue(func() bool {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
})

// startCoprocess starts a long-lived git (cat-file --batch, update-ref
// --stdin, hash-object --stdin-paths) in dir and returns its pipes. Not
// CommandContext: the process outlives the context of the first request
// it serves; each request watches its own.
//
// It runs in a process group of its own. A kill of git-handoff's group
// (an agent's harness ending its tool's process tree, a terminal's ^C)
// then kills git-handoff alone, and git finishes as it does when its
// input ends: update-ref commits a transaction it has read whole (commit
// goes with prepare, refwriter.go) and aborts any other, removing its
// locks. Killed in the middle, git left its locks: on reftable,
// tables.list.lock, which stops every ref write of the clone until
// someone removes it. None of these gits reads the terminal, which a git
// outside the terminal's foreground group could not (fetch and push can
// ask for credentials, and stay in the caller's group).
func startCoprocess(dir string, stderr io.Writer, args ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stderr = stderr
	inOwnGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("starting git %s: %w", args[0], err)
	}
	return cmd, in, bufio.NewReader(out), nil
}
