package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The remote's pre-receive hook: each push is held a random time up to
// the stall, and a random share of pushes is refused, as a slow or strict
// server would. It reads its settings from files beside it, so the
// harness can turn it off for the final syncs.
const stallHook = `#!/bin/sh
cat >/dev/null
d=$(dirname "$0")
: > "$d/soak-began"
min=$(cat "$d/soak-min" 2>/dev/null || echo 0)
stall=$(cat "$d/soak-stall" 2>/dev/null || echo 0)
refuse=$(cat "$d/soak-refuse" 2>/dev/null || echo 0)
set -- $(awk -v s="$$$(date +%N)" -v mn="$min" -v st="$stall" -v rf="$refuse" 'BEGIN { srand(s % 2147483647); printf "%.3f %d\n", mn + rand() * (st - mn), (rand() * 100 < rf) }')
[ "$1" = 0.000 ] || sleep "$1"
if [ "$2" = 1 ]; then
	echo "soak: refused at random" >&2
	exit 1
fi
exit 0
`

// refusedMark is what a push the hook refused carries back to the client
// (git prefixes the hook's stderr with "remote: ").
const refusedMark = "soak: refused at random"

// hook installs the remote's pre-receive hook with a stall of up to stall
// and refuse percent of pushes refused; hook(0, 0) makes it accept every
// push at once. The hook touches hooks/soak-began when it begins.
func (h *harness) hook(stall time.Duration, refuse int) error {
	return h.hookRange(0, stall, refuse)
}

// hookRange is hook with a stall of at least min.
func (h *harness) hookRange(min, stall time.Duration, refuse int) error {
	dir := filepath.Join(h.remote, "hooks")
	if err := os.WriteFile(filepath.Join(dir, "soak-min"), []byte(fmt.Sprintf("%.3f\n", min.Seconds())), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "soak-stall"), []byte(fmt.Sprintf("%.3f\n", stall.Seconds())), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "soak-refuse"), []byte(fmt.Sprintf("%d\n", refuse)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "pre-receive"), []byte(stallHook), 0o755)
}

// receivedHook is the remote's post-receive hook: it keeps, beside the
// reflog, every baton version the remote accepted (soak-received/log, one
// "<blob> <ref>" a line, and each blob's content in soak-received/<blob>).
// Retiring a baton ref deletes the ref, and git deletes a ref's reflog
// with it, so once a ref retires the remote's reflog no longer names the
// versions it held before its last one (a claim a later end replaced,
// say), and the blobs of those versions are unreachable, for the next
// gc --prune=now to remove. The observation reads this log as the
// remote's reflog. Short lines appended with O_APPEND do not interleave,
// so hooks of concurrent pushes can share the log. soak-received/chain
// has every update of a baton ref, deletions too, with the old value the
// push was leased on, whether the remote still held that object, and the
// git-handoff command that pushed it: the order in which decisions landed.
const receivedHook = `#!/bin/sh
d="$(dirname "$0")/../soak-received"
mkdir -p "$d" || exit 0
who=$PPID
for _ in 1 2 3 4 5 6; do
	case "$(cat /proc/$who/comm 2>/dev/null)" in git-handoff) break ;; esac
	who=$(awk '{print $4}' /proc/$who/stat 2>/dev/null)
	[ -n "$who" ] || break
done
pusher=$(tr '\0' ' ' </proc/$who/cmdline 2>/dev/null)
while read old new ref; do
	case "$ref" in refs/ao/handoffs/*) ;; *) continue ;; esac
	had=1; git cat-file -e "$old" 2>/dev/null || had=0
	printf '%s %s %s %s old-present=%s pid=%s %s\n' "$(date +%s.%N)" "$old" "$new" "$ref" "$had" "$who" "$pusher" >>"$d/chain"
	case "$new" in *[!0]*) ;; *) continue ;; esac
	[ -e "$d/$new" ] || { git cat-file blob "$new" >"$d/$new.$$" && mv "$d/$new.$$" "$d/$new"; }
	printf '%s %s\n' "$new" "$ref" >>"$d/log"
done
exit 0
`

