package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// end is a successful end of alice/main between from and to (ms).
func end(seq int, marker string, from, to int) Op {
	return Op{Seq: seq, Kind: "end", Clone: "a", Owner: "alice", Branch: "main", Marker: marker, Start: ms(from), Finish: ms(to)}
}

func claim(seq int, session string, exit int, delivered ...string) Op {
	return Op{Seq: seq, Kind: "claim", Clone: "b", Owner: "alice", Branch: "main", Session: session, Exit: exit,
		Won: exit == 0, Delivered: delivered, Start: ms(seq * 100), Finish: ms(seq*100 + 10)}
}

func waiting(marker string) Seen { return Seen{Where: "remote", Tip: true, Marker: marker} }

func claimedAt(where, marker, by string) Seen {
	return Seen{Where: where, Tip: where != "remote-reflog", Marker: marker, Claimed: true, ClaimedBy: by}
}

func TestAccount(t *testing.T) {
	killed := end(2, "m2", 30, 40)
	killed.Killed, killed.Exit = true, -1
	failed := end(2, "m2", 30, 40)
	failed.Exit = 1
	cancel := Op{Seq: 2, Kind: "cancel", Exit: 0, Cancelled: []string{"m1"}}
	startNoBaton := Op{Seq: 3, Kind: "start", Session: "s1", Exit: 0}
	killedClaim := claim(2, "c1", -1)
	killedClaim.Killed, killedClaim.Won = true, false
	unclear := Op{Seq: 2, Kind: "sync", Exit: 1, Unclear: "exit 1: error: gave up"}

	tests := []struct {
		name                         string
		ops                          []Op
		seen                         []Seen
		lost, twice, falseLost, uncl int
	}{
		{name: "a baton nobody has is lost",
			ops: []Op{end(1, "m1", 0, 10)}, lost: 1},
		{name: "delivered",
			ops: []Op{end(1, "m1", 0, 10), claim(2, "c1", 0, "m1")}, seen: []Seen{claimedAt("remote", "m1", "c1")}},
		{name: "cancelled",
			ops: []Op{end(1, "m1", 0, 10), cancel}},
		{name: "waiting at a tip",
			ops: []Op{end(1, "m1", 0, 10)}, seen: []Seen{waiting("m1")}},
		{name: "retired claimed to the archive, and delivered, is not lost",
			ops: []Op{end(1, "m1", 0, 10), claim(2, "c1", 0, "m1")}, seen: []Seen{{Where: "remote-archive", Archived: true, Marker: "m1", Claimed: true, ClaimedBy: "c1"}}},
		{name: "retired claimed to the archive and told to nobody is lost",
			ops: []Op{end(1, "m1", 0, 10)}, seen: []Seen{{Where: "a-archive", Archived: true, Marker: "m1", Claimed: true, ClaimedBy: "c1"}}, lost: 1},
		{name: "retired claimed to the archive supersedes an older end",
			ops: []Op{end(1, "m1", 0, 10), end(2, "m2", 20, 30), claim(3, "c1", 0, "m2")}, seen: []Seen{{Where: "remote-archive", Archived: true, Marker: "m2", Claimed: true, ClaimedBy: "c1"}}},
		{name: "a session told no baton but claimer in the archive is a false-lost claim",
			ops: []Op{end(1, "m1", 0, 10), claim(2, "c1", 5)}, seen: []Seen{{Where: "remote-archive", Archived: true, Marker: "m1", Claimed: true, ClaimedBy: "c1"}}, lost: 1, falseLost: 1},
		{name: "retired unclaimed to the archive is not waiting",
			ops: []Op{end(1, "m1", 0, 10)}, seen: []Seen{{Where: "remote-archive", Archived: true, Marker: "m1"}}, lost: 1},
		{name: "waiting only in the remote's reflog is not waiting",
			ops: []Op{end(1, "m1", 0, 10)}, seen: []Seen{{Where: "remote-reflog", Marker: "m1"}}, lost: 1},
		{name: "a deleted tip is not waiting",
			ops: []Op{end(1, "m1", 0, 10)}, seen: []Seen{{Where: "a", Tip: true, Marker: "m1", Deleted: true}}, lost: 1},
		{name: "superseded by a later end that is waiting",
			ops: []Op{end(1, "m1", 0, 10), end(2, "m2", 20, 30)}, seen: []Seen{waiting("m2")}},
		{name: "a later end losing the join to an older one is lost",
			ops: []Op{end(1, "m1", 0, 10), end(2, "m2", 20, 30)}, seen: []Seen{waiting("m1")}, lost: 1},
		{name: "a later end dropped by a reported conflict is not lost, and is counted apart",
			ops: []Op{end(1, "m1", 0, 10), end(2, "m2", 20, 30)}, seen: []Seen{waiting("m1"), {Where: "b-conflict", Marker: "m2", ConflictDropped: true}}},
		{name: "ends superseded by a later one that lost a reported join are not lost",
			ops:  []Op{end(1, "m1", 0, 10), end(2, "m2", 20, 30), end(3, "m3", 40, 50)},
			seen: []Seen{waiting("m1"), {Where: "b-conflict", Marker: "m3", ConflictDropped: true}}},
		{name: "overlapping ends: either may be the last",
			ops: []Op{end(1, "m1", 0, 20), end(2, "m2", 10, 30)}, seen: []Seen{waiting("m1")}},
		{name: "an end on another branch supersedes nothing",
			ops:  []Op{end(1, "m1", 0, 10), {Seq: 2, Kind: "end", Owner: "alice", Branch: "topic", Marker: "m2", Start: ms(20), Finish: ms(30)}},
			seen: []Seen{waiting("m2")}, lost: 1},
		{name: "a killed end is never lost",
			ops: []Op{killed}},
		{name: "a failed end is never lost",
			ops: []Op{failed}},
		{name: "a killed end that was written supersedes",
			ops: []Op{end(1, "m1", 0, 10), killed}, seen: []Seen{waiting("m2")}},
		{name: "claimed, delivered to nobody: lost, and the claimer told lost",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c1", 5)},
			seen: []Seen{claimedAt("remote-reflog", "m1", "c1")}, lost: 1, falseLost: 1},
		{name: "claimed, delivered to nobody, is lost even when a later end is waiting",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c1", 5), end(3, "m3", 300, 310)},
			seen: []Seen{claimedAt("remote-reflog", "m1", "c1"), waiting("m3")}, lost: 1, falseLost: 1},
		{name: "cancelled here, claimed at the remote by a claimer told lost",
			ops:  []Op{end(1, "m1", 0, 10), cancel, claim(3, "c1", 5)},
			seen: []Seen{claimedAt("remote", "m1", "c1")}, falseLost: 1},
		{name: "a start told no baton but recorded as the claimer",
			ops:  []Op{end(1, "m1", 0, 10), startNoBaton},
			seen: []Seen{claimedAt("a", "m1", "s1")}, lost: 1, falseLost: 1},
		{name: "a killed claim re-run by its session delivers: nothing wrong",
			ops:  []Op{end(1, "m1", 0, 10), killedClaim, claim(3, "c1", 0, "m1")},
			seen: []Seen{claimedAt("remote", "m1", "c1")}},
		{name: "a killed claim re-run and told lost",
			ops:  []Op{end(1, "m1", 0, 10), killedClaim, claim(3, "c1", 5)},
			seen: []Seen{claimedAt("remote", "m1", "c1")}, lost: 1, falseLost: 1},
		{name: "a killed claim alone was told nothing",
			ops:  []Op{end(1, "m1", 0, 10), killedClaim},
			seen: []Seen{claimedAt("remote", "m1", "c1")}, lost: 1},
		{name: "delivered to two sessions",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c1", 0, "m1"), claim(3, "c2", 0, "m1")},
			seen: []Seen{claimedAt("remote", "m1", "c1")}, twice: 1},
		{name: "delivered to one session twice is once",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c1", 0, "m1"), claim(3, "c1", 0, "m1")},
			seen: []Seen{claimedAt("remote", "m1", "c1")}},
		{name: "a lost claim of a baton someone else won",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c1", 0, "m1"), claim(3, "c2", 5)},
			seen: []Seen{claimedAt("remote", "m1", "c1")}},
		{name: "unclear errors are counted",
			ops: []Op{unclear}, uncl: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Account(tc.ops, tc.seen)
			if f.DismissedDelivered+f.FalseNotices+f.Dangling != 0 {
				t.Errorf("new figures: dismissed-and-delivered=%d false-notices=%d dangling=%d, want 0\n%s", f.DismissedDelivered, f.FalseNotices, f.Dangling, strings.Join(f.Details, "\n"))
			}
			if f.Lost != tc.lost || f.Twice != tc.twice || f.FalseLost != tc.falseLost || f.Unclear != tc.uncl {
				t.Errorf("lost=%d twice=%d false-lost=%d unclear=%d, want %d %d %d %d\n%s",
					f.Lost, f.Twice, f.FalseLost, f.Unclear, tc.lost, tc.twice, tc.falseLost, tc.uncl, strings.Join(f.Details, "\n"))
			}
		})
	}
}

