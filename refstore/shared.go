package refstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// In a repository with core.sharedRepository set, git gives every file and
// directory it creates the group's (or everyone's) permissions whatever the
// umask (adjust_shared_perm in git's path.c), so that teammates sharing the
// repository can all write it. What we create in process must follow the
// same rule, or the next teammate's git fails on our directory.

// sharedPerm reads core.sharedRepository as git does (git_config_perm):
// 0 leaves the umask alone; a positive value is ORed into modes (0660 for
// "group", 0664 for "all"); a negative one replaces them (an octal mode).
func parseSharedPerm(v string) int {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "umask", "false", "no", "off", "0":
		return 0
	case "group", "true", "yes", "on", "1":
		return 0o660
	case "all", "world", "everybody", "2":
		return 0o664
	}
	n, err := strconv.ParseInt(v, 8, 32)
	if err != nil || n&0o600 != 0o600 {
		// git refuses such a repository; do as little as we can.
		return 0
	}
	return -int(n & 0o666)
}

// sharedMode is git's calc_shared_perm plus what adjust_shared_perm adds
// for directories: the execute bits where read is allowed, and setgid so
// new entries keep the directory's group.
func sharedMode(shared int, mode uint32, dir bool) uint32 {
	tweak := uint32(shared)
	if shared < 0 {
		tweak = uint32(-shared)
	}
	if mode&0o200 == 0 {
		tweak &^= 0o222
	}
	if mode&0o100 != 0 {
		tweak |= (tweak & 0o444) >> 2
	}
	if shared < 0 {
		mode = mode&^0o777 | tweak
	} else {
		mode |= tweak
	}
	if dir {
		mode |= (mode & 0o444) >> 2
		mode |= syscall.S_ISGID
	}
	return mode
}

// sharedPerm returns the repository's core.sharedRepository as
// parseSharedPerm reads it, looked up once per Store.
func (s *Store) sharedPerm(ctx context.Context) int {
	s.sharedOnce.Do(func() {
		s.shared = parseSharedPerm(s.localConfig().get("core.sharedrepository"))
	})
	return s.shared
}

// Share gives path the permissions git would have given it had git created
// it in this repository (nothing to do unless core.sharedRepository is
// set). For files and directories that git-handoff itself creates under
// the git directory.
func (s *Store) Share(ctx context.Context, path string) error {
	shared := s.sharedPerm(ctx)
	if shared == 0 {
		return nil
	}
	return adjustShared(shared, path)
}

// MkdirAll makes dir (under the git directory) and its missing parents
// with the permissions git gives directories in this repository.
func (s *Store) MkdirAll(ctx context.Context, dir string) error {
	root := s.commonDir
	if !strings.HasPrefix(dir, root+string(filepath.Separator)) {
		root = filepath.Dir(dir)
		for root != "/" && !Exists(root) {
			root = filepath.Dir(root)
		}
	}
	return mkdirShared(s.sharedPerm(ctx), root, dir)
}

func adjustShared(shared int, path string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	old := uint32(st.Mode) // uint16 on some systems
	want := sharedMode(shared, old&0o7777, old&syscall.S_IFMT == syscall.S_IFDIR)
	if want == old&0o7777 {
		return nil
	}
	if err := syscall.Chmod(path, want); err != nil {
		return &fs.PathError{Op: "chmod", Path: path, Err: err}
	}
	return nil
}

// mkdirShared makes dir and its missing parents up to (not including)
// root, each with the shared permissions when shared != 0.
//
// git pack-refs removes empty ref directories while we create them, so a
// parent that vanished between two steps is made again, a few times.
func mkdirShared(shared int, root, dir string) error {
	var err error
	for tries := 0; tries < 8; tries++ {
		if err = mkdirSharedOnce(shared, root, dir); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

func mkdirSharedOnce(shared int, root, dir string) error {
	if shared == 0 {
		return os.MkdirAll(dir, 0o777)
	}
	var missing []string
	for d := dir; d != root && len(d) > len(root); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := adjustShared(shared, missing[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteNote puts data at path, a note of git-handoff's own under the git
// directory, whole: written beside it and renamed into place, so a reader
// sees the old note or the new one, never half. Its directories and the
// note get the permissions git gives its own files here (group-writable in
// a core.sharedRepository repository), so a teammate's process can rewrite
// or settle it.
func (s *Store) WriteNote(ctx context.Context, path string, data []byte) error {
	if err := s.MkdirAll(ctx, filepath.Dir(path)); err != nil {
		return err
	}
	// A temp file of its own: two goroutines of one process (the MCP
	// server, the page) writing one note at once must not rename each
	// other's away (found when a failed note write began to fail the
	// record's write: TestClaimRace).
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = s.Share(ctx, tmp)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
