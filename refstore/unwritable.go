package refstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// UnwritableError is a ref write git refused because a directory of refs
// cannot be written (made read-only, owned by another user, on a
// read-only file system). git says only "unable to create directory for
// <ref>" there, without the reason: the reason is the operating system's,
// learnt by trying what git tried.
type UnwritableError struct {
	Dir string // the directory that could not be written
	Err error  // the operating system's reason (fs.ErrPermission, EROFS)
	Git error  // git's own refusal
}

func (e *UnwritableError) Error() string {
	why := e.Err.Error()
	var pe *os.PathError
	if errors.As(e.Err, &pe) {
		why = pe.Err.Error()
	}
	return fmt.Sprintf("cannot write refs in %s: %s (%v)", e.Dir, why, e.Git)
}

func (e *UnwritableError) Unwrap() []error { return []error{e.Err, e.Git} }

// unwritableRefDir explains git's "unable to create directory for PATH":
// PATH is relative to dir, where git ran. It returns nil when the message
// is not that one, or when the nearest directory of PATH that exists can
// be written after all (git pack-refs removing empty directories under
// git's feet fails the same way: that is worth another try, not a
// diagnosis).
func unwritableRefDir(dir, stderr string, gitErr error) error {
	const marker = "unable to create directory for "
	i := strings.Index(stderr, marker)
	if i < 0 {
		return nil
	}
	p, _, _ := strings.Cut(stderr[i+len(marker):], "\n")
	p = strings.TrimSpace(p)
	if p == "" {
		return nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	// The nearest directory that exists is where git had to create one.
	d := filepath.Dir(p)
	for {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
	probe, err := os.MkdirTemp(d, ".handoff-probe-")
	if err == nil {
		os.Remove(probe)
		return nil
	}
	return &UnwritableError{Dir: d, Err: err, Git: gitErr}
}
