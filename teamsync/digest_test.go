package teamsync

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

// The lazy merge's note keeps a digest of the tracking refs, written by
// one release and compared by the next: it is, and stays, the SHA-256 of
// the lines "<ref> <id>\n" in byte order, however digest gets there. The
// refs here include one that is a prefix of others, where sorting refs and
// sorting lines could part.
func TestDigestIsOfTheSortedLines(t *testing.T) {
	tp := "refs/ao/remotes/origin/"
	rels := []string{"sessions/s-10", "sessions/s-1", "handoffs/private/a/main", "sessions/s-1x", "handoffs/private/a/main-2", "sessions/s-1.0"}
	var ids []refstore.RefID
	var lines []string
	for i, rel := range rels {
		oid := hex.EncodeToString([]byte{byte(9 - i), 0xab})
		ids = append(ids, refstore.RefID{Ref: rel, OID: oid})
		lines = append(lines, tp+rel+" "+oid)
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	want := hex.EncodeToString(h.Sum(nil))
	if got := digest(tp, ids); got != want {
		t.Errorf("digest = %s, want the sorted lines' %s", got, want)
	}
	full := make([]refstore.RefID, len(ids))
	for i, id := range ids {
		full[i] = refstore.RefID{Ref: tp + id.Ref, OID: id.OID}
	}
	if got := digest("", full); got != want {
		t.Errorf("digest of the full refs = %s, want %s", got, want)
	}
}