// TestAccountNewFigures: dismissed-and-delivered, false notices and
// dangling refs, on synthetic ledgers.
func TestAccountNewFigures(t *testing.T) {
	dismiss := func(seq int, kind string, exit int, markers ...string) Op {
		return Op{Seq: seq, Kind: kind, Clone: "a", Exit: exit, Cancelled: markers, Start: ms(seq * 100), Finish: ms(seq*100 + 10)}
	}
	withNotice := func(op Op, n string) Op { op.Notices = []string{n}; return op }
	idSeen := func(where, id, marker, by string, claimed bool) Seen {
		return Seen{Where: where, Tip: where != "remote-reflog" && where != "a-reflog", History: where == "a-reflog",
			ID: id, Marker: marker, Claimed: claimed, ClaimedBy: by}
	}
	mcpStart := Op{Seq: 3, Kind: "mcp-start", Clone: "d", Session: "m1", Won: true, BatonID: "h-1", Start: ms(300), Finish: ms(310)}
	mcpCancel := Op{Seq: 2, Kind: "mcp-cancel", Clone: "d", BatonID: "h-1", Start: ms(200), Finish: ms(210)}
	endWithID := end(1, "m1", 0, 10)
	endWithID.BatonID = "h-1"

	tests := []struct {
		name                            string
		ops                             []Op
		seen                            []Seen
		dismissedDelivered, falseN, dng int
	}{
		{name: "dismissed, then delivered",
			ops:  []Op{end(1, "m1", 0, 10), dismiss(2, "dismiss", 0, "m1"), claim(3, "c1", 0, "m1")},
			seen: []Seen{claimedAt("remote", "m1", "c1")}, dismissedDelivered: 1},
		{name: "cancelled through the status page, then delivered",
			ops:  []Op{end(1, "m1", 0, 10), dismiss(2, "web-dismiss", 0, "m1"), claim(3, "c1", 0, "m1")},
			seen: []Seen{claimedAt("remote", "m1", "c1")}, dismissedDelivered: 1},
		{name: "a refused dismiss and a delivery: fine",
			ops:  []Op{end(1, "m1", 0, 10), dismiss(2, "dismiss", 5), claim(3, "c1", 0, "m1")},
			seen: []Seen{claimedAt("remote", "m1", "c1")}},
		{name: "MCP cancel and MCP start name batons by id",
			ops:  []Op{endWithID, mcpCancel, mcpStart},
			seen: []Seen{idSeen("remote", "h-1", "m1", "m1", true)}, dismissedDelivered: 1},
		{name: "an MCP start alone delivers by id",
			ops:  []Op{endWithID, mcpStart},
			seen: []Seen{idSeen("remote", "h-1", "m1", "m1", true)}},
		{name: "another clone claimed a baton nobody claimed",
			ops:  []Op{end(1, "m1", 0, 10), withNotice(claim(2, "c1", 0), "another clone claimed baton h-1 first: origin holds a newer baton h-2 here")},
			seen: []Seen{idSeen("remote", "h-1", "m1", "", false)}, falseN: 1},
		{name: "another clone claimed a baton someone did claim",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c2", 0, "m1"), withNotice(claim(3, "c1", 5), "another clone claimed baton h-1 first: baton h-1 was already claimed by session c2")},
			seen: []Seen{idSeen("remote", "h-1", "m1", "c2", true)}},
		{name: "already claimed by a session that never claimed it",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c2", 0, "m1"), withNotice(claim(3, "c1", 5), "claiming the baton: baton h-1 was already claimed by session c9")},
			seen: []Seen{idSeen("remote", "h-1", "m1", "c2", true)}, falseN: 1},
		{name: "already claimed by a local claim, seen in a clone's reflog only",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c2", 0, "m1"), withNotice(claim(3, "c1", 5), "baton h-1 was already claimed by session c2")},
			seen: []Seen{idSeen("a-reflog", "h-1", "m1", "c2", true), waiting("m3")}},
		// Seed 11: the claim (c2, won) was replaced by the next end, whose
		// ref then retired, deleting the reflogs that held the claim; the
		// archived record still names the claimed version it replaced.
		{name: "already claimed, seen only as the version a later record replaced",
			ops:  []Op{end(1, "m1", 0, 10), claim(2, "c2", 0, "m1"), withNotice(claim(3, "c1", 5), "claiming the baton: baton h-1 was already claimed by session c2 at 2026-12-06T07:12:21Z")},
			seen: []Seen{{Where: "a-prev", History: true, ID: "h-1", Marker: "m1", Claimed: true, ClaimedBy: "c2"}, {Where: "remote-archive", Archived: true, ID: "h-2", Marker: "m2", Deleted: true}}},
		{name: "won by, seen only as the version a later record replaced, is not the remote's word",
			ops:  []Op{end(1, "m1", 0, 10), withNotice(claim(2, "s6", 0, "m1"), "baton h-1 was won by session s1, which stopped before receiving it: delivered to session s6 instead")},
			seen: []Seen{{Where: "remote-prev", History: true, ID: "h-1", Marker: "m1", Claimed: true, ClaimedBy: "s1"}}, falseN: 1},
		{name: "won by, in the remote's log of what it accepted, after its ref retired",
			ops:  []Op{end(1, "m1", 0, 10), withNotice(claim(2, "s6", 0, "m1"), "baton h-1 was won by session s1, which stopped before receiving it: delivered to session s6 instead")},
			seen: []Seen{{Where: "remote-reflog", Ref: "received:refs/ao/handoffs/private/alice/main", ID: "h-1", Marker: "m1", Claimed: true, ClaimedBy: "s1"}}},
		{name: "won by a session the remote never accepted",
			ops:  []Op{end(1, "m1", 0, 10), withNotice(claim(2, "s6", 0, "m1"), "baton h-1 was won by session s1, which stopped before receiving it: delivered to session s6 instead")},
			seen: []Seen{idSeen("remote", "h-1", "m1", "s2", true), idSeen("a", "h-1", "m1", "s1", true)}, falseN: 1},
		{name: "won by a session the remote did accept",
			ops:  []Op{end(1, "m1", 0, 10), withNotice(claim(2, "s6", 0, "m1"), "baton h-1 was won by session s1, which stopped before receiving it: delivered to session s6 instead")},
			seen: []Seen{idSeen("remote-reflog", "h-1", "m1", "s1", true)}},
		{name: "a killed command's notices are not judged",
			ops: []Op{end(1, "m1", 0, 10), func() Op {
				op := withNotice(claim(2, "c1", -1), "another clone claimed baton h-1 first")
				op.Killed, op.Won = true, false
				return op
			}()},
			seen: []Seen{waiting("m1")}},
		{name: "dangling refs are counted one by one",
			ops:  []Op{end(1, "m1", 0, 10)},
			seen: []Seen{waiting("m1"), {Where: "a", Ref: "refs/ao/sessions/s1 -> 1234", Missing: true}, {Where: "b", Ref: "refs/worktree/ao/session -> refs/ao/sessions/s2 -> 5678", Missing: true}}, dng: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Account(tc.ops, tc.seen)
			if f.DismissedDelivered != tc.dismissedDelivered || f.FalseNotices != tc.falseN || f.Dangling != tc.dng {
				t.Errorf("dismissed-and-delivered=%d false-notices=%d dangling=%d, want %d %d %d\n%s",
					f.DismissedDelivered, f.FalseNotices, f.Dangling, tc.dismissedDelivered, tc.falseN, tc.dng, strings.Join(f.Details, "\n"))
			}
		})
	}
}

