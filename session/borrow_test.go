package session

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
)

// borrowedRecords are records as a listing meets them: what git-handoff
// writes (hostile text in every field, each optional part), what only
// encoding/json reads (the fallback), and what does not decode.
func borrowedRecords(t *testing.T) [][]byte {
	t.Helper()
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 1234, time.UTC)
	var out [][]byte
	for i, s := range hostile {
		at := t0.Add(time.Duration(i) * time.Hour)
		r := Record{Schema: Schema, ID: fmt.Sprintf("app-%d", i), Owner: s, Branch: s, Worktree: s, Host: s, Harness: s,
			Model: s, Status: s, Prompt: s, StartHead: s, Summary: s, CreatedAt: t0, UpdatedAt: at, Supersedes: s,
			ReplacedBy: s, HandoffReason: s, HandoffContextMode: s, HandoffPackage: s, EndedAt: &at, HandoffAt: &t0,
			Launched:  map[string]Launched{s: {NativeID: s, First: t0, Last: at}, "codex": {First: at}},
			Switching: &Switching{By: s, Since: t0, Until: at, To: s}, PR: &PRPointer{Repo: s, Number: i, URL: s},
			ClaimedHandoff: json.RawMessage(`{"schema":"handoff/v1","id":"h-1","nextSteps":["x"]}`),
			Runtime:        &Runtime{Kind: "tmux", Socket: s, Name: s, Host: s},
			Cause:          refstore.Cause{Rev: uint64(i), Prev: s, Seen: map[string]uint64{s: 1}},
		}
		data, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
		if i%2 == 0 {
			r.Launched, r.Switching, r.PR, r.ClaimedHandoff, r.Runtime, r.EndedAt, r.HandoffAt = nil, nil, nil, nil, nil, nil, nil
			data, _ = json.Marshal(&r)
			out = append(out, data)
		}
	}
	return append(out,
		[]byte(`{"schema":"session/v1","id":"app-20","owner":"o","branch":"b","status":"active","launched":{},"createdAt":"2026-11-01T12:00:00Z","updatedAt":"2026-11-01T12:00:00Z"}`),
		// null for a string: the fast path declines it, encoding/json reads it.
		[]byte(`{"schema":"session/v1","id":"app-21","owner":null,"branch":"b","status":"active","createdAt":"2026-11-01T12:00:00Z","updatedAt":"2026-11-01T12:00:00Z"}`),
		[]byte(`{"schema":"session/v1","id":"elsewhere","owner":"o","branch":"b","status":"active","createdAt":"2026-11-01T12:00:00Z","updatedAt":"2026-11-01T12:00:00Z"}`),
		[]byte(`{"schema":"session/v2","id":"app-23"}`),
		[]byte(`{"schema":"session/v1","id":"app-24",`),
		[]byte(`not json`),
	)
}

// sameDecoding fails t unless a Borrower decodes data as Decode does, and
// a Clone of what it decoded survives the buffer being overwritten and
// the next record being decoded into the same Borrower.
func sameDecoding(t *testing.T, b *Borrower, buf []byte, data []byte, ref string) {
	t.Helper()
	e := refstore.Entry{Ref: ref, OID: "1234", Type: "blob", Size: int64(len(data)), Data: append(buf[:0], data...)}
	want, werr := Decode(refstore.Entry{Ref: ref, OID: "1234", Type: "blob", Size: int64(len(data)), Data: data})
	got, gerr := b.Decode(e)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("Borrower.Decode error %v, Decode %v; record %q", gerr, werr, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Borrower.Decode %+v\nDecode %+v; record %q", got, want, data)
	}
	kept := got.Record.Clone()
	for i := range e.Data {
		e.Data[i] = 'X'
	}
	next := []byte(`{"schema":"session/v1","id":"other","owner":"p","branch":"q","status":"ended","launched":{"zz":{"nativeId":"n","first":"2026-11-01T12:00:00Z","last":"2026-11-01T12:00:00Z"}},"createdAt":"2026-11-01T12:00:00Z","updatedAt":"2026-11-01T12:00:00Z"}`)
	if _, err := b.Decode(refstore.Entry{Ref: refstore.SessionPrefix + "other", Type: "blob", Size: int64(len(next)), Data: append(e.Data[:0], next...)}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kept, want.Record) {
		t.Fatalf("a clone changed with the buffer it was decoded from:\n got %+v\nwant %+v", kept, want.Record)
	}
}

