package baton

import (
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
	"github.com/git-handoff/git-handoff/refstore"
)

// fuzzList picks a list shape from two bits: nil, empty, one or two items.
func fuzzList(bits uint64, a, b string) []string {
	switch bits & 3 {
	case 0:
		return nil
	case 1:
		return []string{}
	case 2:
		return []string{a}
	}
	return []string{a, b}
}

// fuzzTime is a time from the fuzzer's numbers, in a zone whose offset
// they choose too (a day or more away from UTC is refused by MarshalJSON,
// as is a year past 9999: the encoder must fail there too).
func fuzzTime(sec, nsec int64, zone int64) time.Time {
	tm := time.Unix(sec, nsec)
	if zone%7 == 0 {
		return tm.UTC()
	}
	return tm.In(time.FixedZone("z", int(zone%(30*3600))))
}

func fuzzSeeds(f *testing.F) {
	for i, s := range jsontest.Strings {
		n := jsontest.Strings[(i+3)%len(jsontest.Strings)]
		for j, tm := range append(jsontest.Times, jsontest.FarTimes...) {
			f.Add(s, n, "h-"+s, uint64(i*7+j)*0x9e3779b97f4a7c15, tm.Unix(), int64(tm.Nanosecond()), int64(j*3600*5))
		}
	}
}

// FuzzAppendJSON: Baton.AppendJSON and Objective.AppendJSON write what
// json.Marshal writes, and fail where it fails. The seeds run with `go
// test`.
func FuzzAppendJSON(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, a, b, c string, bits uint64, sec, nsec, zone int64) {
		tm := fuzzTime(sec, nsec, zone)
		later := fuzzTime(sec+int64(bits>>40), nsec/3, zone/5)
		bt := &Baton{
			Schema: a, ID: b, Owner: c, Branch: a + c, Shared: bits&1 != 0,
			NextSteps: fuzzList(bits>>1, a, b), FailedApproaches: fuzzList(bits>>3, c, a), OpenQuestions: fuzzList(bits>>5, b, c),
			CreatedAt: tm, Claimed: bits&(1<<7) != 0,
		}
		if bits&(1<<8) != 0 {
			bt.Harness, bt.SessionID, bt.Head, bt.ClaimedBySession = b, c, a, b+c
		}
		if bits&(1<<9) != 0 {
			bt.ClaimedAt = &later
		}
		if bits&(1<<10) != 0 {
			bt.Deleted = &Deletion{Reason: c, At: later}
		}
		if bits&(1<<11) != 0 {
			bt.Cause = refstore.Cause{Rev: bits >> 12, Prev: a}
		}
		if bits&(1<<12) != 0 {
			bt.Seen = map[string]uint64{a: bits >> 20, b: 1, c + "<": 2}
		} else if bits&(1<<13) != 0 {
			bt.Seen = map[string]uint64{}
		}
		jsontest.Check(t, bt, func() ([]byte, error) { return bt.AppendJSON(nil) })
		jsontest.Check(t, bt, func() ([]byte, error) { return Marshal(bt) })
		o := &Objective{Schema: a, Owner: b, Branch: c, Text: a + b, SetAt: tm, Cause: bt.Cause}
		if bits&(1<<14) != 0 {
			o.SessionID = c
		}
		jsontest.Check(t, o, func() ([]byte, error) { return o.AppendJSON(nil) })
	})
}

// TestAppendJSONFields tries every field of the records, one at a time and
// all together, so a field added without teaching the encoder fails here.
func TestAppendJSONFields(t *testing.T) {
	for _, b := range jsontest.Variants[Baton](t) {
		jsontest.Check(t, &b, func() ([]byte, error) { return b.AppendJSON(nil) })
		data, err := refstore.Encode(&b)
		jsontest.Check(t, &b, func() ([]byte, error) { return data, err })
	}
	for _, o := range jsontest.Variants[Objective](t) {
		jsontest.Check(t, &o, func() ([]byte, error) { return o.AppendJSON(nil) })
	}
}

// TestStoredEncodesWhole: a Stored does not take Baton's encoder, which
// would leave out its ref.
func TestStoredEncodesWhole(t *testing.T) {
	s := &Stored{Baton: Baton{Schema: Schema, ID: "h-1", CreatedAt: jsontest.Times[1]}, Ref: "refs/ao/handoffs/private/o/b"}
	jsontest.Check(t, s, func() ([]byte, error) { return refstore.Encode(s) })
}
