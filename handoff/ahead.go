package handoff

import (
	"context"

	"github.com/git-handoff/git-handoff/refstore"
)

// A command that will write starts the git processes that write its blobs
// and its refs before it reads, and a start starts the git log its brief
// lists before it reads the records: each git then starts while the reads
// run, not after them. Only the git adapter (refstore.Store) has processes to
// start; other stores are left alone.

// writeAhead starts st's blob writer now.
func writeAhead(ctx context.Context, st refstore.Clone) {
	if w, ok := st.(interface{ WriteAhead(context.Context) }); ok {
		w.WriteAhead(ctx)
	}
}

// logAhead starts the git log of the recent commits gather lists for who.
func logAhead(st refstore.Clone, who Who) {
	if l, ok := st.(interface{ LogAhead(string, int) }); ok && who.Head != "" {
		l.LogAhead(who.Head, recentLimit)
	}
}

// refsAhead starts the update-ref st's transaction under msg will run in.
func refsAhead(st refstore.Clone, msg string) {
	if w, ok := st.(interface{ WriteRefsAhead(string) }); ok {
		w.WriteRefsAhead(msg)
	}
}
