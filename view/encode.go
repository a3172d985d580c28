package view

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/session"
)

// The listings write a hundred thousand records; encoding/json's
// reflection cost more than reading them from git. AppendBaton and
// AppendSession write the same bytes an Encoder with SetEscapeHTML(false)
// writes for *Baton and Session (compact: indent with jsonrec.Indent), as
// TestAppendMatchesEncoder and FuzzAppendMatchesEncoder check. A shape
// either does not write (a time outside years 0…9999) is an error; the
// caller then encodes with encoding/json, which words it as before.

// AppendStoredOpen is AppendBatonOpen of OfBaton(s), shaped in place:
// a listing writes a hundred thousand without allocating a shape for each.
func AppendStoredOpen(dst []byte, s *baton.Stored) ([]byte, error) {
	return appendStoredOpen(dst, s, &plainStyle)
}

// AppendStoredItemOpen is AppendStoredOpen as a listing keeps its item
// until it prints it: indented with tabs (what jsonrec.Indent(dst, open,
// "", "\t") makes of AppendStoredOpen's bytes), which jsonrec.Reindent
// turns into the listing's indentation at little more cost than a copy,
// and with every string written by jsonrec.AppendSafeString (what a
// safetext.Writer makes of the Encoder's), ready for its WriteEscaped.
// The caller closes the object with "\n}".
func AppendStoredItemOpen(dst []byte, s *baton.Stored) ([]byte, error) {
	return appendStoredOpen(dst, s, &itemStyle)
}

func appendStoredOpen(dst []byte, s *baton.Stored, st *batonStyle) ([]byte, error) {
	var b Baton
	var del Deletion
	var sig Signature
	shapeBatonParts(&b, s, &del, &sig)
	return appendBatonParts(dst, &b, deletionOf(s, &del), signatureOf(s, &sig), st)
}

// A batonStyle is how a baton is written: compact with the Encoder's
// strings, or as a listing's item (tab-indented, terminal-safe strings).
// The string writers are called directly: through function values,
// escape analysis would move what a shape points to onto the heap, two
// allocations for each baton of a listing.
type batonStyle struct {
	safe   bool
	keys   [numBatonKeys]string // each key with what leads it and the colon after it
	nl     [3]string            // a newline and the indentation of depth 0…2 ("" when compact)
	closed string               // what closes a nested object: nl[1] and the brace
}

// The keys of a baton, in the Encoder's (Baton's) order, and of its
// deletion and signature; the first of each object is led by its brace.
const (
	bkID = iota
	bkRef
	bkOwner
	bkBranch
	bkShared
	bkNextSteps
	bkFailedApproaches
	bkOpenQuestions
	bkHarness
	bkSessionID
	bkCreatedAt
	bkHead
	bkClaimed
	bkClaimedAt
	bkClaimedBySession
	bkDeleted
	bkSignature
	bkDelReason // the deletion's
	bkDelAt
	bkSigState // the signature's
	bkSigTrusted
	bkSigFormat
	bkSigSigner
	bkSigReason
	bkSigFenced
	numBatonKeys
)

var batonKeys = [numBatonKeys]string{"id", "ref", "owner", "branch", "shared", "nextSteps", "failedApproaches",
	"openQuestions", "harness", "sessionId", "createdAt", "head", "claimed", "claimedAt", "claimedBySession",
	"deleted", "signature", "reason", "at", "state", "trusted", "format", "signer", "reason", "fenced"}

var (
	plainStyle = newBatonStyle(false, false)
	itemStyle  = newBatonStyle(true, true)
)

func newBatonStyle(safe, tabbed bool) batonStyle {
	st := batonStyle{safe: safe}
	colon := ":"
	if tabbed {
		colon = ": "
		for d := range st.nl {
			st.nl[d] = "\n" + strings.Repeat("\t", d)
		}
	}
	st.closed = st.nl[1] + "}"
	for i, k := range batonKeys {
		lead, depth := ",", 1
		if i >= bkDelReason {
			depth = 2
		}
		if i == bkID || i == bkDelReason || i == bkSigState {
			lead = "{"
		}
		st.keys[i] = lead + st.nl[depth] + `"` + k + `"` + colon
	}
	return st
}

func (st *batonStyle) one(dst []byte, s string) []byte {
	if st.safe {
		return jsonrec.AppendSafeString(dst, s)
	}
	return jsonrec.AppendString(dst, s)
}

