package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/webui"
)

const defaultServeAddr = "127.0.0.1:3124"

// repoFlag collects --repo NAME=DIR values whole: a directory may hold a
// comma, which a string-slice flag would split.
type repoFlag struct{ values []string }

func (f *repoFlag) Set(v string) error { f.values = append(f.values, v); return nil }
func (f *repoFlag) String() string     { return strings.Join(f.values, " ") }

func serveCommand(d *deps) *cli.Command {
	repos := &repoFlag{}
	return &cli.Command{
		Name:  "serve",
		Usage: "a status page and JSON API for supervising agents: batons, sessions, leases, lineage and pull requests, with their actions",
		Description: "Serves the repository it is run in (project id: its directory's name), or each --repo.\n" +
			"The page shows the batons waiting and lately claimed, and every session with its worktree,\n" +
			"host, agent, state under tmux (with the last lines of a live agent's pane), objective,\n" +
			"summary and claimed baton, and the leases held. Its actions are the commands': launch\n" +
			"(session launch --tmux), attach (the session attach line to copy), restore, replace, switch\n" +
			"(the Agent dropdown), Continue in… (continue --in: the brief is previewed first; outside\n" +
			"tmux the page gives the command that starts the new agent), lease release (of your own\n" +
			"sessions' leases) and lease break (another's, with a reason), and dismiss, which asks first\n" +
			"and can be undone while the baton's tombstone is the current version of its ref.\n" +
			"It listens on loopback; another --addr prints a warning and needs a token, sent as\n" +
			"`Authorization: Bearer T`, because the API changes records. Changes are taken only from the\n" +
			"page's own origin carrying the page's token.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: defaultServeAddr, Usage: "listen on `HOST:PORT` (port 0: any free one)"},
			&cli.GenericFlag{Name: "repo", Value: repos, Usage: "serve the repository at `NAME=DIR` as project NAME (repeatable)"},
			&cli.BoolFlag{Name: "open", Usage: "open the page in a browser"},
			&cli.StringFlag{Name: "token", Usage: "require bearer token `T` on every request"},
			&cli.StringFlag{Name: "token-file", Usage: "read the bearer token from `FILE`"},
		},
		Action: func(c *cli.Context) error {
			return runServe(c, d, repos.values)
		},
	}
}

func runServe(c *cli.Context, d *deps, repoArgs []string) error {
	ctx, stop := untilInterrupted(c.Context)
	defer stop()
	token := c.String("token")
	if f := c.String("token-file"); f != "" {
		if token != "" {
			return usageErrorf(c, "give --token or --token-file, not both")
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading the token: %w", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return fmt.Errorf("reading the token: %s is empty", f)
		}
	}
	addr := c.String("addr")
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf(c, "--addr %q: %v", addr, err)
	}
	if !loopback(host) {
		if token == "" {
			return usageErrorf(c, "--addr %s is reachable from other machines: give --token or --token-file, since the API changes records", addr)
		}
		fmt.Fprintf(d.stderr, "warning: serving on %s, reachable from other machines: every request needs the token\n", addr)
	}
	repos, err := serveRepos(ctx, d, repoArgs)
	if err != nil {
		return err
	}
	srv, err := webui.New(webui.Options{
		Repos: repos, Token: token, Clock: d.Now, By: guardHolder(), Arbiter: arbiterFor(false),
		Launcher: launcher(), Exited: exitedCommand(),
		Connect: func(dir string) handoff.Connect {
			return func(ctx context.Context) (handoff.PRHost, error) {
				gh, _, err := ghpr.Connect(ctx, dir, "origin", os.Getenv)
				if err != nil {
					return nil, fmt.Errorf("connecting to GitHub: %w", err)
				}
				return gh, nil
			}
		},
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serving: %w", err)
	}
	url := "http://" + ln.Addr().String() + "/"
	names := make([]string, len(repos))
	for i, r := range repos {
		names[i] = r.Name
	}
	fmt.Fprintf(d.stderr, "serving %s on %s (Ctrl-C stops)\n", strings.Join(names, ", "), url)
	fmt.Fprintln(d.stdout, url)
	if f, ok := d.stdout.(interface{ Flush() error }); ok {
		f.Flush()
	}
	if c.Bool("open") {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(d.stderr, "warning: opening a browser: %v\n", err)
		}
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	// The change streams end with ctx; give other requests a moment.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}

// serveRepos is each --repo NAME=DIR, or the repository run in under its
// directory's name.
func serveRepos(ctx context.Context, d *deps, args []string) ([]webui.Repo, error) {
	if len(args) == 0 {
		st, err := d.Store(ctx)
		if err != nil {
			return nil, err
		}
		return []webui.Repo{{Name: filepath.Base(st.Dir()), Dir: st.Dir()}}, nil
	}
	var out []webui.Repo
	for _, a := range args {
		name, dir, ok := strings.Cut(a, "=")
		if !ok || name == "" || dir == "" {
			return nil, &usageError{msg: fmt.Sprintf("--repo %q: want NAME=DIR", a), help: helpFor("serve")}
		}
		st, err := refstore.Open(ctx, dir, refstore.Options{})
		if err != nil {
			return nil, fmt.Errorf("serving %s: %w", name, err)
		}
		out = append(out, webui.Repo{Name: name, Dir: st.Dir()})
		st.Close()
	}
	return out, nil
}

// loopback reports whether a listen host is this machine only; "" (every
// interface) is not.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func openBrowser(url string) error {
	name, args := "xdg-open", []string{url}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
