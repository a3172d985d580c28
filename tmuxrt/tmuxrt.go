// Package tmuxrt runs a session's coding agent in a tmux session of its own
// and answers what became of it. Everything goes through the tmux program,
// each value a separate argument, never a shell string.
//
// A server is named by its socket: Server{} is the user's own (tmux's
// default socket, under TMUX_TMPDIR as tmux itself decides), Server{Name: n}
// is tmux -L n, and Server{Path: p} (what a session record keeps, read back
// from the server that started the agent) is tmux -S p. Panes are kept after
// their program exits (remain-on-exit), so an agent that is gone can be told
// apart from one whose tmux session was killed, and its exit status read.
package tmuxrt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SocketEnv names a tmux socket (as tmux -L does) that agents run on
// instead of the user's default one.
const SocketEnv = "GIT_HANDOFF_TMUX_SOCKET"

// Kind is the runtime kind a session record names for tmux.
const Kind = "tmux"

// States of an agent's pane.
const (
	StateLive    = "live"    // the agent runs
	StateExited  = "exited"  // it exited; its pane lingers with the exit status
	StateGone    = "gone"    // its tmux session (or the whole server) is gone
	StateUnknown = "unknown" // tmux could not be asked
)

// ErrNoTmux says that the tmux program is not installed.
var ErrNoTmux = errors.New("tmux is not installed")

// Server is one tmux server, named by its socket.
type Server struct {
	Name string // tmux -L NAME; "" = the default
	Path string // tmux -S PATH; wins over Name
}

// FromEnv is the server agents run on: GIT_HANDOFF_TMUX_SOCKET's, else the
// user's default one.
func FromEnv() Server { return Server{Name: os.Getenv(SocketEnv)} }

func (s Server) args(rest ...string) []string {
	var a []string
	switch {
	case s.Path != "":
		a = []string{"-S", s.Path}
	case s.Name != "":
		a = []string{"-L", s.Name}
	}
	return append(a, rest...)
}

// Error is a tmux command that failed, with what tmux said.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("tmux %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

func (s Server) run(ctx context.Context, args ...string) (string, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return "", ErrNoTmux
	}
	args = s.args(args...)
	cmd := exec.CommandContext(ctx, "tmux", args...)
	// Inside tmux, TMUX names the server the user sits in; a socket we
	// name ourselves must not be second-guessed by it.
	cmd.Env = withoutTMUX(os.Environ())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), &Error{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.String(), nil
}

func withoutTMUX(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			out = append(out, kv)
		}
	}
	return out
}

// SessionName is the tmux session name for a git-handoff session id: tmux
// gives ':' and '.' meanings in targets, so only letters, digits, '-' and
// '_' are kept, and an id that had to change gets a hash of itself so two
// ids never share a name.
func SessionName(id string) string {
	var b strings.Builder
	changed := false
	for _, r := range id {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
			changed = true
		}
	}
	name := "handoff-" + b.String()
	if changed || len(name) > 80 {
		sum := sha256.Sum256([]byte(id))
		if len(name) > 70 {
			name = name[:70]
		}
		name += "-" + hex.EncodeToString(sum[:4])
	}
	return name
}

// Spec is what to run in a pane.
type Spec struct {
	Dir  string
	Env  []string // KEY=value, set for this program only
	Argv []string // program first
	// Launcher is a command that runs a launch file (ExecLaunchFile) and
	// becomes the program: tmux refuses a command longer than its message
	// size (16 KiB measured with tmux 3.3a), and an agent's first message
	// can be a whole brief. Such a command is written to a file only the
	// user can read, and Launcher FILE runs instead.
	Launcher []string
	// LaunchDir is where launch files go ("" = the system's temporary
	// directory).
	LaunchDir string
	// OnExit, when set, is a command tmux runs (in the background, in Dir,
	// its output discarded) whenever a program of the session's pane
	// exits: tmux's pane-died hook, set by Start for the session's life.
	// It outlives Respawn, and runs again when the new program exits.
	OnExit []string
}

// exitHook is OnExit as the tmux command of a pane-died hook: run-shell
// gives its argument to sh -c after expanding #{formats} in it, so every
// word is quoted for sh, then the whole for tmux's parser, and # doubled.
func (sp Spec) exitHook() string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `run-shell -b "` + r.Replace(jobCommand(sp.Dir, sp.OnExit)) + `"`
}

