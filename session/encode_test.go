package session

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
	"github.com/git-handoff/git-handoff/refstore"
)

func fuzzTime(sec, nsec int64, zone int64) time.Time {
	tm := time.Unix(sec, nsec)
	if zone%7 == 0 {
		return tm.UTC()
	}
	return tm.In(time.FixedZone("z", int(zone%(30*3600))))
}

// FuzzAppendJSON: Record.AppendJSON writes what json.Marshal writes, and
// fails where it fails (a far time, a ClaimedHandoff that is not JSON).
// The seeds run with `go test`.
func FuzzAppendJSON(f *testing.F) {
	for i, s := range jsontest.Strings {
		n := jsontest.Strings[(i+3)%len(jsontest.Strings)]
		raw := jsontest.Raws[i%len(jsontest.Raws)]
		for j, tm := range append(jsontest.Times, jsontest.FarTimes...) {
			f.Add(s, n, "s-"+s, []byte(raw), uint64(i*7+j)*0x9e3779b97f4a7c15, tm.Unix(), int64(tm.Nanosecond()), int64(j*3600*5))
		}
	}
	f.Fuzz(func(t *testing.T, a, b, c string, raw []byte, bits uint64, sec, nsec, zone int64) {
		tm := fuzzTime(sec, nsec, zone)
		later := fuzzTime(sec+int64(bits>>40), nsec/3, zone/5)
		pick := func(bit uint, s string) string {
			if bits&(1<<bit) != 0 {
				return s
			}
			return ""
		}
		s := &Record{
			Schema: a, ID: b, Owner: c, Branch: a + b, Status: c + a,
			Worktree: pick(0, a), Host: pick(1, b), Harness: pick(2, c), Model: pick(3, a), Prompt: pick(4, b),
			StartHead: pick(5, c), Summary: pick(6, a+c), Supersedes: pick(7, b), ReplacedBy: pick(8, c),
			HandoffReason: pick(9, a), HandoffContextMode: pick(10, b), HandoffPackage: pick(11, c),
			CreatedAt: tm, UpdatedAt: later,
		}
		if bits&(1<<12) != 0 {
			s.EndedAt = &later
		}
		if bits&(1<<13) != 0 {
			s.HandoffAt = &tm
		}
		switch bits >> 14 & 3 {
		case 1:
			s.Launched = map[string]Launched{}
		case 2:
			s.Launched = map[string]Launched{a: {NativeID: b, First: tm, Last: later}, c: {First: later, Last: tm}}
		}
		if bits&(1<<16) != 0 {
			s.Switching = &Switching{By: a, Since: tm, Until: later, To: pick(17, c)}
		}
		if bits&(1<<18) != 0 {
			s.ClaimedHandoff = json.RawMessage(raw)
		}
		if bits&(1<<19) != 0 {
			s.PR = &PRPointer{Repo: a, Number: int(int32(bits >> 32)), URL: pick(20, b)}
		}
		if bits&(1<<21) != 0 {
			s.Runtime = &Runtime{Kind: a, Socket: b, Name: c, Host: pick(22, a)}
		}
		if bits&(1<<23) != 0 {
			s.Cause = refstore.Cause{Rev: bits >> 24, Prev: pick(24, a), Seen: map[string]uint64{b: bits >> 30, c: 3}}
		}
		jsontest.Check(t, s, func() ([]byte, error) { return s.AppendJSON(nil) })
	})
}

// TestAppendJSONFields tries every field of the record (of its parts
// too), one at a time and all together, so a field added without teaching
// the encoder fails here.
func TestAppendJSONFields(t *testing.T) {
	for _, s := range jsontest.Variants[Record](t) {
		jsontest.Check(t, &s, func() ([]byte, error) { return s.AppendJSON(nil) })
		data, err := refstore.Encode(&s)
		jsontest.Check(t, &s, func() ([]byte, error) { return data, err })
	}
	for _, s := range jsontest.Variants[Stored](t) {
		jsontest.Check(t, &s, func() ([]byte, error) { return refstore.Encode(&s) })
	}
}
