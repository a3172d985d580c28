package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// What a session that ends without `end` hands on (issue "never start
// cold"). Its agent exited, or another session started in its worktree:
// nobody wrote a baton, yet the next session on its owner and branch must
// not start cold. handOver decides between two things, after the session
// is ended:
//
//   - the baton it claimed is offered again when its agent never acted on
//     it: the start hook's answer never reached the agent (the hook was
//     killed, the agent crashed), or the agent never ended a turn after
//     it, and the session changed nothing;
//   - otherwise, when it did work (commits, or changed files), git-handoff
//     writes the automatic handoff: a
//     baton marked Auto, holding its last summary, the task it had
//     claimed, its commits, its snapshot and the end of its transcript.
//
// The automatic handoff never replaces a waiting baton, and a baton
// anyone writes replaces it (sync prefers a written one too): it is only
// for when there is none.

// Caps of what an automatic handoff quotes: it heads a brief, whose
// untrimmed part must fit a start's default budget with room to spare.
const (
	autoSummaryBytes    = 2048
	autoTranscriptBytes = 1536
	autoCommits         = 10
)

// Handover is what handOver did.
type Handover struct {
	Auto      *baton.Stored // the automatic handoff written
	Reoffered *baton.Stored // the claimed baton offered again
	Notices   []string
}

// handOver runs for session s, just ended (why: session.EndAgentExit or
// EndStartedHere). Failures are notices: the session has ended already.
func handOver(ctx context.Context, st refstore.Clone, s session.Stored, why string, clock Clock) Handover {
	var out Handover
	wt, done, err := sessionWorktree(ctx, st, &s.Record)
	if err != nil || wt == nil {
		return out // its worktree is elsewhere: there, not here, is what it did
	}
	defer done()
	state, noted, err := readAgentState(wt, s.ID)
	if err != nil {
		out.Notices = append(out.Notices, "what the agent hooks noted of session "+s.ID+" could not be read: "+err.Error())
	}
	worked, err := didWork(ctx, wt, s.Record, state, noted)
	if err != nil {
		out.Notices = append(out.Notices, fmt.Sprintf("whether session %s changed anything could not be told (%v): nothing was handed on for it", s.ID, err))
		return out
	}
	task, err := claimedTask(s.Record)
	if err != nil {
		out.Notices = append(out.Notices, err.Error())
	}
	left, err := leftBaton(ctx, st, s.Record)
	if err != nil || left {
		return out
	}
	if task != nil && !worked && turnsSeen[HarnessName(s.Harness)] && neverActed(s.Record, state) {
		r, n := reoffer(ctx, st, s.Record, task, clock)
		out.Reoffered, out.Notices = r, append(out.Notices, n...)
		return out
	}
	if !worked {
		// Nothing changed. A claim it acted on stays its claim (the agent
		// may have answered it in words): the task is handed on when
		// work on it is, or by a replacement, which carries it.
		return out
	}
	a, n := autoHandoff(ctx, st, wt, s.Record, task, why, state.Transcript, clock)
	out.Auto, out.Notices = a, append(out.Notices, n...)
	return out
}

// A handover is noted as due before the session ends and the note is
// removed once it has run: an agent gives its session-end hook a second or
// two, and a hook killed half-way leaves the note for the next start here
// to finish (FinishHandovers). Run twice, handOver does nothing the second
// time: the automatic handoff it wrote names the session, and a claim it
// offered again is no longer the session's.
type dueHandover struct {
	l    refstore.Local
	note string
}

func noteHandover(ctx context.Context, st refstore.Clone, id, why string) (dueHandover, error) {
	l := st.WorktreeLocal()
	note := handoverNote(id)
	if err := l.Write(ctx, note, []byte(why+"\n")); err != nil {
		return dueHandover{}, fmt.Errorf("noting that session %s is to be handed on: %w", id, err)
	}
	return dueHandover{l, note}, nil
}