func TestClaimNotices(t *testing.T) {
	v := map[string]any{"notices": []any{"another clone claimed baton h-1 first: x", "synced 3 records"}}
	got := claimNotices(v, "notice: another clone claimed baton h-1 first: x\nerror: claiming the baton: baton h-2 was already claimed by session c1\n")
	want := []string{"another clone claimed baton h-1 first: x", "claiming the baton: baton h-2 was already claimed by session c1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("claimNotices = %q, want %q", got, want)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		r       result
		unclear bool
	}{
		{"ok", result{exit: 0, stdout: `{"claimed":true}`}, false},
		{"ok without json", result{exit: 0, stdout: "claimed"}, true},
		{"conflict with a reason", result{exit: 5, stderr: "notice: x\nerror: claiming the baton: already claimed by session c1\n"}, false},
		{"not found with a reason", result{exit: 6, stderr: "error: no baton is waiting\n"}, false},
		{"conflict without a reason", result{exit: 5, stderr: "already claimed\n"}, true},
		{"empty error line", result{exit: 6, stderr: "error: \n"}, true},
		{"error exit", result{exit: 1, stderr: "error: reading refs/ao/x: object not found\n"}, true},
		{"usage exit", result{exit: 2, stderr: "error: bad flag\n"}, true},
		{"refused by the remote's hook", result{exit: 1, stderr: "error: syncing with origin: push rejected (pre-receive hook declined); the remote said: " + refusedMark + "\n"}, false},
		{"refused without an error line", result{exit: 1, stderr: "remote: " + refusedMark + "\n"}, true},
		{"panic", result{exit: 5, stderr: "error: x\npanic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\n"}, true},
	}
	for _, tc := range tests {
		if got := classify(tc.r); (got != "") != tc.unclear {
			t.Errorf("%s: classify = %q, want unclear %v", tc.name, got, tc.unclear)
		}
	}
}