// jobCommand is argv, run in dir, as the argument of tmux's run-shell:
// given to sh -c after #{formats} are expanded, so every word is quoted
// for sh and # doubled.
func jobCommand(dir string, argv []string) string {
	var b strings.Builder
	if dir != "" {
		b.WriteString("cd " + shQuote(dir) + " && ")
	}
	b.WriteString("exec")
	for _, a := range argv {
		b.WriteString(" " + shQuote(a))
	}
	b.WriteString(" </dev/null >/dev/null 2>&1")
	return strings.ReplaceAll(b.String(), "#", "##")
}

// Background has the server run argv in dir as a job of its own, in the
// background, its output discarded: a process that outlives whoever asked
// for it and needs no terminal (a watcher of a pane), started the way the
// server starts its pane-died hook.
func (s Server) Background(ctx context.Context, dir string, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no program to run")
	}
	if _, err := s.run(ctx, "run-shell", "-b", jobCommand(dir, argv)); err != nil {
		return fmt.Errorf("starting %s under tmux: %w", argv[0], err)
	}
	return nil
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// maxDirect is the longest command passed to tmux as it is; a longer one
// goes through a launch file.
const maxDirect = 8 << 10

// launchFile is what a launch file holds.
type launchFile struct {
	Env  []string `json:"env"`
	Argv []string `json:"argv"`
}

// cmdArgs are tmux's -c/-e options and the command, and the launch file
// used, if one was ("" otherwise: nothing to remove). A single argument
// is run by tmux through sh -c, so the program is always reached through
// env with its arguments as separate words: no shell reads them.
func (sp Spec) cmdArgs() ([]string, string, error) {
	if len(sp.Argv) == 0 || sp.Argv[0] == "" {
		return nil, "", errors.New("no program to run")
	}
	var a []string
	if sp.Dir != "" {
		a = append(a, "-c", sp.Dir)
	}
	size := 0
	for _, kv := range sp.Env {
		if !strings.Contains(kv, "=") {
			return nil, "", fmt.Errorf("environment entry %q is not KEY=value", kv)
		}
		size += len(kv) + 4
	}
	for _, arg := range sp.Argv {
		size += len(arg) + 1
	}
	if size <= maxDirect {
		for _, kv := range sp.Env {
			a = append(a, "-e", kv)
		}
		a = append(a, "--", "env", "--")
		return append(a, sp.Argv...), "", nil
	}
	if len(sp.Launcher) == 0 {
		return nil, "", fmt.Errorf("the command is %d bytes, too long for tmux, and there is no launcher to pass it through a file", size)
	}
	f, err := os.CreateTemp(sp.LaunchDir, "handoff-launch-*.json") // mode 0600
	if err != nil {
		return nil, "", fmt.Errorf("writing the launch file: %w", err)
	}
	err = json.NewEncoder(f).Encode(launchFile{Env: sp.Env, Argv: sp.Argv})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, "", fmt.Errorf("writing the launch file: %w", err)
	}
	a = append(a, "--", "env", "--")
	a = append(a, sp.Launcher...)
	return append(a, f.Name()), f.Name(), nil
}

// ExecLaunchFile replaces this process with the command of a launch file,
// which it removes first (its pid, and so tmux's pane pid and exit status,
// become the program's).
func ExecLaunchFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the launch file: %w", err)
	}
	os.Remove(path)
	var lf launchFile
	if err := json.Unmarshal(raw, &lf); err != nil {
		return fmt.Errorf("reading the launch file %s: %w", path, err)
	}
	if len(lf.Argv) == 0 {
		return fmt.Errorf("the launch file %s names no program", path)
	}
	prog, err := exec.LookPath(lf.Argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(prog, lf.Argv, append(os.Environ(), lf.Env...))
}