// leasesTakenTwice reads receivedHook's chain: the versions of a baton ref
// the remote took more pushes leased on than it was written there (once,
// but where a late copy or a heal pushed it back), one line each, naming
// the pushes. Every baton version is a blob of its own, so two pushes
// leased on one version written once, both taken, are a remote whose
// leases did not hold (git's files backend, its
// packed-refs rewritten by the pack-refs and gc beside them: receive-pack
// checks a lease against the packed-refs it read when it advertised its
// refs, trusted while its size, inode and second look the same). Shown,
// not judged: what git-handoff did with such an answer is in the other
// figures (the twice of seed 1006 was one).
func leasesTakenTwice(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "chain"))
	if err != nil {
		return nil
	}
	type take struct{ new, pusher string }
	takes := map[[2]string][]take{} // ref, old -> the pushes taken
	written := map[[2]string]int{}  // ref, version -> pushes that wrote it
	var order [][2]string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.SplitN(l, " ", 7)
		if len(f) < 6 || !hexID(f[1]) || !hexID(f[2]) {
			continue
		}
		written[[2]string{f[3], f[2]}]++
		if strings.Trim(f[1], "0") == "" {
			continue
		}
		k := [2]string{f[3], f[1]}
		if takes[k] == nil {
			order = append(order, k)
		}
		pusher := ""
		if len(f) == 7 {
			pusher = strings.TrimSpace(f[6])
		}
		takes[k] = append(takes[k], take{new: f[2], pusher: pusher})
	}
	var out []string
	for _, k := range order {
		if len(takes[k]) <= max(1, written[k]) {
			continue
		}
		var ts []string
		for _, t := range takes[k] {
			ts = append(ts, fmt.Sprintf("%.12s by %q", t.new, t.pusher))
		}
		out = append(out, fmt.Sprintf("%s: leased on %.12s and taken %d times: %s", k[0], k[1], len(takes[k]), strings.Join(ts, "; ")))
	}
	return out
}

// receivedDir is where receivedHook keeps the remote's accepted versions.
func (h *harness) receivedDir() string { return filepath.Join(h.remote, "soak-received") }

// unhook removes the remote's pre-receive hook.
func (h *harness) unhook() { os.Remove(filepath.Join(h.remote, "hooks", "pre-receive")) }

// hookBegan is the file the hook touches when it begins.
func (h *harness) hookBegan() string { return filepath.Join(h.remote, "hooks", "soak-began") }

// dirs are the clones' directories.
func (h *harness) dirs() []string {
	var out []string
	for _, c := range h.names {
		out = append(out, h.clones[c])
	}
	return out
}

