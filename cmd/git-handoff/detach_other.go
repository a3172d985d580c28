//go:build !unix

package main

import "errors"

// detach is not done here: the work runs in the hook's own process.
func detach(dir string, args ...string) error {
	return errors.New("no detached processes on this system")
}