// Start creates the detached tmux session name running sp, keeping its
// pane after the program exits. It returns the socket path the server
// answers on, to find it again from any environment.
//
// Measured with tmux 3.3a: right after the last session of a server is
// killed, the server is still going away, and a client that reaches it
// then fails with "server exited unexpectedly". Start tries again, a few
// times, while no session of that name came to be.
func (s Server) Start(ctx context.Context, name string, sp Spec) (string, error) {
	for attempt := 0; ; attempt++ {
		path, err := s.start(ctx, name, sp)
		if err == nil {
			return path, nil
		}
		if _, ok, perr := s.Pane(ctx, name); perr == nil && ok {
			out, derr := s.run(ctx, "display-message", "-p", "-t", "="+name+":", "#{socket_path}")
			if derr == nil {
				return strings.TrimSpace(out), nil
			}
		}
		var te *Error
		if !errors.As(err, &te) || attempt == 4 || ctx.Err() != nil {
			return "", err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s Server) start(ctx context.Context, name string, sp Spec) (string, error) {
	cmd, file, err := sp.cmdArgs()
	if err != nil {
		return "", fmt.Errorf("starting tmux session %s: %w", name, err)
	}
	// One tmux command list: remain-on-exit is set before the server
	// reaps the program, however fast that exits.
	args := append([]string{"new-session", "-d", "-s", name, "-x", "200", "-y", "50"}, cmd...)
	args = append(args, ";", "set-option", "-w", "-t", "="+name+":", "remain-on-exit", "on")
	if len(sp.OnExit) > 0 {
		args = append(args, ";", "set-hook", "-t", "="+name+":", "pane-died", sp.exitHook())
	}
	args = append(args, ";", "display-message", "-p", "-t", "="+name+":", "#{socket_path}")
	out, err := s.run(ctx, args...)
	if err != nil {
		if file != "" {
			os.Remove(file)
		}
		return "", fmt.Errorf("starting tmux session %s: %w", name, err)
	}
	return strings.TrimSpace(out), nil
}

// Pane is what tmux says of a session's (first) pane.
type Pane struct {
	Session    string
	ID         string // %N
	PID        int
	Dead       bool
	ExitStatus int // when Dead and not killed by a signal
	Signal     int // when Dead: the signal that killed it, 0 if none

	statusKnown bool
}

// State is the pane's state.
func (p Pane) State() string {
	if p.Dead {
		return StateExited
	}
	return StateLive
}

const paneFormat = "#{session_name}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}"

func parsePanes(out string) map[string]Pane {
	panes := map[string]Pane{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			continue
		}
		p := Pane{Session: f[0], ID: f[1], Dead: f[3] == "1", statusKnown: f[4] != "" || f[5] != ""}
		p.PID, _ = strconv.Atoi(f[2])
		p.ExitStatus, _ = strconv.Atoi(f[4])
		p.Signal, _ = strconv.Atoi(f[5])
		if _, seen := panes[p.Session]; !seen { // the first pane is the agent's
			panes[p.Session] = p
		}
	}
	return panes
}

// Panes asks the server once for the first pane of every session, by
// session name. No server running is no panes, not an error.
func (s Server) Panes(ctx context.Context) (map[string]Pane, error) {
	if s.Path != "" {
		if _, err := os.Stat(s.Path); errors.Is(err, os.ErrNotExist) {
			return map[string]Pane{}, nil
		}
	}
	out, err := s.run(ctx, "list-panes", "-a", "-F", paneFormat)
	if err != nil {
		if !s.running(ctx) {
			return map[string]Pane{}, nil
		}
		return nil, fmt.Errorf("asking tmux for its panes: %w", err)
	}
	panes := parsePanes(out)
	for _, p := range panes {
		if p.Dead && !p.statusKnown {
			// Measured with tmux 3.3a: now and then the server misses
			// a pane program's SIGCHLD and leaves it a zombie, its pane
			// dead without a status, until another child of the server
			// exits. A job that does nothing is such a child.
			if _, err := s.run(ctx, "run-shell", "true"); err == nil {
				if out, err := s.run(ctx, "list-panes", "-a", "-F", paneFormat); err == nil {
					panes = parsePanes(out)
				}
			}
			break
		}
	}
	return panes, nil
}

// running tells a server that failed to answer from one with nothing to
// say: no server (its socket file gone, or nothing listening), or one with
// no sessions left (it is going away: list-panes -a then fails with "no
// current target").
func (s Server) running(ctx context.Context) bool {
	if s.Path != "" {
		if _, err := os.Stat(s.Path); err != nil {
			return false
		}
	}
	out, err := s.run(ctx, "list-sessions", "-F", "#{session_name}")
	return err == nil && strings.TrimSpace(out) != ""
}

// Pane is the state of session name's pane; ok is false when that session
// does not exist.
func (s Server) Pane(ctx context.Context, name string) (Pane, bool, error) {
	panes, err := s.Panes(ctx)
	if err != nil {
		return Pane{}, false, err
	}
	p, ok := panes[name]
	return p, ok, nil
}

// Capture returns the last lines (at most maxLines) of session name's pane
// as text: tmux renders the screen and its history without escape
// sequences, wrapped lines joined. tmux's own "Pane is dead" line is left
// out.
func (s Server) Capture(ctx context.Context, name string, maxLines int) ([]byte, error) {
	out, err := s.run(ctx, "capture-pane", "-p", "-J", "-S", strconv.Itoa(-maxLines), "-t", "="+name+":")
	if err != nil {
		return nil, fmt.Errorf("capturing tmux session %s: %w", name, err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n \t"), "\n")
	if n := len(lines); n > 0 && strings.HasPrefix(lines[n-1], "Pane is dead") {
		lines = lines[:n-1]
	}
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// Stop ends the program in session name's pane and keeps the pane: SIGTERM
// to its process group, then, if it is still there after grace, SIGKILL.
// A pane already dead is left as it is. The pane's program is a session
// leader (tmux starts it with setsid), so its group is its own pid.
func (s Server) Stop(ctx context.Context, name string, grace time.Duration) error {
	p, ok, err := s.Pane(ctx, name)
	if err != nil {
		return err
	}
	if !ok || p.Dead {
		return nil
	}
	if p.PID <= 1 {
		return fmt.Errorf("stopping tmux session %s: tmux gave no pane pid", name)
	}
	if err := syscall.Kill(-p.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping tmux session %s: %w", name, err)
	}
	if s.waitDead(ctx, name, grace) {
		return nil
	}
	if err := syscall.Kill(-p.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing tmux session %s's program: %w", name, err)
	}
	if s.waitDead(ctx, name, 5*time.Second) {
		return nil
	}
	return fmt.Errorf("stopping tmux session %s: pid %d outlived SIGKILL", name, p.PID)
}

// waitDead polls until the pane is dead or gone, at most d.
func (s Server) waitDead(ctx context.Context, name string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		p, ok, err := s.Pane(ctx, name)
		if err == nil && (!ok || p.Dead) {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Respawn runs sp in session name's existing pane, killing what still runs
// there: the pane, its window and whoever is attached stay.
func (s Server) Respawn(ctx context.Context, name string, sp Spec) error {
	cmd, file, err := sp.cmdArgs()
	if err != nil {
		return fmt.Errorf("respawning tmux session %s: %w", name, err)
	}
	if _, err := s.run(ctx, append([]string{"respawn-pane", "-k", "-t", "=" + name + ":"}, cmd...)...); err != nil {
		if file != "" {
			os.Remove(file)
		}
		return fmt.Errorf("respawning tmux session %s: %w", name, err)
	}
	return nil
}

// Kill destroys session name; one that does not exist is no error.
func (s Server) Kill(ctx context.Context, name string) error {
	if _, err := s.run(ctx, "kill-session", "-t", "="+name); err != nil {
		if _, still, perr := s.Pane(ctx, name); perr == nil && !still {
			return nil
		}
		return fmt.Errorf("killing tmux session %s: %w", name, err)
	}
	return nil
}

// AttachArgv is the tmux command that attaches a terminal to session name.
// From inside a tmux client of the same server it switches that client
// instead of nesting (inTMUX is $TMUX: "socket,pid,session").
func (s Server) AttachArgv(name, inTMUX string) []string {
	if inTMUX != "" && s.Path != "" {
		if sock, _, _ := strings.Cut(inTMUX, ","); sock == s.Path {
			return append([]string{"tmux"}, s.args("switch-client", "-t", "="+name)...)
		}
	}
	return append([]string{"tmux"}, s.args("attach-session", "-t", "="+name)...)
}