func (d dueHandover) drop() {
	if d.l != nil {
		d.l.Remove(d.note)
	}
}

// handoversDir holds the due handovers of this worktree, one note each.
const handoversDir = agentDir + "/handover"

// handoverNote is where a due handover of session id is noted.
func handoverNote(id string) string { return handoversDir + "/" + url.PathEscape(id) }

// FinishHandovers runs the handovers noted as due in this worktree: those
// an agent's end hook left for it (AgentEndOptions.Later) and those a
// process stopped half-way did not finish. A directory read when there
// are none; every start runs it before it claims.
func FinishHandovers(ctx context.Context, st refstore.Clone, clock Clock) []string {
	l := st.WorktreeLocal()
	names, err := l.List(handoversDir)
	if err != nil {
		return nil
	}
	var notices []string
	for _, name := range names {
		id, err := url.PathUnescape(name)
		if err != nil {
			continue
		}
		note := handoversDir + "/" + name
		data, err := l.Read(note)
		if err != nil {
			continue
		}
		s, err := session.Read(ctx, st, id)
		if err != nil || s.Live() {
			l.Remove(note) // gone, or revived: nothing is due
			continue
		}
		h := handOver(ctx, st, s, strings.TrimSpace(string(data)), clock)
		notices = append(notices, h.Notices...)
		if ctx.Err() == nil {
			l.Remove(note)
		}
	}
	return notices
}

// turnsSeen are the agents whose start hook and end-of-turn hook were
// seen to run in every mode, headless too (HARNESSES.md): only their
// sessions can be told to have never acted on a claim. OpenCode's plugin
// sends no end of turn under `opencode run`, and Cursor's hooks were never
// run here; their claims are never offered again.
var turnsSeen = map[string]bool{"claude-code": true, "codex": true, "gemini": true}

// neverActed reports whether the agent of s never acted on the baton its
// start hook claimed: the hook never finished giving it (Delivery still
// pending), or the agent ended no turn after it. A session no start hook
// made (Delivery "") read its brief itself and counts as having acted.
func neverActed(s session.Record, state agentState) bool {
	switch state.Delivery {
	case deliveryPending:
		return true
	case deliveryDone:
		return s.TurnAt == nil
	}
	return false
}

// claimedTask is the baton session s claimed, from its record (nil: none).
func claimedTask(s session.Record) (*baton.Baton, error) {
	if len(s.ClaimedHandoff) == 0 {
		return nil, nil
	}
	var b baton.Baton
	if err := json.Unmarshal(s.ClaimedHandoff, &b); err != nil {
		return nil, fmt.Errorf("the baton session %s claimed could not be read back: %v", s.ID, err)
	}
	return &b, nil
}

// reoffer makes the baton s claimed wait again, when its ref still holds
// that claim; anything else there (a newer baton, another claim) is left.
func reoffer(ctx context.Context, st refstore.Clone, s session.Record, task *baton.Baton, clock Clock) (*baton.Stored, []string) {
	ref, err := refstore.HandoffRef(task.Shared, task.Owner, task.Branch)
	if err != nil {
		return nil, []string{err.Error()}
	}
	cur, err := baton.Read(ctx, st, ref)
	if err != nil || cur.ID != task.ID || !cur.Claimed || cur.ClaimedBySession != s.ID {
		return nil, nil
	}
	again, up, err := baton.Released(ctx, st, cur, clock())
	if err == nil {
		err = st.Apply(ctx, fmt.Sprintf("handoff: offer %s again (session %s never acted on it)", task.ID, s.ID), up)
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("baton %s, claimed by session %s whose agent never acted on it, could not be offered again: %v", task.ID, s.ID, err)}
	}
	return &again, []string{fmt.Sprintf("baton %s was claimed by session %s, whose agent never acted on it: it waits again for the next session on `%s`", task.ID, s.ID, task.Branch)}
}

