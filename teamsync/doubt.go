package teamsync

import (
	"maps"

	"github.com/git-handoff/git-handoff/refstore"
)

// A sync's push that fails without the remote refusing it (no answer, a
// connection cut, a fetch after it that failed too) may have landed, or
// land later. The versions it carried are noted, per remote, as in doubt:
// the remote may hold them though no sync here saw it there, so the seen
// note cannot say so. Should this clone retire such a record before it
// learns the push landed, the remote's copy is behind the archive and must
// not come back as a teammate's news: retiredThere looks into the archive
// for a remote version in doubt as for one seen (found by the simulation,
// seed 1796558850864547850: a session's push got no answer but landed,
// the session was replaced and retired here, and the remote's old active
// copy came back to every clone reading replacedBy="" for ever).
//
// A push is noted before it is sent (a bulk push's thousands only once
// one fails without an answer: their note would cost more than the rare
// death it guards). Its entries go when it is refused whole (nothing of
// it landed), once the seen note names that version (after the push that
// landed it, or a sync that found the remote holding it: it is then
// handled as any other), or when a later push of the ref replaces them.
// The lazy merge of a command's fetch reads the note as sync does: a
// record this clone retired is not adopted back from a tracking copy in
// doubt. One that never lands stays: a line in a note, which costs a look
// into the archive only if that very version appears.

// readDoubt is ref → blob id of the versions pushed to remote (at url)
// that may have landed there unseen, nil when none.
func readDoubt(st refstore.Writer, remote, url string) map[string]string {
	p, err := remoteNote("doubt", remote)
	if err != nil {
		return nil
	}
	return readRefNote(st, p, url)
}

// noteDoubt adds the versions ups would have written at remote (not its
// deletions) to its note. A note that cannot be written leaves the guard
// to the seen note, as before it: the push's own error is what is said.
func noteDoubt(st refstore.Writer, remote, url string, ups []refstore.Update) {
	doubt := readDoubt(st, remote, url)
	if doubt == nil {
		doubt = map[string]string{}
	}
	changed := false
	for _, u := range ups {
		if u.New != "" && doubt[u.Ref] != u.New {
			doubt[u.Ref], changed = u.New, true
		}
	}
	if changed {
		writeDoubt(st, remote, url, doubt)
	}
}

// doubtEarlyMax bounds the pushes noted in doubt before they are sent.
const doubtEarlyMax = bulkPushMin

// forgetDoubt drops the entries of ups' versions: their push was refused
// whole.
func forgetDoubt(st refstore.Writer, remote, url string, ups []refstore.Update) {
	pushed := map[string]string{}
	for _, u := range ups {
		pushed[u.Ref] = u.New
	}
	dropDoubt(st, remote, url, func(ref, oid string) bool { return pushed[ref] == oid })
}

// settleDoubt drops the entries the seen note now names (seen), or whose
// version this sync found the remote holding (a decision's remote
// version, or a key both sides held alike, settled): from then on they
// are known, not in doubt.
func settleDoubt(st refstore.Writer, remote, url string, seen map[string]string, ds []decision, settled map[string]string) {
	decided := map[string]string{} // each decision's remote version
	for _, d := range ds {
		if d.remote != nil {
			decided[d.ref] = d.remote.oid
		}
	}
	dropDoubt(st, remote, url, func(ref, oid string) bool {
		return seen[ref] == oid || settled[ref] == oid || decided[ref] == oid
	})
}

// dropDoubt drops the entries drop says, reading the note afresh (a sync's
// own push adds to it after the sync read it).
func dropDoubt(st refstore.Writer, remote, url string, drop func(ref, oid string) bool) {
	doubt := readDoubt(st, remote, url)
	left := maps.Clone(doubt)
	maps.DeleteFunc(left, drop)
	if len(left) != len(doubt) {
		writeDoubt(st, remote, url, left)
	}
}

func writeDoubt(st refstore.Writer, remote, url string, doubt map[string]string) {
	p, err := remoteNote("doubt", remote)
	if err != nil {
		return
	}
	if len(doubt) == 0 {
		_ = st.Local().Remove(p)
		return
	}
	_ = writeRefNote(st, p, url, doubt)
}
