//go:build lean

package main

// The lean build is the git-handoff that git runs for every `git handoff`
// and every hook, so what it links is paid at each start: Go initialises
// every linked package before main. It links no HTTP stack, no GitHub
// client, no MCP SDK and no web page (about 4 ms of each start, more than
// the rest of `end` or `start`). The commands that need them hand the whole
// invocation to git-handoff-full, the build with everything, installed next
// to it: `pr`, `serve`, `mcp` and `session replace`, none of which is run at
// a session's start or end. A brief for a session that owns a pull request
// asks git-handoff-full for that pull request's facts.
//
// `go build ./cmd/git-handoff` without the lean tag makes the full build,
// which needs nothing beside it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/session"
)

// fullName is the full build's program name.
const fullName = "git-handoff-full"

// forge: the lean build keeps no GitHub connection.
type forge struct{}

func prCommand(d *deps) *cli.Command {
	return d.delegated("pr", "pull request ownership: claim, show, status, route, release")
}

func serveCommand(d *deps) *cli.Command {
	return d.delegated("serve", "a status page and JSON API: batons, sessions, lineage and pull requests, with dismiss and agent switch")
}

func mcpCommand(d *deps) *cli.Command {
	return d.delegated("mcp", "serve the handoff workflows as MCP tools over stdio")
}

func sessionReplaceCommand(d *deps) *cli.Command {
	return d.delegated("replace", "replace a session with a new one, recording why (one ref transaction)")
}

// delegated is a command the full build runs: its name and usage, for
// help, and an action that becomes git-handoff-full with the same command
// line. (TestLeanHelpMatchesFull keeps name and usage the full build's.)
func (d *deps) delegated(name, usage string) *cli.Command {
	return &cli.Command{
		Name:            name,
		Usage:           usage,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			full, err := findFull()
			if err != nil {
				return err
			}
			// Exec, not a child: the full build gets the terminal, the
			// signals and the exit code as if git had started it.
			return syscall.Exec(full, append([]string{full}, d.args[1:]...), os.Environ())
		},
	}
}

// findFull finds git-handoff-full beside this program (where make install
// puts it), else on PATH.
func findFull() (string, error) {
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), fullName)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(fullName); err == nil {
		return p, nil
	}
	return "", withHint(errors.New("this command needs "+fullName+" (the build of git-handoff with GitHub, the status page and the MCP server), which is neither beside this git-handoff nor on PATH"),
		"run `make install` in git-handoff's source, or build without the lean tag: go build ./cmd/git-handoff")
}

// prFacts asks the full build for the facts of the pull request p.
func (d *deps) prFacts(ctx context.Context, p *session.PRPointer) (string, []string) {
	full, err := findFull()
	if err != nil {
		return handoff.PRFactsFailed(p, err)
	}
	cmd := exec.CommandContext(ctx, full, "pr", "facts", "--repo", p.Repo, "--number", strconv.Itoa(p.Number), "--url", p.URL)
	if st, err := d.Store(ctx); err == nil {
		cmd.Dir = st.Dir()
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return handoff.PRFactsFailed(p, err)
	}
	var res prFactsJSON
	if err := json.Unmarshal(out, &res); err != nil {
		return handoff.PRFactsFailed(p, fmt.Errorf("reading %s's answer: %w", fullName, err))
	}
	return res.Markdown, res.Notices
}
