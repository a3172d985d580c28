package baton

import (
	"encoding/json"
	"errors"

	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/refstore"
)

// AppendJSON appends what json.Marshal writes for b, without reflection:
// refstore.Encode writes records with it (every `end` and `start` writes
// one, and encoding/json's per-type caches cost a short process more than
// the encoding). An error (a time outside years 0…9999) means nothing was
// written: the caller encodes with encoding/json, which reports it.
// FuzzAppendJSON and TestAppendJSONFields hold it to json.Marshal.
func (b *Baton) AppendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, `{"schema":`...)
	dst = jsonrec.AppendHTMLString(dst, b.Schema)
	dst = append(dst, `,"id":`...)
	dst = jsonrec.AppendHTMLString(dst, b.ID)
	dst = append(dst, `,"owner":`...)
	dst = jsonrec.AppendHTMLString(dst, b.Owner)
	dst = append(dst, `,"branch":`...)
	dst = jsonrec.AppendHTMLString(dst, b.Branch)
	dst = append(dst, `,"shared":`...)
	dst = jsonrec.AppendBool(dst, b.Shared)
	dst = append(dst, `,"nextSteps":`...)
	dst = jsonrec.AppendHTMLStrings(dst, b.NextSteps)
	dst = append(dst, `,"failedApproaches":`...)
	dst = jsonrec.AppendHTMLStrings(dst, b.FailedApproaches)
	dst = append(dst, `,"openQuestions":`...)
	dst = jsonrec.AppendHTMLStrings(dst, b.OpenQuestions)
	if b.Harness != "" {
		dst = append(dst, `,"harness":`...)
		dst = jsonrec.AppendHTMLString(dst, b.Harness)
	}
	if b.SessionID != "" {
		dst = append(dst, `,"sessionId":`...)
		dst = jsonrec.AppendHTMLString(dst, b.SessionID)
	}
	dst = append(dst, `,"createdAt":`...)
	if dst, err = jsonrec.AppendTime(dst, b.CreatedAt); err != nil {
		return nil, err
	}
	if b.Head != "" {
		dst = append(dst, `,"head":`...)
		dst = jsonrec.AppendHTMLString(dst, b.Head)
	}
	dst = append(dst, `,"claimed":`...)
	dst = jsonrec.AppendBool(dst, b.Claimed)
	if b.ClaimedAt != nil {
		dst = append(dst, `,"claimedAt":`...)
		if dst, err = jsonrec.AppendTime(dst, *b.ClaimedAt); err != nil {
			return nil, err
		}
	}
	if b.ClaimedBySession != "" {
		dst = append(dst, `,"claimedBySession":`...)
		dst = jsonrec.AppendHTMLString(dst, b.ClaimedBySession)
	}
	if d := b.Deleted; d != nil {
		dst = append(dst, `,"deleted":{"reason":`...)
		dst = jsonrec.AppendHTMLString(dst, d.Reason)
		dst = append(dst, `,"at":`...)
		if dst, err = jsonrec.AppendTime(dst, d.At); err != nil {
			return nil, err
		}
		dst = append(dst, '}')
	}
	dst = refstore.AppendCauseFields(dst, &b.Cause)
	return append(dst, '}'), nil
}

// AppendJSON of a Stored refuses, so that refstore.Encode of one does not
// take the promoted Baton method, which would leave out "ref": a Stored
// is written by encoding/json.
func (s *Stored) AppendJSON(dst []byte) ([]byte, error) { return nil, errStoredByJSON }

var errStoredByJSON = errors.New("a stored baton is encoded by encoding/json")

// Marshal returns json.Marshal(*b) (a session keeps the baton it claimed
// in that form).
func Marshal(b *Baton) ([]byte, error) {
	if data, err := b.AppendJSON(nil); err == nil {
		return data, nil
	}
	return json.Marshal(b)
}

// AppendJSON appends what json.Marshal writes for o (as Baton.AppendJSON).
func (o *Objective) AppendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, `{"schema":`...)
	dst = jsonrec.AppendHTMLString(dst, o.Schema)
	dst = append(dst, `,"owner":`...)
	dst = jsonrec.AppendHTMLString(dst, o.Owner)
	dst = append(dst, `,"branch":`...)
	dst = jsonrec.AppendHTMLString(dst, o.Branch)
	dst = append(dst, `,"text":`...)
	dst = jsonrec.AppendHTMLString(dst, o.Text)
	if o.SessionID != "" {
		dst = append(dst, `,"sessionId":`...)
		dst = jsonrec.AppendHTMLString(dst, o.SessionID)
	}
	dst = append(dst, `,"setAt":`...)
	if dst, err = jsonrec.AppendTime(dst, o.SetAt); err != nil {
		return nil, err
	}
	dst = refstore.AppendCauseFields(dst, &o.Cause)
	return append(dst, '}'), nil
}
