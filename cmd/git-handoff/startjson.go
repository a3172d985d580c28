package main

import (
	"errors"

	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/view"
)

// jsonAppender is an output shape that writes its own compact JSON: what
// an Encoder with SetEscapeHTML(false) writes for it, without the
// newline, or an error having written nothing (then printJSON encodes it
// with encoding/json). Agents run `start --json` at every session start,
// and encoding/json would build its reflection caches for the shape to
// print it once.
type jsonAppender interface {
	appendJSON(dst []byte) ([]byte, error)
}

var errByEncoder = errors.New("written by encoding/json")

// appendJSON writes start's output; one with a snapshot offer (rare) is
// left to encoding/json. TestStartJSONEncoder holds it to the Encoder.
func (s startJSON) appendJSON(dst []byte) ([]byte, error) {
	if s.Snapshot != nil || len(s.Conflicts) > 0 {
		return nil, errByEncoder
	}
	var err error
	dst = append(dst, `{"session":{"id":`...)
	dst = jsonrec.AppendString(dst, s.Session.ID)
	if s.Session.Harness != "" {
		dst = append(dst, `,"harness":`...)
		dst = jsonrec.AppendString(dst, s.Session.Harness)
	}
	dst = append(dst, `,"owner":`...)
	dst = jsonrec.AppendString(dst, s.Session.Owner)
	dst = append(dst, `,"branch":`...)
	dst = jsonrec.AppendString(dst, s.Session.Branch)
	dst = append(dst, `},"handoff":`...)
	if s.Handoff == nil {
		dst = append(dst, "null"...)
	} else if dst, err = view.AppendBaton(dst, s.Handoff); err != nil {
		return nil, err
	}
	dst = append(dst, `,"claimed":`...)
	dst = jsonrec.AppendBool(dst, s.Claimed)
	dst = append(dst, `,"objective":`...)
	if o := s.Objective; o == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"owner":`...)
		dst = jsonrec.AppendString(dst, o.Owner)
		dst = append(dst, `,"branch":`...)
		dst = jsonrec.AppendString(dst, o.Branch)
		dst = append(dst, `,"text":`...)
		dst = jsonrec.AppendString(dst, o.Text)
		if o.SessionID != "" {
			dst = append(dst, `,"sessionId":`...)
			dst = jsonrec.AppendString(dst, o.SessionID)
		}
		dst = append(dst, `,"setAt":`...)
		if dst, err = jsonrec.AppendTime(dst, o.SetAt); err != nil {
			return nil, err
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"brief":`...)
	dst = jsonrec.AppendString(dst, s.Brief)
	dst = append(dst, `,"notices":`...)
	dst = jsonrec.AppendStrings(dst, s.Notices)
	return append(dst, '}'), nil
}