// autoHandoff writes the automatic handoff of session s (wt: its
// worktree), unless a baton waits on its owner's branch already.
func autoHandoff(ctx context.Context, st, wt refstore.Clone, s session.Record, task *baton.Baton, why, transcriptPath string, clock Clock) (*baton.Stored, []string) {
	var notices []string
	ref, err := refstore.HandoffRef(false, s.Owner, s.Branch)
	if err != nil {
		return nil, []string{err.Error()}
	}
	cur, err := baton.Read(ctx, st, ref)
	switch {
	case err == nil && cur.Live():
		return nil, []string{fmt.Sprintf("session %s left no baton; baton %s waits on `%s` already, so git-handoff wrote no automatic handoff", s.ID, cur.ID, s.Branch)}
	case err != nil && !errors.Is(err, refstore.ErrNotFound) && !errors.Is(err, refstore.ErrInvalidRecord):
		return nil, []string{"no automatic handoff: " + err.Error()}
	}
	head, err := wt.Head(ctx)
	if err != nil {
		return nil, []string{"no automatic handoff: " + err.Error()}
	}
	a := &baton.Auto{Session: s.ID, Why: why, Summary: session.Cap(s.Summary, autoSummaryBytes), StartHead: s.StartHead}
	if s.StartHead != "" && head.Commit != "" && head.Commit != s.StartHead {
		commits, total, err := wt.Log(ctx, head.Commit, s.StartHead, autoCommits)
		if err == nil {
			a.CommitTotal = total
			for _, c := range commits {
				a.Commits = append(a.Commits, baton.AutoCommit{ID: c.ID, Subject: c.Subject})
			}
		}
	}
	if taken, err := wt.TakeSnapshot(ctx, s.ID); err == nil {
		a.Snapshot = taken.Commit
	} else if !errors.Is(err, refstore.ErrClean) {
		notices = append(notices, "its uncommitted work was not kept: "+err.Error())
	}
	var n string
	a.Transcript, n = transcriptQuote(s.Harness, transcriptPath)
	if n != "" {
		notices = append(notices, n)
	}
	d := baton.Draft{Owner: s.Owner, Branch: s.Branch, Harness: s.Harness, SessionID: s.ID, Head: head.Commit, Auto: a}
	if task != nil {
		a.Task = task.ID
		d.NextSteps, d.FailedApproaches, d.OpenQuestions = task.NextSteps, task.FailedApproaches, task.OpenQuestions
	}
	if len(d.NextSteps) == 0 {
		d.NextSteps = []string{brief.AutoStep(s.ID)}
	}
	hits := scrubAuto(&d)
	b, err := baton.New(d, clock())
	if err != nil {
		return nil, append(notices, "no automatic handoff: "+err.Error())
	}
	stored, up, err := baton.Written(ctx, st, b)
	if err == nil {
		// What the write replaces, read again: an end since the first
		// read, or a teammate's baton fetched and not yet merged, waits
		// there, and an automatic handoff replaces no baton a person
		// left (the soak found one replaced, with only the hook told).
		// A final baton it replaces is archived, as an end's is.
		r := replacing(ctx, st, up, b.ID, false)
		if len(r.waiting) > 0 {
			return nil, append(notices, fmt.Sprintf("session %s left no baton; baton %s waits on `%s` already, so git-handoff wrote no automatic handoff", s.ID, r.waiting[0].ID, s.Branch))
		}
		err = st.Apply(ctx, fmt.Sprintf("handoff: automatic handoff %s for session %s", b.ID, s.ID), append([]refstore.Update{up}, r.archive...)...)
	}
	if err != nil {
		return nil, append(notices, fmt.Sprintf("session %s left no baton and its automatic handoff was not written: %v", s.ID, err))
	}
	notices = append(notices, fmt.Sprintf("session %s left no baton: git-handoff wrote automatic handoff %s for the next session on `%s`", s.ID, b.ID, s.Branch))
	if n := redactedNotice(hits); n != "" {
		notices = append(notices, n)
	}
	return &stored, notices
}