func TestBorrowerDecodesAsDecode(t *testing.T) {
	var b Borrower
	buf := make([]byte, 0, 1<<16)
	decoded := 0
	for _, data := range borrowedRecords(t) {
		var id struct{ ID string }
		_ = json.Unmarshal(data, &id)
		sameDecoding(t, &b, buf, data, refstore.SessionPrefix+id.ID)
		if _, err := Decode(refstore.Entry{Ref: refstore.SessionPrefix + id.ID, Type: "blob", Size: int64(len(data)), Data: data}); err == nil {
			decoded++
		}
	}
	if decoded < len(hostile) {
		t.Fatalf("only %d records decoded: the comparison compared errors", decoded)
	}
	// A record that names another ref, and one past the size cap.
	data := borrowedRecords(t)[0]
	sameDecoding(t, &b, buf, data, refstore.SessionPrefix+"app-99")
	var err error
	if _, err = b.Decode(refstore.Entry{Ref: refstore.SessionPrefix + "app-0", Type: "blob", Size: refstore.MaxRecord + 1}); err == nil {
		t.Fatal("Borrower.Decode accepted a record past the size cap")
	}
	if _, derr := Decode(refstore.Entry{Ref: refstore.SessionPrefix + "app-0", Type: "blob", Size: refstore.MaxRecord + 1}); derr.Error() != err.Error() {
		t.Fatalf("past the cap: Borrower.Decode %v, Decode %v", err, derr)
	}
}

// FuzzBorrowerMatchesDecode: a Borrower decodes any blob as Decode does,
// and what it decoded, cloned, outlives the buffer. Seeds:
// testdata/fuzz/FuzzUnmarshalFast's records, under this name.
func FuzzBorrowerMatchesDecode(f *testing.F) {
	f.Add([]byte(`{"schema":"session/v1","id":"app-1","owner":"o","branch":"b","status":"active","launched":{"x":{"nativeId":"n\u00e9","first":"2026-11-01T12:00:00Z","last":"2026-11-01T12:00:00Z"}},"createdAt":"2026-11-01T12:00:00Z","updatedAt":"2026-11-01T12:00:00Z"}`))
	f.Add([]byte(`{"schema":"session/v1","id":"app-1","owner":"a\"b","prev":"\\","seen":{"k":1},"runtime":{"kind":"tmux","socket":"s","name":"n"}}`))
	var b Borrower
	buf := make([]byte, 0, 1<<16)
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecoding(t, &b, buf, data, refstore.SessionPrefix+"app-1")
	})
}

// Clone copies every part of a record: filled field by field by
// reflection (so a field added later is filled too), its clone is equal
// and shares no string, map, slice or pointer with it.
func TestCloneSharesNothing(t *testing.T) {
	var r Record
	fill(reflect.ValueOf(&r).Elem(), 0)
	c := r.Clone()
	if !reflect.DeepEqual(c, r) {
		t.Fatalf("Clone() = %+v, want %+v", c, r)
	}
	if path, ok := shared(reflect.ValueOf(r), reflect.ValueOf(c), "Record"); ok {
		t.Fatalf("Clone shares %s with the record", path)
	}
}

// fill sets every field of v to something not zero.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", depth))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(depth + 1))
	case reflect.Uint64, reflect.Uint8:
		v.SetUint(uint64(depth + 1))
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, depth, time.UTC)))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), depth+i+1)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+2)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), depth+i+1)
		}
		v.Set(s)
	default:
		panic(fmt.Sprintf("fill: %v", v.Type()))
	}
}