// recentBaton is the id of one of the last batons an end wrote ("" when
// none yet), for dismiss.
func (h *harness) recentBaton(rng *rand.Rand) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ids []string
	for i := len(h.ops) - 1; i >= 0 && len(ids) < 8; i-- {
		if op := h.ops[i]; op.Kind == "end" && op.BatonID != "" {
			ids = append(ids, op.BatonID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return ids[rng.IntN(len(ids))]
}

// daemon starts a long-lived git-handoff process in a clone, in its own
// process group (a stop kills the group).
type daemon struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
}

func (h *harness) daemon(ctx context.Context, clone string, args ...string) (*daemon, error) {
	cmd := exec.Command(h.bin, args...)
	cmd.Dir, cmd.Env = h.clones[clone], h.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := os.Create(filepath.Join(h.dir, args[0]+"-"+clone+".stderr"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stderr.Close()
	return &daemon{cmd: cmd, stdin: in, stdout: bufio.NewReaderSize(out, 1<<20)}, nil
}

func (d *daemon) stop() {
	d.stdin.Close()
	syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
	d.cmd.Wait()
}

// webWriter runs the status page on clone (`git handoff serve`) and, until
// the deadline, dismisses a random waiting baton it lists through
// DELETE /api/handoffs/{id}, as the page's Dismiss button does. Each
// DELETE is an op of kind web-dismiss: exit 0 for 200, 5 for 409, 6 for
// 404, 1 otherwise.
func webWriter(ctx context.Context, h *harness, rng *rand.Rand, clone string, deadline time.Time) error {
	const token = "soak-token"
	d, err := h.daemon(ctx, clone, "serve", "--addr", "127.0.0.1:0", "--repo", "soak="+h.clones[clone], "--token", token)
	if err != nil {
		return fmt.Errorf("starting the status page: %w", err)
	}
	defer d.stop()
	line, err := d.stdout.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http") {
		return fmt.Errorf("the status page printed no address (%q, %v)", line, err)
	}
	base := strings.TrimRight(strings.TrimSpace(line), "/")
	client := &http.Client{Timeout: 2 * time.Minute}
	do := func(method, path string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, method, base+path, nil)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Origin", base)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	for time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-time.After(time.Duration(100+rng.IntN(400)) * time.Millisecond):
		case <-ctx.Done():
			return nil
		}
		code, body, err := do(http.MethodGet, "/api/handoffs?project=soak")
		if err != nil || code != http.StatusOK {
			continue
		}
		var list struct {
			Items []struct {
				ID      string          `json:"id"`
				Claimed bool            `json:"claimed"`
				Deleted json.RawMessage `json:"deleted"`
			} `json:"items"`
		}
		if json.Unmarshal(body, &list) != nil {
			continue
		}
		var ids []string
		for _, it := range list.Items {
			if !it.Claimed && (len(it.Deleted) == 0 || string(it.Deleted) == "null") {
				ids = append(ids, it.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		id := ids[rng.IntN(len(ids))]
		op := Op{Kind: "web-dismiss", Clone: clone, BatonID: id, Args: []string{"DELETE", "/api/handoffs/" + id}, Start: h.now()}
		code, body, err = do(http.MethodDelete, "/api/handoffs/"+id+"?project=soak")
		op.Finish = h.now()
		var v map[string]any
		json.Unmarshal(body, &v)
		switch {
		case err != nil:
			op.Exit, op.Unclear = 1, "request: "+err.Error()
		case code == http.StatusOK:
			if dis, _ := v["dismissed"].(bool); dis {
				op.Cancelled = markersIn(v)
			}
		case code == http.StatusConflict:
			op.Exit = 5
		case code == http.StatusNotFound:
			op.Exit = 6
		default:
			op.Exit = 1
			if !strings.Contains(string(body), refusedMark) {
				op.Unclear = fmt.Sprintf("HTTP %d: %s", code, firstLines(string(body), 2))
			}
		}
		if op.Exit != 0 {
			op.Stderr = firstLines(string(body), 3)
		}
		op.Notices = claimNotices(v, fmt.Sprint(v["error"]))
		h.record(op)
	}
	return nil
}

// mcpWriter runs `git handoff mcp` on clone and, until the deadline, calls
// session_start (a new session, which claims the eligible baton of the
// clone's own owner on main) or cancel_handoff, one at a time, as an agent
// would. Ops of kind mcp-start and mcp-cancel: exit 0, or 5 for a tool
// error (isError, the command's message).
func mcpWriter(ctx context.Context, h *harness, rng *rand.Rand, clone string, deadline time.Time) error {
	d, err := h.daemon(ctx, clone, "mcp")
	if err != nil {
		return fmt.Errorf("starting the MCP server: %w", err)
	}
	defer d.stop()
	id := 0
	call := func(method string, params any) (json.RawMessage, error) {
		id++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := d.stdin.Write(append(b, '\n')); err != nil {
			return nil, err
		}
		for {
			line, err := d.stdout.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("reading the MCP server: %w", err)
			}
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue // a notification, or a log line
			}
			if len(resp.Error) > 0 && string(resp.Error) != "null" {
				return nil, fmt.Errorf("%s: %s", method, resp.Error)
			}
			return resp.Result, nil
		}
	}
	if _, err := call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "soak", "version": "1"}}); err != nil {
		return err
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	d.stdin.Write(append(b, '\n'))
	for time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-time.After(time.Duration(100+rng.IntN(400)) * time.Millisecond):
		case <-ctx.Done():
			return nil
		}
		op := Op{Clone: clone, Owner: "soak@example.com", Branch: "main"}
		var res json.RawMessage
		if rng.IntN(3) == 0 {
			op.Kind, op.Args = "mcp-cancel", []string{"cancel_handoff"}
			op.Start = h.now()
			res, err = call("tools/call", map[string]any{"name": "cancel_handoff", "arguments": map[string]any{}})
		} else {
			op.Session = "m-" + strings.TrimPrefix(h.marker(), "soak.")
			op.Kind, op.Args = "mcp-start", []string{"session_start", op.Session}
			op.Start = h.now()
			res, err = call("tools/call", map[string]any{"name": "session_start", "arguments": map[string]any{"session": op.Session}})
		}
		op.Finish = h.now()
		if err != nil {
			op.Exit, op.Unclear = 1, err.Error()
			h.record(op)
			return err
		}
		var r struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
		}
		if json.Unmarshal(res, &r) != nil {
			op.Exit, op.Unclear = 1, "not a tool result: "+firstLines(string(res), 2)
			h.record(op)
			continue
		}
		text := ""
		for _, c := range r.Content {
			text += c.Text + "\n"
		}
		v := r.StructuredContent
		if r.IsError {
			op.Exit, op.Stderr = 5, firstLines(text, 3)
		} else if v == nil {
			op.Exit, op.Unclear = 1, "no structured result: "+firstLines(text, 2)
		}
		// The text content is the brief or a sentence: read notices from
		// the structure, and from the text only of an error.
		if r.IsError {
			op.Notices = claimNotices(nil, text)
		} else {
			op.Notices = claimNotices(v, "")
		}
		if v != nil && !r.IsError {
			handed, _ := v["handoff"].(map[string]any) // the baton, in the CLI's --json shape
			baton, _ := handed["id"].(string)
			switch op.Kind {
			case "mcp-start":
				if c, _ := v["claimed"].(bool); c {
					op.Won, op.BatonID = true, baton
				}
			case "mcp-cancel":
				if c, _ := v["cancelled"].(bool); c {
					op.BatonID = baton
				}
			}
		}
		h.record(op)
	}
	return nil
}
