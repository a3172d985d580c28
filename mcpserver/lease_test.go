package mcpserver

import (
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/view"
)

// The lease tools have the commands' effect and JSON: the client's own
// session takes, another session is refused with the holder named (a
// tool error, not a protocol error), release frees at once.
func TestLeaseTools(t *testing.T) {
	f := newFixture(t)
	mine := f.connect(t)
	other := f.connect(t)
	ok[view.Start](t, mine, "session_start", map[string]any{"session": "s-mine", "harness": "claude-code"})

	took := ok[view.LeaseResult](t, mine, "lease_take", map[string]any{"keys": []string{"#42", "path:src/**"}, "note": "the lexer", "ttl": "45m"})
	if took.Session != "s-mine" || len(took.Leases) != 2 || took.Where != "this clone" || !took.Offline {
		t.Fatalf("lease_take = %+v", took)
	}
	for _, o := range took.Leases {
		if o.Action != "taken" || !o.Lease.Mine || o.Lease.Session != "s-mine" || o.Lease.Owner != "dev@example.com" || o.Lease.TTL != "45m0s" || o.Lease.Note != "the lexer" {
			t.Errorf("taken = %+v", o)
		}
	}
	if took.Leases[0].Key != "issue:42" {
		t.Errorf("#42 taken as %q, want issue:42", took.Leases[0].Key)
	}
	again := ok[view.LeaseResult](t, mine, "lease_take", map[string]any{"keys": "issue:42", "ttl": "45m"})
	if len(again.Leases) != 1 || again.Leases[0].Action != "mine" {
		t.Errorf("taking one's own lease again = %+v, want mine", again)
	}

	// Another session: refused, naming the holder, for the key itself and
	// for an overlapping path.
	for _, key := range []string{"issue:42", "path:src/a.go"} {
		msg := failed(t, other, "lease_take", map[string]any{"keys": []string{key}, "session": "s-other"})
		for _, want := range []string{"held by session s-mine", "owner dev@example.com", "agent claude-code", "frees at", "take other work"} {
			contains(t, "lease_take of "+key+" held by another", msg, want)
		}
	}
	contains(t, "a bad key", failed(t, other, "lease_take", map[string]any{"keys": []string{"path:../x"}, "session": "s-other"}), "path:../x")
	contains(t, "a bad ttl", failed(t, other, "lease_take", map[string]any{"keys": []string{"key:x"}, "ttl": "forever"}), "ttl")
	contains(t, "no keys", failed(t, other, "lease_take", map[string]any{"keys": []string{}}), "keys")
	contains(t, "releasing another's", failed(t, other, "lease_release", map[string]any{"keys": []string{"#42"}, "session": "s-other"}), "session s-mine does")

	// The list: the client's own marked mine; the other client's not.
	list := ok[view.LeaseList](t, mine, "lease_list", nil)
	if len(list.Leases) != 2 || !list.Leases[0].Mine || list.Session != "s-mine" || list.Leases[0].FreesIn == nil {
		t.Fatalf("lease_list = %+v", list)
	}
	res := call(t, other, "lease_list", map[string]any{"session": "s-other"})
	if got := structured[view.LeaseList](t, res); len(got.Leases) != 2 || got.Leases[0].Mine || !strings.Contains(text(res), "claude-code session s-mine of dev@example.com") {
		t.Fatalf("lease_list of another session = %+v\n%s", got, text(res))
	}

	rel := ok[view.LeaseResult](t, mine, "lease_release", map[string]any{"keys": []string{"#42"}})
	if len(rel.Leases) != 1 || rel.Leases[0].Action != "released" || rel.Leases[0].Lease.State != "released" {
		t.Fatalf("lease_release = %+v", rel)
	}
	if got := ok[view.LeaseResult](t, other, "lease_take", map[string]any{"keys": []string{"#42"}, "session": "s-other"}); got.Leases[0].Action != "taken" {
		t.Fatalf("after release, another session's take = %+v", got)
	}
	if all := ok[view.LeaseList](t, mine, "lease_list", map[string]any{"all": true}); len(all.Leases) != 2 {
		t.Fatalf("lease_list all = %+v", all)
	}
}