// shared finds memory a and b both point at.
func shared(a, b reflect.Value, path string) (string, bool) {
	switch a.Kind() {
	case reflect.String:
		if a.Len() > 0 && unsafe.StringData(a.String()) == unsafe.StringData(b.String()) {
			return path, true
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p, ok := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); ok {
				return p, true
			}
		}
	case reflect.Pointer:
		if a.IsNil() {
			return "", false
		}
		if a.Pointer() == b.Pointer() {
			return path, true
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Map:
		if a.IsNil() {
			return "", false
		}
		if a.Pointer() == b.Pointer() {
			return path, true
		}
		for _, k := range a.MapKeys() {
			var bk reflect.Value
			for _, k2 := range b.MapKeys() {
				if k2.Interface() == k.Interface() {
					bk = k2
				}
			}
			if p, ok := shared(k, bk, path+"[key]"); ok {
				return p, true
			}
			if p, ok := shared(a.MapIndex(k), b.MapIndex(bk), path+"[value]"); ok {
				return p, true
			}
		}
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return path, true
		}
	}
	return "", false
}

// A NodeSet keeps nothing of a borrowed record: its nodes read the same
// after the blob's buffer is overwritten.
func TestNodeSetKeepsNoBorrowedMemory(t *testing.T) {
	var (
		b    Borrower
		ns   NodeSet
		want []Record
	)
	buf := make([]byte, 0, 1<<16)
	for _, data := range borrowedRecords(t)[:6] {
		var id struct{ ID string }
		if err := json.Unmarshal(data, &id); err != nil {
			t.Fatal(err)
		}
		ref := refstore.SessionPrefix + id.ID
		blob := append(buf[:0], data...)
		s, err := b.Decode(refstore.Entry{Ref: ref, Type: "blob", Size: int64(len(data)), Data: blob})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, s.Record.Clone())
		if id := ns.Add(&s.Record); id != s.ID {
			t.Fatalf("Add returned %q, want %q", id, s.ID)
		}
		for j := range blob {
			blob[j] = 'X'
		}
	}
	if got, w := ns.Nodes(), Nodes(want); !reflect.DeepEqual(got, w) {
		t.Fatalf("nodes of borrowed records:\n got %+v\nwant %+v", got, w)
	}
}

// A listing decodes every record into the same variable: each reads as
// Decode reads it on its own, nothing left of the record before it
// (records with every part follow ones with none, and the other way
// round), borrowing or not.
func TestDecodeIntoReusedVariable(t *testing.T) {
	records := borrowedRecords(t)
	for _, b := range []*Borrower{nil, new(Borrower)} {
		var cur Stored
		for i := range 3 * len(records) {
			// Every record after every other, near enough: forwards,
			// backwards, then in strides.
			j := i % len(records)
			switch i / len(records) {
			case 1:
				j = len(records) - 1 - j
			case 2:
				j = j * 7 % len(records)
			}
			data := records[j]
			var id struct{ ID string }
			_ = json.Unmarshal(data, &id)
			e := refstore.Entry{Ref: refstore.SessionPrefix + id.ID, OID: fmt.Sprint(i), Type: "blob", Size: int64(len(data)), Data: data}
			want, werr := Decode(e)
			err := decodeInto(e, b, &cur)
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("decodeInto error %v, Decode %v; record %q", err, werr, data)
			}
			if err == nil && !reflect.DeepEqual(cur, want) {
				t.Fatalf("decodeInto after another record:\n got %+v\nwant %+v; record %q", cur, want, data)
			}
		}
	}
}

// A NodeSet of a listing's size (past a chunk of nodes and a block of
// text, with a string too long for a block) gives the nodes Nodes gives.
func TestNodeSetOfManyRecords(t *testing.T) {
	for _, linksOnly := range []bool{false, true} {
		checkNodeSetOfManyRecords(t, linksOnly)
	}
}

