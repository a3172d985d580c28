package session

import (
	"time"

	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/refstore"
)

// AppendJSON appends what json.Marshal writes for s, without reflection:
// refstore.Encode writes records with it (every `end` and `start` writes
// one). An error (a time outside years 0…9999, a ClaimedHandoff that is
// not JSON) means nothing was written: the caller encodes with
// encoding/json, which reports it. FuzzAppendJSON and
// TestAppendJSONFields hold it to json.Marshal.
func (s *Record) AppendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = append(dst, `{"schema":`...)
	dst = jsonrec.AppendHTMLString(dst, s.Schema)
	dst = append(dst, `,"id":`...)
	dst = jsonrec.AppendHTMLString(dst, s.ID)
	dst = append(dst, `,"owner":`...)
	dst = jsonrec.AppendHTMLString(dst, s.Owner)
	dst = append(dst, `,"branch":`...)
	dst = jsonrec.AppendHTMLString(dst, s.Branch)
	dst = appendOmitEmpty(dst, `,"worktree":`, s.Worktree)
	dst = appendOmitEmpty(dst, `,"host":`, s.Host)
	dst = appendOmitEmpty(dst, `,"harness":`, s.Harness)
	dst = appendOmitEmpty(dst, `,"model":`, s.Model)
	dst = append(dst, `,"status":`...)
	dst = jsonrec.AppendHTMLString(dst, s.Status)
	dst = appendOmitEmpty(dst, `,"prompt":`, s.Prompt)
	dst = appendOmitEmpty(dst, `,"startHead":`, s.StartHead)
	dst = appendOmitEmpty(dst, `,"summary":`, s.Summary)
	dst = append(dst, `,"createdAt":`...)
	if dst, err = jsonrec.AppendTime(dst, s.CreatedAt); err != nil {
		return nil, err
	}
	dst = append(dst, `,"updatedAt":`...)
	if dst, err = jsonrec.AppendTime(dst, s.UpdatedAt); err != nil {
		return nil, err
	}
	if dst, err = appendTimePtr(dst, `,"endedAt":`, s.EndedAt); err != nil {
		return nil, err
	}
	dst = appendOmitEmpty(dst, `,"supersedes":`, s.Supersedes)
	dst = appendOmitEmpty(dst, `,"replacedBy":`, s.ReplacedBy)
	dst = appendOmitEmpty(dst, `,"handoffReason":`, s.HandoffReason)
	if dst, err = appendTimePtr(dst, `,"handoffAt":`, s.HandoffAt); err != nil {
		return nil, err
	}
	dst = appendOmitEmpty(dst, `,"handoffContextMode":`, s.HandoffContextMode)
	dst = appendOmitEmpty(dst, `,"handoffPackage":`, s.HandoffPackage)
	if len(s.Launched) > 0 {
		dst = append(dst, `,"launched":{`...)
		for i, k := range jsonrec.SortedKeys(s.Launched) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonrec.AppendHTMLString(dst, k)
			l := s.Launched[k]
			dst = append(dst, ":{"...)
			if l.NativeID != "" {
				dst = append(dst, `"nativeId":`...)
				dst = jsonrec.AppendHTMLString(dst, l.NativeID)
				dst = append(dst, ',')
			}
			dst = append(dst, `"first":`...)
			if dst, err = jsonrec.AppendTime(dst, l.First); err != nil {
				return nil, err
			}
			dst = append(dst, `,"last":`...)
			if dst, err = jsonrec.AppendTime(dst, l.Last); err != nil {
				return nil, err
			}
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	if g := s.Switching; g != nil {
		dst = append(dst, `,"switching":{"by":`...)
		dst = jsonrec.AppendHTMLString(dst, g.By)
		dst = append(dst, `,"since":`...)
		if dst, err = jsonrec.AppendTime(dst, g.Since); err != nil {
			return nil, err
		}
		dst = append(dst, `,"until":`...)
		if dst, err = jsonrec.AppendTime(dst, g.Until); err != nil {
			return nil, err
		}
		dst = appendOmitEmpty(dst, `,"to":`, g.To)
		dst = append(dst, '}')
	}
	if len(s.ClaimedHandoff) > 0 {
		dst = append(dst, `,"claimedHandoff":`...)
		if dst, err = jsonrec.AppendHTMLRaw(dst, s.ClaimedHandoff); err != nil {
			return nil, err
		}
	}
	if p := s.PR; p != nil {
		dst = append(dst, `,"pr":{"repo":`...)
		dst = jsonrec.AppendHTMLString(dst, p.Repo)
		dst = append(dst, `,"number":`...)
		dst = jsonrec.AppendInt(dst, p.Number)
		dst = appendOmitEmpty(dst, `,"url":`, p.URL)
		dst = append(dst, '}')
	}
	if rt := s.Runtime; rt != nil {
		dst = append(dst, `,"runtime":{"kind":`...)
		dst = jsonrec.AppendHTMLString(dst, rt.Kind)
		dst = append(dst, `,"socket":`...)
		dst = jsonrec.AppendHTMLString(dst, rt.Socket)
		dst = append(dst, `,"name":`...)
		dst = jsonrec.AppendHTMLString(dst, rt.Name)
		dst = appendOmitEmpty(dst, `,"host":`, rt.Host)
		dst = append(dst, '}')
	}
	dst = refstore.AppendCauseFields(dst, &s.Cause)
	return append(dst, '}'), nil
}

// AppendJSON of a Stored writes its Record: Ref and OID are not encoded
// (json:"-"). Defined so the promotion is a decision, not an accident.
func (s *Stored) AppendJSON(dst []byte) ([]byte, error) { return s.Record.AppendJSON(dst) }

var _ refstore.Appender = (*Stored)(nil)

func appendOmitEmpty(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	dst = append(dst, key...)
	return jsonrec.AppendHTMLString(dst, v)
}

func appendTimePtr(dst []byte, key string, t *time.Time) ([]byte, error) {
	if t == nil {
		return dst, nil
	}
	dst = append(dst, key...)
	return jsonrec.AppendTime(dst, *t)
}
