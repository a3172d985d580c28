//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// detach starts this binary with args in dir, in a session of its own
// (an agent that ends its hook's process group does not end it), with
// nothing open to the hook's pipes (the agent waits for those to close),
// and does not wait for it.
func detach(dir string, args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = "git-handoff" // as git runs it: the binary may be a test's
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