// An unclear exit 1 keeps its error line in the ledger however many
// notices come first, and one that names an object vanished under git
// counts among the prune-raced as well as the unclear.
func TestUnclearTellsWhy(t *testing.T) {
	notices := "notice: a\nnotice: b\nnotice: c\n"
	raced := classify(result{exit: 1, stderr: notices + "error: syncing with origin: pushing to origin: push rejected for refs/ao/x (remote rejected: unable to migrate objects to permanent storage)\n"})
	if !strings.Contains(raced, "unable to migrate") {
		t.Fatalf("classify kept no error line: %q", raced)
	}
	other := classify(result{exit: 1, stderr: notices + "error: syncing with origin: something else\n"})
	f := Account([]Op{{Seq: 1, Kind: "sync", Exit: 1, Unclear: raced}, {Seq: 2, Kind: "sync", Exit: 1, Unclear: other}}, nil)
	if f.Unclear != 2 || f.PruneRaced != 1 {
		t.Errorf("unclear=%d prune-raced=%d, want 2 and 1", f.Unclear, f.PruneRaced)
	}
}

func TestInterpret(t *testing.T) {
	m1, m2 := "soak.abcdef.1", "soak.abcdef.2"
	brief := `"brief": "## Baton\n- ` + m2 + `\n", "notices": ["baton ` + m2 + ` waits"]`
	tests := []struct {
		name, kind, stdout string
		won                bool
		delivered          []string
	}{
		{"claim", "claim", `{"claimed": true, "handoff": {"nextSteps": ["` + m1 + `"]}}`, true, []string{m1}},
		{"start that claimed", "start", `{"claimed": true, "handoff": {"nextSteps": ["` + m1 + `"]}, ` + brief + `}`, true, []string{m1}},
		{"start that only shows a baton in its brief", "start", `{"claimed": false, "handoff": {"nextSteps": ["` + m2 + `"]}, ` + brief + `}`, false, nil},
	}
	for _, tc := range tests {
		op := Op{Kind: tc.kind}
		interpret(&op, result{stdout: tc.stdout})
		if op.Won != tc.won || strings.Join(op.Delivered, ",") != strings.Join(tc.delivered, ",") {
			t.Errorf("%s: won=%v delivered=%v, want %v %v", tc.name, op.Won, op.Delivered, tc.won, tc.delivered)
		}
	}
	op := Op{Kind: "cancel"}
	interpret(&op, result{stdout: `{"cancelled": true, "handoff": {"nextSteps": ["` + m1 + `"]}}`})
	if strings.Join(op.Cancelled, ",") != m1 {
		t.Errorf("cancel: cancelled=%v, want [%s]", op.Cancelled, m1)
	}
}

