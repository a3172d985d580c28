package baton

import (
	"fmt"
	"os"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

// A start that lists one directory of many appends a record of it to the
// head; the head read back says what the last start found, and is written
// again whole once it holds far more records than directories.
func TestEligibleSharedHeadAppends(t *testing.T) {
	st, _ := testStore(t)
	if !st.Watchable() {
		t.Skip("stamps are not trusted on this filesystem: no head")
	}
	for o := 0; o < 5; o++ {
		putShared(t, st, fmt.Sprintf("o%d", o), "first", o)
	}
	eligibleID(t, st)
	settle(t, st)
	path := sharedNotePath(st)
	var sizes []int64
	for i := 0; i < 100; i++ {
		last := putShared(t, st, fmt.Sprintf("o%d", i%5), fmt.Sprintf("b%02d", i%7), 10+i)
		if id, _ := eligibleID(t, st); id != last.ID {
			t.Fatalf("round %d: eligible = %q, want %s", i, id, last.ID)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
		h, ok := readHead(path)
		if !ok || !h.whole || len(h.dirs) != 6 { // the five owners and the shared directory itself
			t.Fatalf("round %d: the head reads %v (whole %v) with %d directories", i, ok, h.whole, len(h.dirs))
		}
		u := headDir(t, &h, refstore.SharedPrefix+fmt.Sprintf("o%d/", i%5))
		if len(u.top) == 0 || u.top[0].ref != last.Ref || u.top[0].oid != last.OID {
			t.Fatalf("round %d: the head's newest of %s is %+v, want %s", i, u.dir, u.top, last.Ref)
		}
		if h.records > len(h.dirs)+len(h.dirs)/2+16+1 {
			t.Fatalf("round %d: %d records for %d directories: never written again whole", i, h.records, len(h.dirs))
		}
	}
	grewAndShrank(t, "head", sizes)
}

// The packed-refs fields are the last record's, and a directory stated
// under another sum of the shared range than the last record's is not
// believed (its packed refs were another packed-refs'); a later record
// wins for a directory, and one that names a directory gone removes it.
func TestReadHeadRecords(t *testing.T) {
	st, _ := testStore(t)
	path := sharedNotePath(st)
	dir := func(name string, live int) *sharedDir {
		return &sharedDir{dir: refstore.SharedPrefix + name + "/", live: live, stamp: refstore.Stamp{Ino: uint64(live), At: 1}}
	}
	s1 := &sharedHead{watched: true, sum: 1}
	s2 := &sharedHead{watched: true, sum: 2}
	data := []byte(headMagic)
	data = append(data, headRecord(headWhole, s1, []*sharedDir{dir("a", 1), dir("b", 1), dir("c", 1), dir("gone", 1)}, nil)...)
	data = append(data, headRecord(headUpdate, s2, []*sharedDir{dir("b", 2)}, nil)...)
	data = append(data, headRecord(headUpdate, s1, []*sharedDir{dir("c", 3)}, []string{refstore.SharedPrefix + "gone/"})...)
	if err := os.MkdirAll(st.CommonDir()+"/handoff", 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	h, ok := readHead(path)
	if !ok || !h.whole || h.sum != 1 || h.records != 7 {
		t.Fatalf("read %v whole %v sum %d records %d", ok, h.whole, h.sum, h.records)
	}
	var got []string
	for _, u := range h.dirs {
		got = append(got, fmt.Sprintf("%s=%d", u.dir[len(refstore.SharedPrefix):], u.live))
	}
	if fmt.Sprint(got) != "[a/=1 c/=3]" {
		t.Fatalf("directories %v, want a from the first record, c from the last, b (another sum) and gone dropped", got)
	}
	// An update record first is no head.
	bad := append([]byte(headMagic), headRecord(headUpdate, s1, []*sharedDir{dir("a", 1)}, nil)...)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := readHead(path); ok {
		t.Fatal("a head that starts with an update reads")
	}
}