// transcriptQuote is the end of an agent's transcript as a handoff quotes
// it, bounded; a transcript that cannot be read is a notice.
func transcriptQuote(harnessName, path string) (string, string) {
	if path == "" {
		return "", ""
	}
	text, err := transcriptTail(HarnessName(harnessName), path)
	if err != nil {
		return "", "its transcript was not quoted: " + err.Error()
	}
	return text, "" // bounded by transcriptTail
}

// noteOf reads what the agent hooks noted of session s in its worktree
// (the zero state when nothing, or when its worktree is not here).
func noteOf(ctx context.Context, st refstore.Clone, s *session.Record) agentState {
	wt, done, err := sessionWorktree(ctx, st, s)
	if err != nil || wt == nil {
		return agentState{}
	}
	defer done()
	state, _, _ := readAgentState(wt, s.ID)
	return state
}

// scrubAuto redacts every text of an automatic handoff's draft.
func scrubAuto(d *baton.Draft) []redact.Hit {
	var all []redact.Hit
	text := func(s *string) {
		var h []redact.Hit
		*s, h = scrubText(*s)
		all = redact.Merge(all, h)
	}
	list := func(l *[]string) {
		var h []redact.Hit
		*l, h = scrubList(*l)
		all = redact.Merge(all, h)
	}
	list(&d.NextSteps)
	list(&d.FailedApproaches)
	list(&d.OpenQuestions)
	text(&d.Auto.Summary)
	text(&d.Auto.Transcript)
	for i := range d.Auto.Commits {
		text(&d.Auto.Commits[i].Subject)
	}
	return all
}

// withdrawAuto takes back the automatic handoff written for session s
// while it still waits: the session goes on (its agent resumed the
// conversation), so what it was doing is not the next session's yet. The
// version the automatic handoff replaced (most often the baton s had
// claimed, claimed) is put back as the version that follows it, so the
// ref says again what it said before the session ended, when it is s's own
// claim (ownClaimBefore); else the automatic handoff is cancelled.
func withdrawAuto(ctx context.Context, st refstore.Clone, s session.Record, clock Clock) string {
	ref, err := refstore.HandoffRef(false, s.Owner, s.Branch)
	if err != nil {
		return ""
	}
	cur, err := baton.Read(ctx, st, ref)
	if err != nil || !cur.Live() || cur.Auto == nil || cur.Auto.Session != s.ID {
		return ""
	}
	if prior, ok := ownClaimBefore(ctx, st, cur, s.ID); ok && prior.Auto == nil {
		back := prior.Baton
		back.Cause = refstore.Cause{}
		oid, _, err := refstore.WriteVersion(ctx, st, ref, cur.OID, &back.Cause, &back)
		if err == nil {
			err = st.Apply(ctx, fmt.Sprintf("handoff: withdraw %s (session %s goes on)", cur.ID, s.ID), refstore.Update{Ref: ref, New: oid, Old: cur.OID})
		}
		if err == nil {
			return fmt.Sprintf("the automatic handoff %s written when session %s ended was withdrawn: the session goes on", cur.ID, s.ID)
		}
	}
	if _, err := baton.Delete(ctx, st, cur, "cancelled", clock()); err != nil {
		return fmt.Sprintf("the automatic handoff %s written when session %s ended still waits: %v", cur.ID, s.ID, err)
	}
	return fmt.Sprintf("the automatic handoff %s written when session %s ended was withdrawn: the session goes on", cur.ID, s.ID)
}

// HandoverDue reports whether a handover is noted as due in st's worktree
// (FinishHandovers has something to do).
func HandoverDue(st refstore.Clone) bool {
	entries, err := st.WorktreeLocal().List(handoversDir)
	return err == nil && len(entries) > 0
}
