package ghprtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// adminPrefix holds the fake's own endpoints, outside any API prefix so no
// GitHub call can reach them by mistake.
const adminPrefix = "/_fake/"

// Dump is what GET /_fake/state answers and what serve -state-file writes.
type Dump struct {
	State    State     `json:"state"`
	Requests []Request `json:"requests"`
	Failures []string  `json:"failures"`
}

func (s *Server) dump() Dump {
	st := s.State()
	s.mu.Lock()
	defer s.mu.Unlock()
	return Dump{State: st, Requests: append([]Request{}, s.requests...), Failures: append([]string{}, s.failures...)}
}

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == adminPrefix+"state":
		writeJSON(w, reply{status: 200, body: s.dump()})
	case r.Method == http.MethodPost && r.URL.Path == adminPrefix+"seed":
		var st State
		if err := json.NewDecoder(r.Body).Decode(&st); err != nil {
			writeJSON(w, errorReply(http.StatusBadRequest, err.Error()))
			return
		}
		s.Update(func(cur *State) { *cur = st })
		writeJSON(w, reply{status: http.StatusNoContent})
	case r.Method == http.MethodPost && r.URL.Path == adminPrefix+"fault":
		var f Fault
		if err := json.NewDecoder(r.Body).Decode(&f); err != nil {
			writeJSON(w, errorReply(http.StatusBadRequest, err.Error()))
			return
		}
		s.AddFault(f)
		writeJSON(w, reply{status: http.StatusNoContent})
	default:
		writeJSON(w, errorReply(http.StatusNotFound, "admin endpoints: GET state, POST seed, POST fault"))
	}
}

// LoadState reads a seed file (a JSON State).
func LoadState(path string) (State, error) {
	var st State
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return st, fmt.Errorf("seed %s: %w", path, err)
	}
	return st, nil
}

const usage = `usage:
  fakegithub serve [-seed FILE] [-url-file FILE] [-env-file FILE] [-state-file FILE] [-enterprise] [-prefix /p/]
      listen on 127.0.0.1:0 until SIGINT/SIGTERM; write the REST base URL to
      -url-file, GITHUB_API_URL/GITHUB_GRAPHQL_URL/FAKEGITHUB_ADMIN lines to
      -env-file, and the final state, requests and failures to -state-file.
      Exits 1 if any request did not match GitHub's description.
  fakegithub state URL-FILE          print the live state (JSON) of a running fake
  fakegithub fault URL-FILE JSON     queue a fault, e.g. '{"op":"pulls/get","status":404}'
  fakegithub seed URL-FILE FILE      replace the state of a running fake
`

// Main is the standalone fake as a command, for end-to-end scripts: build
// ghpr/ghprtest/cmd/fakegithub, or register Main as a testscript command.
func Main() { os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr)) }

// Run is Main without the exit, for tests.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		return serveMain(args[1:], stderr)
	case "state":
		err = adminCall(args[1:], 1, func(base string, _ []string) error {
			resp, err := http.Get(base + "state")
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, err = io.Copy(stdout, resp.Body)
			return err
		})
	case "fault":
		err = adminCall(args[1:], 2, func(base string, rest []string) error {
			return post(base+"fault", []byte(rest[0]))
		})
	case "seed":
		err = adminCall(args[1:], 2, func(base string, rest []string) error {
			st, err := LoadState(rest[0])
			if err != nil {
				return err
			}
			b, _ := json.Marshal(st)
			return post(base+"seed", b)
		})
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "fakegithub:", err)
		return 1
	}
	return 0
}

func serveMain(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakegithub serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.String("seed", "", "seed state (JSON)")
	urlFile := fs.String("url-file", "", "write the REST base URL here")
	envFile := fs.String("env-file", "", "write GITHUB_API_URL=, GITHUB_GRAPHQL_URL=, FAKEGITHUB_ADMIN= lines here")
	stateFile := fs.String("state-file", "", "on exit, write state, requests and failures here")
	enterprise := fs.Bool("enterprise", false, "Enterprise Server layout: /api/v3/ and /api/graphql")
	prefix := fs.String("prefix", "/prefix/", "REST prefix when not -enterprise")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := []Option{Prefix(*prefix)}
	if *enterprise {
		opts = append(opts, Enterprise())
	}
	if *seed != "" {
		st, err := LoadState(*seed)
		if err != nil {
			fmt.Fprintln(stderr, "fakegithub:", err)
			return 1
		}
		opts = append(opts, WithState(st))
	}
	s, err := Start(opts...)
	if err != nil {
		fmt.Fprintln(stderr, "fakegithub:", err)
		return 1
	}
	defer s.Close()
	// Written last and renamed into place, so a script that waits for the
	// file never reads half a URL or reaches a server not yet listening.
	if *envFile != "" {
		env := fmt.Sprintf("GITHUB_API_URL=%s\nGITHUB_GRAPHQL_URL=%s\nFAKEGITHUB_ADMIN=%s\n", s.URL, s.GraphQLURL, s.AdminURL)
		if err := writeAtomic(*envFile, env); err != nil {
			fmt.Fprintln(stderr, "fakegithub:", err)
			return 1
		}
	}
	if *urlFile != "" {
		if err := writeAtomic(*urlFile, s.URL); err != nil {
			fmt.Fprintln(stderr, "fakegithub:", err)
			return 1
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	d := s.dump()
	if *stateFile != "" {
		b, _ := json.MarshalIndent(d, "", "  ")
		if err := os.WriteFile(*stateFile, b, 0o644); err != nil {
			fmt.Fprintln(stderr, "fakegithub:", err)
			return 1
		}
	}
	for _, f := range d.Failures {
		fmt.Fprintln(stderr, "fakegithub: request not GitHub's:", f)
	}
	if len(d.Failures) > 0 {
		return 1
	}
	return 0
}

func writeAtomic(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// adminCall reads the base URL a serve wrote and derives the admin root from
// it (same host, fixed path).
func adminCall(args []string, n int, f func(base string, rest []string) error) error {
	if len(args) != n {
		return errors.New("wrong number of arguments\n" + usage)
	}
	var raw []byte
	var err error
	// The server may still be starting: wait a little for its URL file.
	for i := 0; i < 100; i++ {
		if raw, err = os.ReadFile(args[0]); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	api := strings.TrimSpace(string(raw))
	scheme, rest, ok := strings.Cut(api, "://")
	if !ok {
		return fmt.Errorf("%s: not a URL: %q", args[0], api)
	}
	host, _, _ := strings.Cut(rest, "/")
	return f(scheme+"://"+host+adminPrefix, args[1:])
}

func post(url string, body []byte) error {
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s", resp.Status, b)
	}
	return nil
}