// list writes a list at depth 1: nil is null, an empty one [].
func (st *batonStyle) list(dst []byte, list []string) []byte {
	if st.nl[0] == "" || len(list) == 0 {
		if st.safe {
			return jsonrec.AppendSafeStrings(dst, list)
		}
		return jsonrec.AppendStrings(dst, list)
	}
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, st.nl[2]...)
		dst = st.one(dst, s)
	}
	dst = append(dst, st.nl[1]...)
	return append(dst, ']')
}

// AppendBaton appends b's compact JSON.
func AppendBaton(dst []byte, b *Baton) ([]byte, error) {
	dst, err := AppendBatonOpen(dst, b)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// AppendBatonOpen is AppendBaton without the closing brace, for a shape
// that embeds a Baton and adds fields after its own.
func AppendBatonOpen(dst []byte, b *Baton) ([]byte, error) {
	if b == nil {
		return append(dst, "null"...), nil // unreachable for an embedding caller: checked by its own
	}
	return appendBatonParts(dst, b, b.Deleted, b.Signature, &plainStyle)
}

// appendBatonParts is appendBatonOpen with b's deletion and signature
// given apart (b's own are not read).
func appendBatonParts(dst []byte, b *Baton, del *Deletion, sig *Signature, st *batonStyle) ([]byte, error) {
	var err error
	dst = append(dst, st.keys[bkID]...)
	dst = st.one(dst, b.ID)
	dst = append(dst, st.keys[bkRef]...)
	dst = st.one(dst, b.Ref)
	dst = append(dst, st.keys[bkOwner]...)
	dst = st.one(dst, b.Owner)
	dst = append(dst, st.keys[bkBranch]...)
	dst = st.one(dst, b.Branch)
	dst = append(dst, st.keys[bkShared]...)
	dst = jsonrec.AppendBool(dst, b.Shared)
	dst = append(dst, st.keys[bkNextSteps]...)
	dst = st.list(dst, b.NextSteps)
	dst = append(dst, st.keys[bkFailedApproaches]...)
	dst = st.list(dst, b.FailedApproaches)
	dst = append(dst, st.keys[bkOpenQuestions]...)
	dst = st.list(dst, b.OpenQuestions)
	if b.Harness != "" {
		dst = append(dst, st.keys[bkHarness]...)
		dst = st.one(dst, b.Harness)
	}
	if b.SessionID != "" {
		dst = append(dst, st.keys[bkSessionID]...)
		dst = st.one(dst, b.SessionID)
	}
	dst = append(dst, st.keys[bkCreatedAt]...)
	if dst, err = jsonrec.AppendTime(dst, b.CreatedAt); err != nil {
		return nil, err
	}
	if b.Head != "" {
		dst = append(dst, st.keys[bkHead]...)
		dst = st.one(dst, b.Head)
	}
	dst = append(dst, st.keys[bkClaimed]...)
	dst = jsonrec.AppendBool(dst, b.Claimed)
	if b.ClaimedAt != nil {
		dst = append(dst, st.keys[bkClaimedAt]...)
		if dst, err = jsonrec.AppendTime(dst, *b.ClaimedAt); err != nil {
			return nil, err
		}
	}
	if b.ClaimedBySession != "" {
		dst = append(dst, st.keys[bkClaimedBySession]...)
		dst = st.one(dst, b.ClaimedBySession)
	}
	if d := del; d != nil {
		dst = append(dst, st.keys[bkDeleted]...)
		dst = append(dst, st.keys[bkDelReason]...)
		dst = st.one(dst, d.Reason)
		dst = append(dst, st.keys[bkDelAt]...)
		if dst, err = jsonrec.AppendTime(dst, d.At); err != nil {
			return nil, err
		}
		dst = append(dst, st.closed...)
	}
	if s := sig; s != nil {
		dst = append(dst, st.keys[bkSignature]...)
		dst = append(dst, st.keys[bkSigState]...)
		dst = st.one(dst, s.State)
		dst = append(dst, st.keys[bkSigTrusted]...)
		dst = jsonrec.AppendBool(dst, s.Trusted)
		if s.Format != "" {
			dst = append(dst, st.keys[bkSigFormat]...)
			dst = st.one(dst, s.Format)
		}
		if s.Signer != "" {
			dst = append(dst, st.keys[bkSigSigner]...)
			dst = st.one(dst, s.Signer)
		}
		if s.Reason != "" {
			dst = append(dst, st.keys[bkSigReason]...)
			dst = st.one(dst, s.Reason)
		}
		dst = append(dst, st.keys[bkSigFenced]...)
		dst = jsonrec.AppendBool(dst, s.Fenced)
		dst = append(dst, st.closed...)
	}
	return dst, nil
}

// appendEncoded appends v as an Encoder with SetEscapeHTML(false) writes
// it, without its newline: for the parts of a record that are rare
// (a switch in flight, a pull request, a runtime).
func appendEncoded(dst []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// AppendSessionOpen appends s's compact JSON up to its runtime and
// lineage, which come last and are known only once every record has been
// read: the caller appends those (AppendSessionTail) and the closing brace.
func AppendSessionOpen(dst []byte, s *Session) ([]byte, error) {
	return appendSessionOpen(dst, &compact, s, s.Launched, false)
}

// AppendRecordOpen is AppendSessionOpen of OfSession(*r, false), shaped in
// place (a listing writes a hundred thousand), with the runtime to show
// (OfSession's Runtime; nil when the record has none).
func AppendRecordOpen(dst []byte, r *session.Record) ([]byte, *Runtime, error) {
	return appendRecordOpen(dst, &compact, r)
}

// AppendRecordOpenIndented is AppendRecordOpen indented as a listing's
// item is, at once: what jsonrec.Indent(dst, open, "    ", "  ") makes of
// AppendRecordOpen's bytes (AppendSessionTailIndented closes it). Indenting
// afterwards read every byte written a second time.
func AppendRecordOpenIndented(dst []byte, r *session.Record) ([]byte, *Runtime, error) {
	return appendRecordOpen(dst, &item, r)
}

func appendRecordOpen(dst []byte, l *layout, r *session.Record) ([]byte, *Runtime, error) {
	var s Session
	// Allocated only for a record that has them (their address reaches
	// encoding/json).
	var g *Switching
	var p *PRPointer
	if r.Switching != nil {
		g = new(Switching)
	}
	if r.PR != nil {
		p = new(PRPointer)
	}
	shapeSession(&s, r, false, g, p)
	dst, err := appendSessionOpen(dst, l, &s, r.Launched, true)
	var rt *Runtime
	if x := r.Runtime; x != nil {
		// Kept by the caller, while r may be borrowed (session.Borrower).
		rt = &Runtime{Kind: strings.Clone(x.Kind), Socket: strings.Clone(x.Socket), Name: strings.Clone(x.Name), Host: strings.Clone(x.Host)}
	}
	return dst, rt, err
}

// A layout is what separates the parts of a session the fast writer
// writes: nothing (compact, as the Encoder writes), or the newlines and
// indentation of an item of a listing's array (prefix "    ", indent "  ").
type layout struct {
	keys   [numSessionKeys]string // each key of the session object, with what leads it
	nl     [4]string              // a newline and the indentation of depth 0…3 (0: the object's own braces)
	colon  string
	nested string // the jsonrec.Indent prefix of a value at depth 1, "" when compact
}

// The session object's keys, in the Encoder's (Session's) order.
const (
	kID = iota
	kRef
	kOwner
	kBranch
	kWorktree
	kHost
	kHarness
	kModel
	kStatus
	kReadOnly
	kPrompt
	kSummary
	kCreatedAt
	kUpdatedAt
	kEndedAt
	kSupersedes
	kReplacedBy
	kHandoffReason
	kHandoffAt
	kHandoffContextMode
	kHandoffPackage
	kLaunched
	kSwitching
	kClaimedHandoff
	kPR
	kRuntime
	kLineage
	numSessionKeys
)

var sessionKeys = [numSessionKeys]string{"id", "ref", "owner", "branch", "worktree", "host", "harness", "model",
	"status", "readOnly", "prompt", "summary", "createdAt", "updatedAt", "endedAt", "supersedes", "replacedBy",
	"handoffReason", "handoffAt", "handoffContextMode", "handoffPackage", "launched", "switching",
	"claimedHandoff", "pr", "runtime", "lineage"}

var (
	compact = newLayout(false)
	item    = newLayout(true)
)

func newLayout(indented bool) layout {
	l := layout{colon: ":"}
	if indented {
		l.colon, l.nested = ": ", "      "
		for d := range l.nl {
			l.nl[d] = "\n    " + strings.Repeat("  ", d)
		}
	}
	for i, k := range sessionKeys {
		lead := ","
		if i == kID {
			lead = "{"
		}
		l.keys[i] = lead + l.nl[1] + `"` + k + `"` + l.colon
	}
	return l
}

// appendSessionOpen writes launched in s's place: OfSession's copy of
// the record's map, or the record's own (nilEmpty: OfSession makes a nil
// one empty).
func appendSessionOpen[L Launched | session.Launched](dst []byte, l *layout, s *Session, launched map[string]L, nilEmpty bool) ([]byte, error) {
	dst, err := appendSessionHead(dst, l, s)
	if err != nil {
		return nil, err
	}
	if launched == nil && nilEmpty {
		dst = append(dst, "{}"...)
	} else if dst, err = appendLaunched(dst, l, launched); err != nil {
		return nil, err
	}
	return appendSessionRest(dst, l, s)
}

// appendSessionHead writes s up to its launched map, key included.
func appendSessionHead(dst []byte, l *layout, s *Session) ([]byte, error) {
	var err error
	k := &l.keys
	dst = append(dst, k[kID]...)
	dst = jsonrec.AppendString(dst, s.ID)
	dst = append(dst, k[kRef]...)
	dst = jsonrec.AppendString(dst, s.Ref)
	dst = append(dst, k[kOwner]...)
	dst = jsonrec.AppendString(dst, s.Owner)
	dst = append(dst, k[kBranch]...)
	dst = jsonrec.AppendString(dst, s.Branch)
	dst = append(dst, k[kWorktree]...)
	dst = jsonrec.AppendString(dst, s.Worktree)
	dst = append(dst, k[kHost]...)
	dst = jsonrec.AppendString(dst, s.Host)
	dst = append(dst, k[kHarness]...)
	dst = jsonrec.AppendString(dst, s.Harness)
	dst = append(dst, k[kModel]...)
	dst = jsonrec.AppendString(dst, s.Model)
	dst = append(dst, k[kStatus]...)
	dst = jsonrec.AppendString(dst, s.Status)
	dst = append(dst, k[kReadOnly]...)
	dst = jsonrec.AppendBool(dst, s.ReadOnly)
	dst = append(dst, k[kPrompt]...)
	dst = jsonrec.AppendString(dst, s.Prompt)
	dst = append(dst, k[kSummary]...)
	dst = jsonrec.AppendString(dst, s.Summary)
	dst = append(dst, k[kCreatedAt]...)
	if dst, err = jsonrec.AppendTime(dst, s.CreatedAt); err != nil {
		return nil, err
	}
	dst = append(dst, k[kUpdatedAt]...)
	if dst, err = jsonrec.AppendTime(dst, s.UpdatedAt); err != nil {
		return nil, err
	}
	dst = append(dst, k[kEndedAt]...)
	if s.EndedAt == nil {
		dst = append(dst, "null"...)
	} else if dst, err = jsonrec.AppendTime(dst, *s.EndedAt); err != nil {
		return nil, err
	}
	dst = append(dst, k[kSupersedes]...)
	dst = jsonrec.AppendString(dst, s.Supersedes)
	dst = append(dst, k[kReplacedBy]...)
	dst = jsonrec.AppendString(dst, s.ReplacedBy)
	dst = append(dst, k[kHandoffReason]...)
	dst = jsonrec.AppendString(dst, s.HandoffReason)
	dst = append(dst, k[kHandoffAt]...)
	if s.HandoffAt == nil {
		dst = append(dst, "null"...)
	} else if dst, err = jsonrec.AppendTime(dst, *s.HandoffAt); err != nil {
		return nil, err
	}
	dst = append(dst, k[kHandoffContextMode]...)
	dst = jsonrec.AppendString(dst, s.HandoffContextMode)
	if s.HandoffPackage != "" {
		dst = append(dst, k[kHandoffPackage]...)
		dst = jsonrec.AppendString(dst, s.HandoffPackage)
	}
	return append(dst, k[kLaunched]...), nil
}

// appendSessionRest writes what follows s's launched map, up to its
// runtime.
func appendSessionRest(dst []byte, l *layout, s *Session) ([]byte, error) {
	var err error
	k := &l.keys
	dst = append(dst, k[kSwitching]...)
	if s.Switching == nil {
		dst = append(dst, "null"...)
	} else if dst, err = l.appendNested(dst, s.Switching); err != nil {
		return nil, err
	}
	dst = append(dst, k[kClaimedHandoff]...)
	if s.ClaimedHandoff == nil {
		dst = append(dst, "null"...)
	} else if dst, err = l.appendNested(dst, s.ClaimedHandoff); err != nil {
		return nil, err
	}
	dst = append(dst, k[kPR]...)
	if s.PR == nil {
		dst = append(dst, "null"...)
	} else if dst, err = l.appendNested(dst, s.PR); err != nil {
		return nil, err
	}
	return dst, nil
}

// appendNested appends a rare part of a session (a switch in flight, a
// claimed baton, a pull request, a runtime) at depth 1, as the Encoder
// writes it, indented in l.
func (l *layout) appendNested(dst []byte, v any) ([]byte, error) {
	var out []byte
	var err error
	if b, ok := v.(*Baton); ok {
		out, err = AppendBaton(nil, b)
	} else {
		out, err = appendEncoded(nil, v)
	}
	if err != nil {
		return nil, err
	}
	if l.nested == "" {
		return append(dst, out...), nil
	}
	return jsonrec.Indent(dst, out, l.nested, "  "), nil
}

// AppendSessionTail appends the fields AppendSessionOpen leaves out and
// closes the object.
func AppendSessionTail(dst []byte, runtime *Runtime, lineage string) ([]byte, error) {
	return appendSessionTail(dst, &compact, runtime, lineage)
}

// AppendSessionTailIndented is AppendSessionTail for
// AppendRecordOpenIndented.
func AppendSessionTailIndented(dst []byte, runtime *Runtime, lineage string) ([]byte, error) {
	return appendSessionTail(dst, &item, runtime, lineage)
}

func appendSessionTail(dst []byte, l *layout, runtime *Runtime, lineage string) ([]byte, error) {
	var err error
	if runtime != nil {
		dst = append(dst, l.keys[kRuntime]...)
		if dst, err = l.appendNested(dst, runtime); err != nil {
			return nil, err
		}
	}
	if lineage != "" {
		dst = append(dst, l.keys[kLineage]...)
		dst = jsonrec.AppendString(dst, lineage)
	}
	dst = append(dst, l.nl[0]...)
	return append(dst, '}'), nil
}

// appendLaunched writes the map as encoding/json does: keys sorted, nil
// as null, at depth 1 of l.
func appendLaunched[L Launched | session.Launched](dst []byte, l *layout, m map[string]L) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	if len(m) == 0 {
		return append(dst, "{}"...), nil
	}
	var one [1]string
	keys := one[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var err error
	for i, k := range keys {
		if dst, err = appendLaunchedItem(dst, l, i == 0, k, Launched(m[k])); err != nil {
			return nil, err
		}
	}
	return appendLaunchedEnd(dst, l), nil
}

// appendLaunchedItem writes one harness's entry of a launched map that is
// not empty, opening the map at the first.
func appendLaunchedItem(dst []byte, l *layout, first bool, k string, v Launched) ([]byte, error) {
	if first {
		dst = append(dst, '{')
	} else {
		dst = append(dst, ',')
	}
	var err error
	dst = append(dst, l.nl[2]...)
	dst = jsonrec.AppendString(dst, k)
	dst = append(dst, l.colon...)
	dst = append(dst, '{')
	dst = append(dst, l.nl[3]...)
	dst = append(dst, `"nativeId"`...)
	dst = append(dst, l.colon...)
	dst = jsonrec.AppendString(dst, v.NativeID)
	dst = append(dst, ',')
	dst = append(dst, l.nl[3]...)
	dst = append(dst, `"first"`...)
	dst = append(dst, l.colon...)
	if dst, err = jsonrec.AppendTime(dst, v.First); err != nil {
		return nil, err
	}
	dst = append(dst, ',')
	dst = append(dst, l.nl[3]...)
	dst = append(dst, `"last"`...)
	dst = append(dst, l.colon...)
	if dst, err = jsonrec.AppendTime(dst, v.Last); err != nil {
		return nil, err
	}
	dst = append(dst, l.nl[2]...)
	return append(dst, '}'), nil
}

// appendLaunchedEnd closes a launched map that is not empty.
func appendLaunchedEnd(dst []byte, l *layout) []byte {
	dst = append(dst, l.nl[1]...)
	return append(dst, '}')
}