func checkNodeSetOfManyRecords(t *testing.T, linksOnly bool) {
	var (
		ns   = NodeSet{LinksOnly: linksOnly}
		recs []Record
	)
	long := strings.Repeat("long branch name ", textBlock/8)
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := range 3*nodeChunk + 17 {
		r := Record{ID: fmt.Sprintf("app-%06d", i), Status: StatusActive, Harness: fmt.Sprintf("h%d", i%300),
			Branch: fmt.Sprintf("feature-%d", i), CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		switch {
		case i%3 == 0:
			r.ReplacedBy, r.Status = fmt.Sprintf("app-%06d", i+1), StatusReplaced
		case i%3 == 1:
			r.Supersedes, r.HandoffReason = fmt.Sprintf("app-%06d", i-1), []string{"stuck", "crashed", "free text"}[i%3]
		}
		if i%1000 == 5 {
			r.Branch = long
		}
		recs = append(recs, r)
		// Added from a buffer that is overwritten next: nothing is kept of it.
		b := r.Clone()
		if id := ns.Add(&b); id != r.ID {
			t.Fatalf("Add returned %q, want %q", id, r.ID)
		}
		b.ID, b.Branch, b.Supersedes = "overwritten", "overwritten", "overwritten"
	}
	// What each node must hold, from the records themselves: the reason
	// moves to the replaced node.
	want := make([]lineage.Node, len(recs))
	reason := map[string]string{}
	for _, r := range recs {
		if r.Supersedes != "" {
			reason[r.Supersedes] = r.HandoffReason
		}
	}
	for i, r := range recs {
		want[i] = lineage.Node{ID: r.ID, Supersedes: r.Supersedes, ReplacedBy: r.ReplacedBy, Status: r.Status,
			Reason: reason[r.ID], Harness: r.Harness, Branch: r.Branch, At: r.CreatedAt}
		if linksOnly {
			want[i].Status, want[i].Harness, want[i].Branch, want[i].At = "", "", "", time.Time{}
		}
	}
	if got := ns.Nodes(); !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("node %d = %+v, want %+v", i, got[i], want[i])
			}
		}
		t.Fatalf("%d nodes, want %d", len(got), len(want))
	}
}

// A listing's lineage (its summaries and problems) reads the same from
// the nodes of LinksOnly as from whole ones, over lineages of every
// shape: forks, cycles, duplicates, dangling links, empty ids.
func TestLinksOnlyNodesReadTheSameLineage(t *testing.T) {
	names := []string{"a", "b", "c", "d", "", "ghost"}
	r := rand.New(rand.NewPCG(7, 15))
	pick := func() string {
		if r.IntN(2) == 0 {
			return ""
		}
		return names[r.IntN(len(names))]
	}
	for range 3000 {
		var recs []Record
		for range r.IntN(8) {
			recs = append(recs, Record{ID: names[r.IntN(len(names)-1)], Supersedes: pick(), ReplacedBy: pick(),
				HandoffReason: []string{"", "stuck", "free text"}[r.IntN(3)], Status: []string{"active", "replaced", "merged"}[r.IntN(3)],
				Harness: pick(), Branch: pick(), CreatedAt: time.Unix(int64(r.IntN(3)), 0)})
		}
		whole, links := NodeSet{}, NodeSet{LinksOnly: true}
		for i := range recs {
			whole.Add(&recs[i])
			links.Add(&recs[i])
		}
		gw, gl := lineage.NewGraph(whole.Nodes()), lineage.FromNodes(links.Nodes())
		if a, b := fmt.Sprint(gw.Problems()), fmt.Sprint(gl.Problems()); a != b {
			t.Fatalf("problems %s, from whole nodes %s; records %+v", b, a, recs)
		}
		for _, id := range names {
			if a, b := lineage.Summary(gw, id), lineage.Summary(gl, id); a != b {
				t.Fatalf("Summary(%q) = %q, from whole nodes %q; records %+v", id, b, a, recs)
			}
		}
	}
}

