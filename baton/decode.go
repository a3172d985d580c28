package baton

import "github.com/git-handoff/git-handoff/internal/jsonrec"

// batonFields and deletionFields are the JSON names of Baton's and
// Deletion's fields (Cause's promoted ones included), in lower case, for
// jsonrec.Reader.Unknown.
var (
	batonFields = []string{"schema", "id", "owner", "branch", "shared", "nextsteps", "failedapproaches",
		"openquestions", "harness", "sessionid", "createdat", "head", "claimed", "claimedat",
		"claimedbysession", "deleted", "rev", "prev", "seen"}
	deletionFields = []string{"reason", "at"}
)

// UnmarshalFast decodes data into b in one pass, as json.Unmarshal would,
// and reports whether it did: false leaves b unspecified and the caller
// to encoding/json (jsonrec says what it declines). Fuzzed against
// json.Unmarshal (FuzzUnmarshalFast).
func UnmarshalFast(data []byte, b *Baton) bool {
	var r jsonrec.Reader
	r.Reset(data)
	readBaton(&r, b)
	return r.End()
}

func readBaton(r *jsonrec.Reader, b *Baton) {
	var seen uint64
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		switch string(key) {
		case "schema":
			r.Seen(&seen, 0)
			b.Schema = r.String()
		case "id":
			r.Seen(&seen, 1)
			b.ID = r.String()
		case "owner":
			r.Seen(&seen, 2)
			b.Owner = r.String()
		case "branch":
			r.Seen(&seen, 3)
			b.Branch = r.String()
		case "shared":
			r.Seen(&seen, 4)
			b.Shared = r.Bool()
		case "nextSteps":
			r.Seen(&seen, 5)
			b.NextSteps = r.Strings()
		case "failedApproaches":
			r.Seen(&seen, 6)
			b.FailedApproaches = r.Strings()
		case "openQuestions":
			r.Seen(&seen, 7)
			b.OpenQuestions = r.Strings()
		case "harness":
			r.Seen(&seen, 8)
			b.Harness = r.String()
		case "sessionId":
			r.Seen(&seen, 9)
			b.SessionID = r.String()
		case "createdAt":
			r.Seen(&seen, 10)
			b.CreatedAt = r.Time()
		case "head":
			r.Seen(&seen, 11)
			b.Head = r.String()
		case "claimed":
			r.Seen(&seen, 12)
			b.Claimed = r.Bool()
		case "claimedAt":
			r.Seen(&seen, 13)
			t := r.Time()
			b.ClaimedAt = &t
		case "claimedBySession":
			r.Seen(&seen, 14)
			b.ClaimedBySession = r.String()
		case "deleted":
			r.Seen(&seen, 15)
			b.Deleted = readDeletion(r)
		case "rev":
			r.Seen(&seen, 16)
			b.Rev = r.Uint64()
		case "prev":
			r.Seen(&seen, 17)
			b.Prev = r.String()
		case "seen":
			r.Seen(&seen, 18)
			b.Seen = r.Uint64Map()
		default:
			r.Unknown(key, batonFields)
		}
	}
}

func readDeletion(r *jsonrec.Reader) *Deletion {
	d := &Deletion{}
	var seen uint64
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		switch string(key) {
		case "reason":
			r.Seen(&seen, 0)
			d.Reason = r.String()
		case "at":
			r.Seen(&seen, 1)
			d.At = r.Time()
		default:
			r.Unknown(key, deletionFields)
		}
	}
	return d
}

var objectiveFields = []string{"schema", "owner", "branch", "text", "sessionid", "setat", "rev", "prev", "seen"}

// UnmarshalObjectiveFast decodes data into o in one pass, as json.Unmarshal
// would, and reports whether it did (as UnmarshalFast; fuzzed against
// json.Unmarshal by FuzzUnmarshalObjectiveFast).
func UnmarshalObjectiveFast(data []byte, o *Objective) bool {
	var r jsonrec.Reader
	r.Reset(data)
	var seen uint64
	obj := r.Object()
	for key, ok := obj.Next(); ok; key, ok = obj.Next() {
		switch string(key) {
		case "schema":
			r.Seen(&seen, 0)
			o.Schema = r.String()
		case "owner":
			r.Seen(&seen, 1)
			o.Owner = r.String()
		case "branch":
			r.Seen(&seen, 2)
			o.Branch = r.String()
		case "text":
			r.Seen(&seen, 3)
			o.Text = r.String()
		case "sessionId":
			r.Seen(&seen, 4)
			o.SessionID = r.String()
		case "setAt":
			r.Seen(&seen, 5)
			o.SetAt = r.Time()
		case "rev":
			r.Seen(&seen, 6)
			o.Rev = r.Uint64()
		case "prev":
			r.Seen(&seen, 7)
			o.Prev = r.String()
		case "seen":
			r.Seen(&seen, 8)
			o.Seen = r.Uint64Map()
		default:
			r.Unknown(key, objectiveFields)
		}
	}
	return r.End()
}
