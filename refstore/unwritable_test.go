package refstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// unwritableChildEnv makes the test binary the unprivileged child of
// TestUnwritableRefsSaySo: it names the repository to write in.
const unwritableChildEnv = "GIT_HANDOFF_TEST_UNWRITABLE_REPO"

// With refs/ao/ made read-only, git refuses a ref whose directory it must
// create with "unable to create directory for …" and no reason (start,
// claim, cancel, dismiss write such a ref first; a sync's fetch makes
// tracking refs so): each write says the operating system's reason. Root
// ignores permissions, so as root the writes run in a child process as
// user nobody (setpriv); otherwise in this process.
func TestUnwritableRefsSaySo(t *testing.T) {
	if repo := os.Getenv(unwritableChildEnv); repo != "" {
		if err := unwritableWrites(repo); err != nil {
			t.Fatal(err)
		}
		return
	}
	gittest.Isolate(t)
	remote := gittest.Init(t)
	gittest.Run(t, remote, "update-ref", "refs/ao/handoffs/r", "HEAD")
	repo := gittest.Init(t)
	gittest.Run(t, repo, "remote", "add", "origin", remote)
	gittest.Run(t, repo, "update-ref", "refs/ao/handoffs/a", "HEAD")
	if _, err := os.Stat(filepath.Join(repo, ".git", "reftable")); err == nil {
		t.Skip("the reftable backend keeps no ref in a directory of refs/ao/ to make read-only")
	}
	if err := filepath.WalkDir(filepath.Join(repo, ".git", "refs", "ao"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chmod(p, 0o555)
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // so that the test's directories can be removed
		filepath.WalkDir(filepath.Join(repo, ".git", "refs", "ao"), func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	if os.Geteuid() != 0 {
		if err := unwritableWrites(repo); err != nil {
			t.Fatal(err)
		}
		return
	}
	setpriv := gittest.Need(t, "setpriv", "util-linux")
	const nobody = "65534"
	for _, dir := range []string{repo, remote} {
		opened(t, dir)
		if out, err := exec.Command("chown", "-R", nobody, dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v\n%s", err, out)
		}
	}
	bin := copyTestBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, setpriv, "--reuid="+nobody, "--regid="+nobody, "--clear-groups", bin, "-test.run=^TestUnwritableRefsSaySo$", "-test.v")
	c.Dir = repo
	c.Env = append(gittest.Env("/nonexistent"), "GIT_CONFIG_GLOBAL="+os.DevNull, unwritableChildEnv+"="+repo)
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestUnwritableRefsSaySo") {
		t.Fatalf("the writes as user nobody: %v\n%s", err, out)
	}
}

// unwritableWrites makes each kind of write into the read-only refs/ao/ and
// checks that its error says why.
func unwritableWrites(repo string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := Open(ctx, repo, Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	head, err := Git(ctx, repo, false, nil, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	oid := strings.TrimSpace(string(head))
	var errs []error
	check := func(what string, err error) {
		switch {
		case err == nil:
			errs = append(errs, errors.New(what+": written into a read-only directory"))
		case !errors.Is(err, fs.ErrPermission) || !strings.Contains(strings.ToLower(err.Error()), "permission denied"):
			errs = append(errs, errors.New(what+": the error does not say why: "+err.Error()))
		}
	}
	// A ref in a directory git must create (as the inflight refs that
	// keep a new record's objects from gc are).
	check("a ref in a new directory", st.Apply(ctx, "test", Update{Ref: "refs/ao/inflight/x/y", New: oid}))
	// A ref in a directory that is there: git's own message says it.
	err = st.Apply(ctx, "test", Update{Ref: "refs/ao/handoffs/b", New: oid})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "permission denied") {
		errs = append(errs, errors.New("a ref in a read-only directory: "+errString(err)))
	}
	// A fetch that makes tracking refs.
	check("a fetch", st.Fetch(ctx, "origin", false, "+refs/ao/handoffs/*:refs/ao/remotes/origin/handoffs/*"))
	return errors.Join(errs...)
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// opened lets other users into dir: every directory from the temporary
// directory's root down to dir is made searchable (t.TempDir makes them
// private), and dir's contents readable.
func opened(t *testing.T, dir string) {
	t.Helper()
	root := filepath.Clean(os.TempDir())
	for d := dir; strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// copyTestBinary copies this test binary where another user can run it.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opened(t, dir)
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	p := filepath.Join(dir, filepath.Base(self))
	out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}
