package sign

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Keys are the git config keys Load reads, as refstore.Store.Config
// returns them (lower case).
var Keys = []string{
	"handoff.sign", "handoff.requiresigned",
	"gpg.format", "user.signingkey", "user.email",
	"gpg.program", "gpg.openpgp.program", "gpg.x509.program", "gpg.ssh.program",
	"gpg.ssh.allowedsignersfile",
}

// Config is the signing setup of one repository.
type Config struct {
	// Enabled: records written are signed.
	Enabled bool
	// RequireSigned: handoff.requireSigned, what delivery demands.
	RequireSigned bool
	Format        string // "openpgp" (git's default), "ssh" or "x509"
	Key           string // user.signingKey; for openpgp, user.email when unset
	// Programs by format: gpg.<format>.program, gpg.program for openpgp.
	Programs       map[string]string
	AllowedSigners string // gpg.ssh.allowedSignersFile, "" when unset
	Dir            string // where relative paths and programs are resolved
}

// Load builds the setup from git config values. handoff.sign is "auto"
// by default: sign when user.signingKey names a key; "true" signs (with
// the committer's email as the key id for openpgp, as git does) and fails
// the write when it cannot; "false" never signs.
func Load(vals map[string]string, dir string) (Config, error) {
	c := Config{
		Format: strings.ToLower(strings.TrimSpace(vals["gpg.format"])),
		Key:    strings.TrimSpace(vals["user.signingkey"]),
		Programs: map[string]string{
			"openpgp": "gpg", "x509": "gpgsm", "ssh": "ssh-keygen",
		},
		Dir: dir,
	}
	if c.Format == "" {
		c.Format = "openpgp"
	}
	if _, ok := c.Programs[c.Format]; !ok {
		return Config{}, fmt.Errorf("gpg.format %q: git-handoff signs with openpgp, x509 or ssh", c.Format)
	}
	if p := strings.TrimSpace(vals["gpg.program"]); p != "" {
		c.Programs["openpgp"] = p
	}
	for _, f := range []string{"openpgp", "x509", "ssh"} {
		if p := strings.TrimSpace(vals["gpg."+f+".program"]); p != "" {
			c.Programs[f] = p
		}
	}
	if p := strings.TrimSpace(vals["gpg.ssh.allowedsignersfile"]); p != "" {
		c.AllowedSigners = c.path(p)
	}
	mode := strings.ToLower(strings.TrimSpace(vals["handoff.sign"]))
	switch {
	case mode == "" || mode == "auto":
		c.Enabled = c.Key != ""
	default:
		b, ok := parseBool(mode)
		if !ok {
			return Config{}, fmt.Errorf("handoff.sign %q: want auto, true or false", vals["handoff.sign"])
		}
		c.Enabled = b
	}
	if c.Enabled && c.Key == "" {
		if c.Format == "ssh" {
			return Config{}, fmt.Errorf("handoff.sign is true but user.signingKey names no ssh key")
		}
		c.Key = strings.TrimSpace(vals["user.email"])
		if c.Key == "" {
			return Config{}, fmt.Errorf("handoff.sign is true but neither user.signingKey nor user.email names a key")
		}
	}
	if v := strings.TrimSpace(vals["handoff.requiresigned"]); v != "" {
		b, ok := parseBool(strings.ToLower(v))
		if !ok {
			return Config{}, fmt.Errorf("handoff.requireSigned %q: want true or false", v)
		}
		c.RequireSigned = b
	}
	return c, nil
}

func parseBool(s string) (bool, bool) {
	switch s {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// path resolves a configured path as git does: a leading ~ is the home
// directory; a relative one is taken from the repository's directory.
func (c Config) path(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if !filepath.IsAbs(p) && c.Dir != "" {
		p = filepath.Join(c.Dir, p)
	}
	return p
}

// run runs a signing program with stdin, returning stdout; a failure
// carries the program's own stderr.
func (c Config) run(ctx context.Context, prog string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = c.Dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		if msg != "" {
			return out.Bytes(), fmt.Errorf("%s %s: %w: %s", filepath.Base(prog), args[0], err, msg)
		}
		return out.Bytes(), fmt.Errorf("%s %s: %w", filepath.Base(prog), args[0], err)
	}
	return out.Bytes(), nil
}

// tempFile writes data to a private temporary file for a program that
// reads it only from a path; remove it when done.
func tempFile(pattern string, data []byte) (string, func(), error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	name := f.Name()
	done := func() { os.Remove(name) }
	if _, err := f.Write(data); err != nil {
		f.Close()
		done()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		done()
		return "", nil, err
	}
	return name, done, nil
}
