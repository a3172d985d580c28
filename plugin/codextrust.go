package plugin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Codex runs a plugin's hooks only once the user trusted them: its /hooks
// screen records, per hook, the hash of the definition trusted, as
// [hooks.state."<key>"] trusted_hash in $CODEX_HOME/config.toml; a hook
// whose definition changes is untrusted again. `plugin install codex` is
// the user asking for exactly these hooks, so it records that trust the
// way Codex does, through Codex itself: `codex app-server`'s hooks/list
// gives each hook's key and the hash Codex computes for it, and
// config/batchWrite records it. Nothing of Codex's hashing or file format
// is copied here.

// codexTrustTimeout bounds the whole exchange with codex app-server.
const codexTrustTimeout = time.Minute

// codexHook is one hook as codex app-server's hooks/list reports it.
type codexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	PluginID    string `json:"pluginId"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	Enabled     bool   `json:"enabled"`
}

// appServer is a running `codex app-server`, spoken to in JSON-RPC, one
// message a line.
type appServer struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

func startAppServer(ctx context.Context, e Env) (*appServer, error) {
	bin, err := e.LookPath("codex")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "app-server")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting `codex app-server`: %w", err)
	}
	s := &appServer{cmd: cmd, in: in, out: bufio.NewReader(out)}
	if _, err := s.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "git-handoff", "version": "1"}}); err != nil {
		s.close()
		return nil, err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *appServer) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.in.Write(append(b, '\n'))
	return err
}

// call sends one request and returns its result, skipping the
// notifications the server sends meanwhile.
func (s *appServer) call(method string, params any) (json.RawMessage, error) {
	s.next++
	id := s.next
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("codex app-server %s: %w", method, err)
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("codex app-server %s: no answer (%v)", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != id || m.Method != "" {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("codex app-server %s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

func (s *appServer) close() {
	s.in.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// pluginHooks lists the plugin's hooks as Codex sees them.
func (s *appServer) pluginHooks() ([]codexHook, error) {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = os.TempDir()
	}
	raw, err := s.call("hooks/list", map[string]any{"cwds": []string{cwd}})
	if err != nil {
		return nil, err
	}
	var res struct {
		Data []struct {
			Hooks []codexHook `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("codex app-server hooks/list: %w", err)
	}
	var out []codexHook
	seen := map[string]bool{}
	for _, d := range res.Data {
		for _, h := range d.Hooks {
			if h.PluginID == Name+"@"+Name && !seen[h.Key] {
				seen[h.Key] = true
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// trustCodexHooks records the user's trust in each hook of the plugin
// Codex lists that is not trusted in its current definition, and checks
// that Codex then lists every one as trusted. It returns the events of the
// hooks it trusted.
func trustCodexHooks(ctx context.Context, e Env) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, codexTrustTimeout)
	defer cancel()
	s, err := startAppServer(ctx, e)
	if err != nil {
		return nil, err
	}
	defer s.close()
	hooks, err := s.pluginHooks()
	if err != nil {
		return nil, err
	}
	if len(hooks) == 0 {
		return nil, fmt.Errorf("codex lists no hook of the %s plugin", Name)
	}
	var edits []map[string]any
	var events []string
	for _, h := range hooks {
		if h.TrustStatus == "trusted" || h.CurrentHash == "" {
			continue
		}
		edits = append(edits, map[string]any{
			// A quoted key: the hook's key holds dots.
			"keyPath":       "hooks.state." + strconv.Quote(h.Key) + ".trusted_hash",
			"value":         h.CurrentHash,
			"mergeStrategy": "replace",
		})
		events = append(events, h.EventName)
	}
	if len(edits) == 0 {
		return nil, nil
	}
	if _, err := s.call("config/batchWrite", map[string]any{"edits": edits}); err != nil {
		return nil, err
	}
	after, err := s.pluginHooks()
	if err != nil {
		return nil, err
	}
	var still []string
	for _, h := range after {
		if h.TrustStatus != "trusted" {
			still = append(still, h.EventName+" ("+h.TrustStatus+")")
		}
	}
	if len(still) > 0 {
		return nil, fmt.Errorf("after recording trust, codex still lists hooks of the plugin as not trusted: %s", strings.Join(still, ", "))
	}
	return events, nil
}