// Each node gets the reason of the last record that supersedes it, in
// ref order or not, with ids repeated or not.
func TestNodesCarryTheLastReason(t *testing.T) {
	names := []string{"a", "b", "c", "d", ""}
	r := rand.New(rand.NewPCG(12, 1))
	for n := range 3000 {
		var recs []Record
		for range r.IntN(10) {
			recs = append(recs, Record{ID: names[r.IntN(len(names))], Supersedes: names[r.IntN(len(names))],
				HandoffReason: []string{"", "stuck", "crashed", "free text"}[r.IntN(4)]})
		}
		if n%2 == 0 {
			slices.SortStableFunc(recs, func(a, b Record) int { return strings.Compare(a.ID, b.ID) })
		}
		reason := map[string]string{}
		for _, rec := range recs {
			if rec.Supersedes != "" && rec.HandoffReason != "" {
				reason[rec.Supersedes] = rec.HandoffReason
			}
		}
		got := Nodes(recs)
		if len(got) != len(recs) {
			t.Fatalf("%d nodes of %d records", len(got), len(recs))
		}
		for i, nd := range got {
			if nd.ID != recs[i].ID || nd.Reason != reason[nd.ID] {
				t.Fatalf("node %d = %+v, want id %q reason %q; records %+v", i, nd, recs[i].ID, reason[recs[i].ID], recs)
			}
		}
	}
}

// times are time strings of every kind a record may hold: what
// git-handoff writes on a UTC clock and elsewhere, and what time's
// parser reads or refuses at the edges of utcTime's form.
var times = []string{
	"2026-11-01T12:00:00Z", "2026-11-01T12:00:00.5Z", "2026-11-01T12:00:00.123456789Z", "2026-11-01T12:00:00.1234567891Z",
	"2026-11-01T12:00:00.Z", "2026-11-01T12:00:00,5Z", "2026-11-01T12:00:00.000000000Z", "2026-11-01T12:00:00+01:00",
	"2026-11-01T12:00:00-00:00", "2026-11-01T12:00:00.5+05:30", "2026-11-01T12:00:00z", "2026-11-01t12:00:00Z",
	"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0000-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
	"2000-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2024-02-29T23:59:59Z", "2026-04-31T00:00:00Z", "2026-12-32T00:00:00Z",
	"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-01T24:00:00Z", "2026-11-01T23:60:00Z",
	"2026-11-01T23:59:60Z", "2026-11-01T1:00:00Z", "2026-11-01T01:00:0Z", "+026-11-01T12:00:00Z", "2026-11-01 12:00:00Z",
	"2026-11-01T12:00:00", "2026-11-01", "", "Z", "never", "２026-11-01T12:00:00Z", "2026-11-01T12:00:00Z ",
}

// A Borrower reads every time as Decode reads it: each of times as it
// is, escaped, and where no string is.
func TestBorrowerReadsTimesAsDecode(t *testing.T) {
	var b Borrower
	buf := make([]byte, 0, 1<<16)
	for _, tm := range times {
		q, _ := json.Marshal(tm)
		escaped := strings.Replace(string(q), "T", `\u0054`, 1)
		for _, v := range []string{string(q), escaped, "null", "20261101", `["` + tm + `"]`} {
			for _, field := range []string{`"createdAt":%s`, `"updatedAt":%s`, `"endedAt":%s`, `"handoffAt":%s`,
				`"launched":{"codex":{"first":%s,"last":"2026-11-01T12:00:00Z"}}`, `"launched":{"codex":{"last":%s}}`} {
				data := fmt.Sprintf(`{"schema":"session/v1","id":"app-1","owner":"o","branch":"b","status":"active",`+field+`}`, v)
				sameDecoding(t, &b, buf, []byte(data), refstore.SessionPrefix+"app-1")
			}
		}
	}
}