// TestLeasesTakenTwice reads a chain like seed 1006's: two claims leased
// on one version of alice/main, both taken; a ref created (leased on
// absent) twice over a retirement, a version retired and pushed back
// before it was replaced, and a chain of ordinary updates, are not
// counted.
func TestLeasesTakenTwice(t *testing.T) {
	dir := t.TempDir()
	z := strings.Repeat("0", 40)
	a, b, c, d := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("d", 40)
	ref := "refs/ao/handoffs/private/alice/main"
	chain := strings.Join([]string{
		"1.0 " + z + " " + a + " " + ref + " old-present=0 pid=1 git-handoff end",
		"2.0 " + a + " " + b + " " + ref + " old-present=1 pid=2 git-handoff start --session s-1",
		"3.0 " + a + " " + c + " " + ref + " old-present=1 pid=3 git-handoff claim --session c-2",
		"4.0 " + c + " " + z + " " + ref + " old-present=1 pid=4 git-handoff sync --retire",
		"5.0 " + z + " " + d + " " + ref + " old-present=0 pid=5 git-handoff end",
		"6.0 " + d + " " + a + " refs/ao/handoffs/private/bob/main old-present=1 pid=6",
		// Seed 1009's: a version retired, pushed back by a sync, then
		// replaced: leased on twice, written twice.
		"7.0 " + z + " " + b + " refs/ao/handoffs/private/bob/topic old-present=0 pid=7 git-handoff claim",
		"8.0 " + b + " " + z + " refs/ao/handoffs/private/bob/topic old-present=0 pid=8 git-handoff sync --retire",
		"9.0 " + z + " " + b + " refs/ao/handoffs/private/bob/topic old-present=0 pid=9 git-handoff sync",
		"10.0 " + b + " " + c + " refs/ao/handoffs/private/bob/topic old-present=1 pid=10 git-handoff start",
		"",
	}, "\n")
	if err := os.WriteFile(filepath.Join(dir, "chain"), []byte(chain), 0o644); err != nil {
		t.Fatal(err)
	}
	got := leasesTakenTwice(dir)
	if len(got) != 1 || !strings.Contains(got[0], ref+": leased on aaaaaaaaaaaa and taken 2 times") ||
		!strings.Contains(got[0], `bbbbbbbbbbbb by "git-handoff start --session s-1"`) || !strings.Contains(got[0], `cccccccccccc by "git-handoff claim --session c-2"`) {
		t.Fatalf("taken twice: %q", got)
	}
	if got := leasesTakenTwice(t.TempDir()); got != nil {
		t.Fatalf("no chain: %q", got)
	}
}

