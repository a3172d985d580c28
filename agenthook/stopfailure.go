package agenthook

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// FailureWorkflow is what a Workflows answers an agent's failure hook with
// (EventStopFailure): it decides whether the session continues in a
// fallback agent, runs that, and returns what the user is to be told. A
// Workflows without it leaves failures alone.
type FailureWorkflow interface {
	Failed(ctx context.Context, dir string, opts handoff.AgentFailureOptions) (message string, notices []string, err error)
}

// systemMessage is the hook output field Claude Code shows the user.
type systemMessage struct {
	SystemMessage string `json:"systemMessage"`
}

// stopFailure answers EventStopFailure: the message for the user, also
// written to stderr (where the agent logs its hooks) so that it is found
// where the output is not shown.
func stopFailure(ctx context.Context, harnessName, dir string, in input, stderr io.Writer, wf Workflows) any {
	fw, ok := wf.(FailureWorkflow)
	if !ok {
		return nil
	}
	msg, notices, err := fw.Failed(ctx, dir, handoff.AgentFailureOptions{
		Harness: harnessName, NativeID: in.SessionID, Error: in.Error, Details: in.ErrorDetails, Message: in.LastAssistantMessage,
	})
	for _, n := range notices {
		fmt.Fprintf(stderr, "git-handoff: agent hook: %s\n", n)
	}
	if err != nil && !errors.Is(err, refstore.ErrNotRepository) {
		fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
	}
	if msg == "" {
		return nil
	}
	fmt.Fprintf(stderr, "git-handoff: %s\n", msg)
	return systemMessage{SystemMessage: "git-handoff: " + msg}
}
