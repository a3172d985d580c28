// Command git-handoff is run by git as `git handoff`: it hands work from one
// coding-agent session to the next through records kept in the repository.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	detachProcess = detach
	code := run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)
	os.Exit(code)
}

// untilInterrupted is ctx until the user interrupts the command, for the
// commands that run until told to stop (serve, mcp): they shut down
// cleanly. The others keep the default, which ends them at once: each
// leaves what a kill leaves, which the next command settles (refstore's
// journal, handoff's pending claims), and a signal handler costs every
// short command a thread of its own and a tenth of a millisecond.
func untilInterrupted(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt)
}
