package handoff

import (
	"context"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// agentTurn keeps what an agent's end of turn (or its compaction) says of
// its session: the agent's last message, as the session's summary, which
// a replacement's package and an automatic handoff quote; and the time,
// which says the agent acted on what it was given (handOver). Failures are
// notices: the agent's turn goes on regardless.
func agentTurn(ctx context.Context, st refstore.Clone, s session.Record, harnessName string, opts AgentStopOptions, clock Clock) []string {
	var notices []string
	msg := opts.LastMessage
	fromTranscript := msg == "" && opts.Transcript != ""
	if _, err := noteAgent(ctx, st, s.ID, agentNote{transcript: opts.Transcript, summaryFromTranscript: fromTranscript}); err != nil {
		notices = append(notices, "the agent's transcript was not noted: "+err.Error())
	}
	if fromTranscript {
		var err error
		if msg, err = lastReply(harnessName, opts.Transcript); err != nil {
			notices = append(notices, "the agent's last message was not read from its transcript: "+err.Error())
		}
	}
	msg, hits := scrubText(msg)
	if _, _, err := session.RecordTurn(ctx, st, s.ID, msg, clock()); err != nil {
		notices = append(notices, "the session's summary was not kept: "+err.Error())
	}
	if n := redactedNotice(hits); n != "" {
		notices = append(notices, n)
	}
	return notices
}

// finalSummary reads, as session id ends, the last reply of an agent whose
// summary comes from its transcript (state, as noted of the session, says
// so): the one its last stop read may be the reply before. Best effort:
// the session ends whatever happens here.
func finalSummary(ctx context.Context, st refstore.Clone, id, harnessName string, state agentState, clock Clock) {
	if !state.SummaryFromTranscript || state.Transcript == "" {
		return
	}
	msg, err := lastReply(harnessName, state.Transcript)
	if err != nil || msg == "" {
		return
	}
	msg, _ = scrubText(msg)
	session.RecordTurn(ctx, st, id, msg, clock())
}
