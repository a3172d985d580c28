package agenthook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// EventPreToolUse: the agent is about to run a tool. An edit or write of a
// file under a path lease another session holds is refused, with a reason
// the model reads; everything else (reads, shells, searches) goes on
// untouched. It answers from this clone's refs alone and fails open: an
// error allows the tool. It also renews the calling session's leases that
// are due (one turn may outlast a lease's TTL; the end of the turn renews
// them too), and a renewal's failure never refuses anything.
//
// Its cost is paid on every write the agent makes, so it is kept to what
// the answer needs: a tool that writes nothing runs no git at all (and the
// installed matcher keeps most of them from starting the hook); a write in
// a repository whose files show no lease ref runs no git either
// (refstore.Peek); otherwise one `git for-each-ref` reads the leases whole.
// Only when a path lease may cover the file is the store opened (a
// rev-parse), and the session's own ids looked up only when one does; only
// when a lease of the calling session may be due (notes, no git) is the
// store opened for the renewal.

// writeTool reads the files a tool call would write from its arguments;
// nil for a call that writes nothing (Copilot's editor viewing a file).
type writeTool func(args map[string]any) []string

// preToolUse answers EventPreToolUse: the agent's deny when a file the
// tool writes is leased to another session, else nil (allowed).
func preToolUse(ctx context.Context, p protocol, harnessName, dir string, in input, stderr io.Writer, wf Workflows) any {
	tool := in.tool()
	read, ok := p.writes[tool]
	if !ok || p.deny == nil {
		return nil
	}
	args, err := in.toolArgs()
	if err != nil {
		fmt.Fprintf(stderr, "git-handoff: agent hook: %s arguments: %v (allowed)\n", tool, err)
		return nil
	}
	paths := read(args)
	if len(paths) == 0 {
		return nil
	}
	r := newHookRepo(dir)
	defer r.close()
	if r.peeked && !r.peek.MayHold(lease.Prefix) {
		return nil // no lease ref: nothing to guard, nothing to renew
	}
	held, err := handoff.ListHeldLeases(ctx, dir)
	var ge *refstore.GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
		return nil // a plugin's hooks run in every folder: outside a repository nothing is leased
	}
	if err != nil {
		fmt.Fprintf(stderr, "git-handoff: agent hook: checking path leases: %v (allowed)\n", err)
		return nil
	}
	var answer any
	blocks, err := leaseBlocks(ctx, r, harnessName, in.SessionID, held.Paths, paths, wf.Now)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "git-handoff: agent hook: checking path leases: %v (allowed)\n", err)
	case len(blocks) > 0:
		answer = p.deny(blockReason(blocks))
	}
	if err := renewDue(ctx, r, wf, harnessName, in.SessionID, held.All); err != nil {
		fmt.Fprintf(stderr, "git-handoff: agent hook: renewing this session's leases: %v\n", err)
	}
	return answer
}

// hookRepo is the repository as far as the pre-tool hook needed it: what
// its files say (refstore.Peek, read once), and a Store, opened once (one
// rev-parse) only when git must be asked.
type hookRepo struct {
	dir    string
	peek   refstore.Peeked
	peeked bool
	// bound is the worktree's binding as its file says, when boundKnown
	// (read once, when first asked).
	bound            string
	boundKnown, read bool
	st               *refstore.Store
}

func newHookRepo(dir string) *hookRepo {
	r := &hookRepo{dir: dir}
	r.peek, r.peeked = refstore.Peek(dir)
	return r
}

// binding is Peeked.BoundSession, read once: known false when the files
// cannot say.
func (r *hookRepo) binding() (string, bool) {
	if !r.read && r.peeked {
		r.bound, r.boundKnown = r.peek.BoundSession()
	}
	r.read = true
	return r.bound, r.boundKnown
}

func (r *hookRepo) store(ctx context.Context) (*refstore.Store, error) {
	if r.st != nil {
		return r.st, nil
	}
	st, err := refstore.Open(ctx, r.dir, refstore.Options{Lazy: true})
	if err != nil {
		return nil, err
	}
	r.st = st
	return st, nil
}

func (r *hookRepo) close() {
	if r.st != nil {
		r.st.Close()
	}
}

// leaseBlocks asks handoff.LeaseGuard about paths (absolute, or relative
// to dir) under the held path leases. The Store is opened (one rev-parse,
// for the top of the worktree) only when some held lease may cover a path
// at all, which needs no git: a file's path from the top of the worktree
// is one of the tails of its real path (mayCover).
func leaseBlocks(ctx context.Context, r *hookRepo, harnessName, nativeID string, held []handoff.PathLease, paths []string, now handoff.Clock) ([]handoff.LeaseBlock, error) {
	if len(held) == 0 {
		return nil, nil
	}
	base, err := filepath.Abs(r.dir)
	if err != nil {
		return nil, err
	}
	resolved := make([]string, len(paths))
	for i, p := range paths {
		resolved[i] = realPath(base, p)
	}
	if !mayCover(held, resolved) {
		return nil, nil
	}
	st, err := r.store(ctx)
	if err != nil {
		return nil, err
	}
	top := st.Layout().WorkTree
	if top == "" {
		return nil, nil // a bare repository has no files to write
	}
	var rel []string
	for _, p := range resolved {
		if p, ok := inWorktree(top, p); ok {
			rel = append(rel, p)
		}
	}
	opts := handoff.LeaseGuardOptions{Harness: harnessName, NativeID: nativeID, Paths: rel}
	opts.Bound, opts.BoundKnown = r.binding()
	return handoff.LeaseGuard(ctx, st, held, opts, now)
}

