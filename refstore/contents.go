package refstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ListContents lists the refs under prefix of the repository dir is in,
// each with its object, in ref order, through one `git for-each-ref` that
// prints every object after its ref (%(raw)), without opening a Store.
//
// It is for a small namespace read whole, often, by a process that asks
// nothing else: the path leases an agent's pre-tool hook reads before
// every write, where RefIDs and a cat-file would be two git processes and
// a round trip an object. Not for a large one: for-each-ref holds every
// object it read until it has printed the last (EachStreamed says so).
// An object larger than MaxRecord comes with Data nil, as Get gives it.
// A failure of git is a *GitError (outside a repository, its Stderr says
// "not a git repository").
func ListContents(ctx context.Context, dir, prefix string) ([]Entry, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, err
	}
	args := []string{"for-each-ref", "--format=%(objectname) %(objecttype) %(objectsize) %(refname)%0a%(raw)", prefix}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.WaitDelay = time.Second
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, &GitError{Args: args, Err: err}
	}
	// Read while git prints, so that an object past MaxRecord is passed
	// over rather than held.
	entries, perr := parseContents(bufio.NewReader(stdout))
	if perr != nil {
		cmd.Process.Kill()
	}
	if err := cmd.Wait(); err != nil {
		return nil, &GitError{Args: args, Stderr: errb.String(), Err: err}
	}
	return entries, perr
}

// parseContents reads ListContents's output: for each ref a line "id type
// size refname", then size bytes of the object and the newline
// for-each-ref ends each ref's output with.
func parseContents(r *bufio.Reader) ([]Entry, error) {
	var out []Entry
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if line == "" && errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("git for-each-ref: unexpected end of output after %q", line)
		}
		f := strings.SplitN(strings.TrimSuffix(line, "\n"), " ", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("git for-each-ref: unexpected line %q", line)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("git for-each-ref: unexpected line %q", line)
		}
		e := Entry{OID: f[0], Type: f[1], Size: size, Ref: f[3]}
		if e.Data, err = readSized(r, size); err != nil {
			return nil, fmt.Errorf("git for-each-ref: %s: %w", e.Ref, err)
		}
		out = append(out, e)
	}
}