// A lost baton whose end a git gc --prune=now in the same clone ran over
// is still lost, and the detail names the prune (git's documented race
// of --prune=now with writers); one in another clone, or after, is not
// named, and the prunes are not commands.
func TestLostNamesThePruneThatRanOverIt(t *testing.T) {
	e := end(1, "m1", 100, 200)
	prune := func(seq int, clone string, from, to int) Op {
		return Op{Seq: seq, Kind: "gc-prune-now", Clone: clone, Start: ms(from), Finish: ms(to)}
	}
	for _, tc := range []struct {
		name  string
		prune Op
		named bool
	}{
		{"over it", prune(2, e.Clone, 150, 300), true},
		{"begun before it", prune(2, e.Clone, 50, 120), true},
		{"in another clone", prune(2, e.Clone+"x", 150, 300), false},
		{"after it", prune(2, e.Clone, 250, 300), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := []Op{e, tc.prune}
			f := Account(ops, nil)
			if f.Lost != 1 {
				t.Fatalf("lost=%d, want 1: a prune explains a loss, it does not excuse it", f.Lost)
			}
			said := strings.Contains(strings.Join(f.Details, "\n"), "git gc --prune=now in "+tc.prune.Clone+" ran over it (#2")
			if said != tc.named {
				t.Errorf("details %q: prune named %v, want %v", f.Details, said, tc.named)
			}
			if n := commands(ops); n != 1 {
				t.Errorf("commands=%d, want 1", n)
			}
		})
	}
}

// A baton an end reported written must be held by some version at the
// remote at the end, at a tip or in an archive month: a superseded one
// kept only in a clone's reflog (or its archive, never synced) is unkept.
func TestAccountUnkept(t *testing.T) {
	ends := []Op{end(1, "m1", 0, 10), end(2, "m2", 20, 30)}
	tests := []struct {
		name   string
		seen   []Seen
		unkept int
	}{
		{name: "the superseded baton in the remote's archive is kept",
			seen: []Seen{waiting("m2"), {Where: "remote-archive", Archived: true, Marker: "m1"}}},
		{name: "the superseded baton only in a clone's archive is unkept",
			seen: []Seen{waiting("m2"), {Where: "a-archive", Archived: true, Marker: "m1"}}, unkept: 1},
		{name: "the superseded baton only in the remote's reflog is unkept",
			seen: []Seen{waiting("m2"), {Where: "remote-reflog", Marker: "m1"}}, unkept: 1},
		{name: "a lost baton is counted lost, not unkept",
			seen: []Seen{{Where: "remote-archive", Archived: true, Marker: "m2", Claimed: true, ClaimedBy: "c9"}, {Where: "remote-archive", Archived: true, Marker: "m1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Account(ends, tc.seen)
			if f.Unkept != tc.unkept {
				t.Errorf("unkept=%d, want %d\n%s", f.Unkept, tc.unkept, strings.Join(f.Details, "\n"))
			}
		})
	}
}