// renewDue renews the calling session's leases when one of held may be
// due, decided from the notes in the repository's files (no git), the
// worktree's binding read from its file too where Peek can (asked of git
// only when it decides, in a reftable), and the Store opened (a
// rev-parse) only where Peek could not find the git dirs.
func renewDue(ctx context.Context, r *hookRepo, wf Workflows, harnessName, nativeID string, held []lease.Stored) error {
	if len(held) == 0 {
		return nil
	}
	c := handoff.LeaseRenewalCheck{Harness: harnessName, NativeID: nativeID}
	if r.peeked {
		c.Clone, c.Worktree = refstore.NotesIn(r.peek.CommonDir), refstore.NotesIn(r.peek.GitDir)
		c.Bound, c.BoundKnown = r.binding()
		c.AskBound = func() (string, error) { return refstore.BoundSessionOf(ctx, r.dir) }
	} else {
		st, err := r.store(ctx)
		if err != nil {
			return err
		}
		c.Clone, c.Worktree, c.AskBound = st.Local(), st.WorktreeLocal(), st.BoundSession
	}
	if !handoff.LeaseRenewalMayBeDue(held, c, wf.Now()) {
		return nil
	}
	return wf.RenewLeases(ctx, r.dir, handoff.AgentRenewOptions{Harness: harnessName, NativeID: nativeID})
}

// realPath is p (absolute, or relative to base) with the symbolic links of
// its directories resolved, as git's paths are: the agent may name the
// file through a link (macOS's /tmp), and the file may not exist yet, so
// the nearest directory above it that exists is resolved.
func realPath(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	dir, rest := p, ""
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// inWorktree is the real path p's path from the top of the worktree top
// (a real path, as git gives it), with forward slashes; false for a path
// outside it.
func inWorktree(top, p string) (string, bool) {
	r, err := filepath.Rel(top, p)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// mayCover reports whether some lease of held matches some tail of one of
// the real paths ("c", "b/c", "a/b/c" of /a/b/c). The worktree's top is
// a directory above a file in it, so the file's path from the top is one
// of those tails: when no lease matches any of them, none covers the
// file, wherever the top is, and the hook needs not ask git where it is.
func mayCover(held []handoff.PathLease, real []string) bool {
	for _, p := range real {
		p = filepath.ToSlash(p)
		for i := len(p) - 1; i >= 0; i-- {
			if p[i] != '/' || i == len(p)-1 {
				continue
			}
			for _, l := range held {
				if l.Pattern.Match(p[i+1:]) {
					return true
				}
			}
		}
	}
	return false
}

// blockReason is what the model reads: who holds each file, until when,
// and what to do instead.
func blockReason(blocks []handoff.LeaseBlock) string {
	lines := make([]string, 0, len(blocks))
	for _, b := range blocks {
		l := b.Lease
		who := "session " + l.Session
		if l.Agent != "" {
			who = l.Agent + " " + who
		}
		if l.Owner != "" {
			who += " of " + l.Owner
		}
		lease := l.Key
		if l.Note != "" {
			lease += ": " + l.Note
		}
		lines = append(lines, fmt.Sprintf("%s is leased to %s until %s (%s); take another task or ask",
			b.Path, who, b.FreesAt.Local().Format("15:04"), lease))
	}
	return strings.Join(lines, "\n")
}

func (in input) tool() string {
	if in.ToolName != "" {
		return in.ToolName
	}
	return in.ToolNameCamel
}

// toolArgs are the tool call's arguments: an object, or (Copilot's
// toolArgs) a string holding one.
func (in input) toolArgs() (map[string]any, error) {
	raw := in.ToolInput
	if len(raw) == 0 {
		raw = in.ToolArgs
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = []byte(s)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	return args, nil
}

// pathArg reads the file path a tool takes under one of keys.
func pathArg(keys ...string) writeTool {
	return func(args map[string]any) []string {
		for _, k := range keys {
			if s, ok := args[k].(string); ok && s != "" {
				return []string{s}
			}
		}
		return nil
	}
}

// patchPaths reads the files an apply_patch envelope touches (Codex's
// format: "*** Add File: p", "*** Update File: p", "*** Delete File: p",
// "*** Move to: p"), from the argument that carries the patch.
func patchPaths(keys ...string) writeTool {
	return func(args map[string]any) []string {
		var out []string
		for _, k := range keys {
			s, _ := args[k].(string)
			for _, line := range strings.Split(s, "\n") {
				line = strings.TrimSpace(line)
				for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
					if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
						out = append(out, strings.TrimSpace(p))
					}
				}
			}
		}
		return out
	}
}