// utcTime reads what time.Time.UnmarshalJSON reads, whenever it reads
// anything.
func FuzzUTCTime(f *testing.F) {
	for _, tm := range times {
		f.Add(tm)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := utcTime(s)
		if !ok {
			return
		}
		q, _ := json.Marshal(s)
		var want time.Time
		if err := want.UnmarshalJSON(q); err != nil || !reflect.DeepEqual(got, want) || got != want {
			t.Fatalf("utcTime(%q) = %v; UnmarshalJSON %v, %v", s, got, want, err)
		}
	})
}

// utcTime reads the last second of days of years 0…9999 as time does:
// every day of the years around leap-year rules and the ends, every
// 37th of the others.
func TestUTCTimeEveryDay(t *testing.T) {
	every := map[int]bool{0: true, 1: true, 4: true, 100: true, 1899: true, 1900: true, 1970: true, 2000: true, 2024: true, 2025: true, 9999: true}
	for at := time.Date(0, 1, 1, 23, 59, 59, 0, time.UTC); at.Year() < 10000; at = at.AddDate(0, 0, 1) {
		if !every[at.Year()] && at.YearDay()%37 != 0 {
			continue
		}
		for _, s := range []string{at.Format(time.RFC3339), at.Add(123 * time.Millisecond).Format(time.RFC3339Nano)} {
			got, ok := utcTime(s)
			q, _ := json.Marshal(s)
			var want time.Time
			if err := want.UnmarshalJSON(q); err != nil || !ok || got != want {
				t.Fatalf("utcTime(%q) = %v, %v; UnmarshalJSON %v, %v", s, got, ok, want, err)
			}
		}
	}
}

// benchRecords are n records as bench/session_ls.sh writes them.
func benchRecords(n int) [][]byte {
	harness := []string{"claude-code", "codex", "gemini"}
	var out [][]byte
	for i := range n {
		status, extra := "active", ""
		switch {
		case i%3 == 0 && i+1 < n:
			status = "replaced"
			extra = fmt.Sprintf(`,"replacedBy":"app-%d","handoffAt":"2026-11-02T09:00:00Z","endedAt":"2026-11-02T09:00:00Z"`, i+1)
		case i%3 == 1:
			extra = fmt.Sprintf(`,"supersedes":"app-%d","handoffReason":"stuck","handoffAt":"2026-11-02T09:00:00Z","handoffContextMode":"summary"`, i-1)
		case i%7 == 0:
			status, extra = "ended", `,"endedAt":"2026-11-02T10:00:00Z"`
		}
		h := harness[i%3]
		out = append(out, fmt.Appendf(nil, `{"schema":"session/v1","id":"app-%d","owner":"owner%d@example.com","branch":"feature-%d","worktree":"/tmp/wt-%d","host":"bench","harness":"%s","model":"model-x","status":"%s","prompt":"implement feature %d and its tests","summary":"did the first half of feature %d; tests pass","createdAt":"2026-11-01T12:00:00Z","updatedAt":"2026-11-02T09:00:00Z","launched":{"%s":{"nativeId":"11111111-1111-4111-8111-%012d","first":"2026-11-01T12:00:00Z","last":"2026-11-02T09:00:00Z"}}%s}`,
			i, i%97, i, i, h, status, i, i, h, i, extra))
	}
	return out
}

// BenchmarkBorrowerDecode: what a listing pays per record to decode it.
func BenchmarkBorrowerDecode(b *testing.B) {
	recs := benchRecords(1000)
	es := make([]refstore.Entry, len(recs))
	for i, data := range recs {
		es[i] = refstore.Entry{Ref: fmt.Sprintf("%sapp-%d", refstore.SessionPrefix, i), Type: "blob", Size: int64(len(data)), Data: data}
	}
	var (
		br  Borrower
		cur Stored
	)
	b.ReportAllocs()
	for b.Loop() {
		for i := range es {
			if err := decodeInto(es[i], &br, &cur); err != nil {
				b.Fatal(err)
			}
		}
	}
}
