package refstore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// ListContents gives each ref under the prefix with what Get gives of it:
// the object's id, type, size and bytes (none past MaxRecord), whatever
// the bytes hold (newlines, NULs, text shaped like its own header lines).
func TestListContentsIsGet(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	bodies := map[string]string{
		"refs/ao/x/a":     `{"schema":"x"}`,
		"refs/ao/x/empty": "",
		"refs/ao/x/odd":   "line\n\x00\n0123 blob 5 refs/ao/x/b\nend",
		"refs/ao/y/other": "not listed",
	}
	for ref, body := range bodies {
		put(t, st, ref, "", body)
	}
	gittest.Run(t, dir, "update-ref", "refs/ao/x/commit", "HEAD")
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("b"), refstore.MaxRecord+1), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "update-ref", "refs/ao/x/big", gittest.Run(t, dir, "hash-object", "-w", big))
	got, err := refstore.ListContents(ctx, dir, "refs/ao/x/")
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, e := range got {
		refs = append(refs, e.Ref)
		want, err := st.Get(ctx, e.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if e.OID != want.OID || e.Type != want.Type || e.Size != want.Size || !bytes.Equal(e.Data, want.Data) || (e.Data == nil) != (want.Data == nil) {
			t.Errorf("%s: ListContents gives %s %s %d %q, Get %s %s %d %q", e.Ref, e.OID, e.Type, e.Size, e.Data, want.OID, want.Type, want.Size, want.Data)
		}
	}
	if w := "refs/ao/x/a refs/ao/x/big refs/ao/x/commit refs/ao/x/empty refs/ao/x/odd"; strings.Join(refs, " ") != w {
		t.Errorf("listed %v, want %s", refs, w)
	}
	if none, err := refstore.ListContents(ctx, dir, "refs/ao/z/"); err != nil || len(none) != 0 {
		t.Errorf("an empty prefix lists %v, %v", none, err)
	}
	_, err = refstore.ListContents(ctx, t.TempDir(), "refs/ao/x/")
	var ge *refstore.GitError
	if !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "not a git repository") {
		t.Errorf("outside a repository: %v, want git's \"not a git repository\"", err)
	}
	if _, err := refstore.ListContents(ctx, dir, "refs/ao/*"); !errors.Is(err, refstore.ErrBadName) {
		t.Errorf("a pattern for a prefix: %v, want ErrBadName", err)
	}
}

// A Lazy Store finds the same repository as a plain one and reads and
// writes as it does, its cat-file and configuration asked for when first
// needed, from a subdirectory too.
func TestOpenLazy(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := gittest.Init(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := open(t, dir, refstore.Options{})
	oid := put(t, plain, "refs/ao/x/a", "", `{"schema":"x"}`)
	lazy := open(t, sub, refstore.Options{Lazy: true})
	if lazy.Layout().WorkTree != plain.Layout().WorkTree || lazy.GitDir() != plain.GitDir() || lazy.CommonDir() != plain.CommonDir() {
		t.Errorf("Lazy found %+v, a plain Open %+v", lazy.Layout(), plain.Layout())
	}
	e, err := lazy.Get(ctx, "refs/ao/x/a")
	if err != nil || e.OID != oid || string(e.Data) != `{"schema":"x"}` {
		t.Errorf("Lazy Get: %+v, %v", e, err)
	}
	put(t, lazy, "refs/ao/x/b", "", `{"schema":"y"}`)
	if e, err := plain.Get(ctx, "refs/ao/x/b"); err != nil || string(e.Data) != `{"schema":"y"}` {
		t.Errorf("a write through the Lazy Store reads back %+v, %v", e, err)
	}
}

// A ReadLater Store starts no git cat-file until something is read (git's
// own trace says which git commands ran), then reads and writes as a
// plain one does.
func TestOpenReadLater(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := gittest.Init(t)
	plain := open(t, dir, refstore.Options{})
	oid := put(t, plain, "refs/ao/x/a", "", `{"schema":"x"}`)
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	catFiles := func() int {
		b, _ := os.ReadFile(trace)
		return strings.Count(string(b), `"argv":["git","cat-file"`)
	}
	later := open(t, dir, refstore.Options{ReadLater: true})
	if _, err := later.RefIDs(ctx, "refs/ao/"); err != nil {
		t.Fatal(err)
	}
	if n := catFiles(); n != 0 {
		t.Errorf("opened and listed refs: %d git cat-file started, want none before a read", n)
	}
	e, err := later.Get(ctx, "refs/ao/x/a")
	if err != nil || e.OID != oid || string(e.Data) != `{"schema":"x"}` {
		t.Errorf("ReadLater Get: %+v, %v", e, err)
	}
	if n := catFiles(); n != 1 {
		t.Errorf("after a read: %d git cat-file started, want one", n)
	}
	put(t, later, "refs/ao/x/b", "", `{"schema":"y"}`)
	if e, err := plain.Get(ctx, "refs/ao/x/b"); err != nil || string(e.Data) != `{"schema":"y"}` {
		t.Errorf("a write through the ReadLater Store reads back %+v, %v", e, err)
	}
}
