package agentconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// hooksFile is a JSON file with a top-level "hooks" object mapping the
// agent's event names to arrays of entries. Two entry shapes exist:
// grouped, Claude Code's {"matcher":…, "hooks":[{"type":"command",
// "command":…}]} (also Codex, Gemini CLI, Goose), and flat, one object per
// command (Copilot's {"type":"command","bash":…}, Cursor's {"command":…}).
type hooksFile struct {
	path    string
	grouped bool
	cmdKey  string   // the key holding the command in a hook (grouped) or an entry (flat)
	top     []member // keys a file we write must have, e.g. "version": 1
	events  []hookEvent
}

type hookEvent struct {
	name  string          // the agent's own event name
	entry json.RawMessage // what we install for it
}

func (f hooksFile) rel() string { return f.path }

// mustJSON encodes a literal of this package; it cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ours says whether a hook command is one of ours.
func ours(cmd string) bool { return strings.Contains(cmd, Marker) }

// commandOf reads the command of one hook object; "" when it has none.
func (f hooksFile) commandOf(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[f.cmdKey], &s) != nil {
		return ""
	}
	return s
}

// groupHooks reads the "hooks" array of a grouped entry.
func groupHooks(raw json.RawMessage) (object, []json.RawMessage, error) {
	g, err := parseObject(raw)
	if err != nil {
		return nil, nil, err
	}
	hv, _ := g.get("hooks")
	hs, err := parseArray(hv)
	return g, hs, err
}

// scan counts our hooks in one event's array and says whether the array
// holds exactly our entry, once, as we would write it.
func (f hooksFile) scan(arr []json.RawMessage, want json.RawMessage) (n int, exact bool) {
	exactEntries := 0
	for _, e := range arr {
		mine := 0
		if f.grouped {
			_, hs, err := groupHooks(e)
			if err != nil {
				continue // someone else's odd entry: not ours to judge
			}
			for _, h := range hs {
				if ours(f.commandOf(h)) {
					mine++
				}
			}
		} else if ours(f.commandOf(e)) {
			mine = 1
		}
		n += mine
		if mine > 0 && sameJSON(e, want) {
			exactEntries++
		}
	}
	return n, n == 1 && exactEntries == 1
}

// strip returns the array without our hooks. A group left with no hooks
// goes; a group that also holds someone else's hooks keeps them, and its
// other keys, in their order.
func (f hooksFile) strip(arr []json.RawMessage) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, e := range arr {
		if !f.grouped {
			if !ours(f.commandOf(e)) {
				out = append(out, e)
			}
			continue
		}
		g, hs, err := groupHooks(e)
		if err != nil {
			out = append(out, e)
			continue
		}
		var keep []json.RawMessage
		for _, h := range hs {
			if !ours(f.commandOf(h)) {
				keep = append(keep, h)
			}
		}
		switch {
		case len(keep) == len(hs):
			out = append(out, e)
		case len(keep) > 0:
			g.set("hooks", rawArray(keep))
			b, err := g.MarshalJSON()
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	return out, nil
}

func rawArray(a []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// load reads the document and its hooks object.
func (f hooksFile) load(cur []byte) (doc, hooks object, err error) {
	doc, err = parseObject(cur)
	if err != nil {
		return nil, nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if hv, ok := doc.get("hooks"); ok && string(bytes.TrimSpace(hv)) != "null" {
		hooks, err = parseObject(hv)
		if err != nil {
			return nil, nil, fmt.Errorf(`"hooks" is not an object: %w`, err)
		}
	}
	return doc, hooks, nil
}

func (f hooksFile) event(hooks object, name string) ([]json.RawMessage, error) {
	v, _ := hooks.get(name)
	arr, err := parseArray(v)
	if err != nil {
		return nil, fmt.Errorf("hooks.%s is not an array: %w", name, err)
	}
	return arr, nil
}

func (f hooksFile) install(cur []byte, exists bool) ([]byte, []string, error) {
	doc, hooks, err := f.load(cur)
	if err != nil {
		return nil, nil, err
	}
	changed := false
	for _, ev := range f.events {
		arr, err := f.event(hooks, ev.name)
		if err != nil {
			return nil, nil, err
		}
		if _, exact := f.scan(arr, ev.entry); exact {
			continue
		}
		// Stale or duplicated entries of ours go; the fresh one is appended,
		// after the user's own.
		if arr, err = f.strip(arr); err != nil {
			return nil, nil, err
		}
		hooks.set(ev.name, rawArray(append(arr, ev.entry)))
		changed = true
	}
	if !changed && exists {
		return cur, nil, nil
	}
	for _, m := range f.top {
		if _, ok := doc.get(m.Key); !ok {
			doc = append(object{m}, doc...)
		}
	}
	hb, err := hooks.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	doc.set("hooks", hb)
	b, err := doc.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	out, err := pretty(b)
	return out, nil, err
}

func (f hooksFile) remove(cur []byte) ([]byte, bool, error) {
	doc, hooks, err := f.load(cur)
	if err != nil {
		return nil, false, err
	}
	changed := false
	known := map[string]bool{}
	for _, ev := range f.events {
		known[ev.name] = true
	}
	for _, m := range append(object(nil), hooks...) {
		arr, err := parseArray(m.Val)
		if err != nil && known[m.Key] {
			return nil, false, fmt.Errorf("hooks.%s is not an array: %w", m.Key, err)
		}
		if err != nil {
			continue // someone else's event, in a shape we do not judge
		}
		if n, _ := f.scan(arr, nil); n == 0 {
			continue
		}
		arr, err = f.strip(arr)
		if err != nil {
			return nil, false, err
		}
		changed = true
		if len(arr) == 0 {
			hooks.del(m.Key)
		} else {
			hooks.set(m.Key, rawArray(arr))
		}
	}
	if !changed {
		return cur, false, nil
	}
	if len(hooks) == 0 {
		doc.del("hooks")
	} else {
		hb, err := hooks.MarshalJSON()
		if err != nil {
			return nil, false, err
		}
		doc.set("hooks", hb)
	}
	if f.onlySkeleton(doc) {
		return nil, true, nil
	}
	b, err := doc.MarshalJSON()
	if err != nil {
		return nil, false, err
	}
	out, err := pretty(b)
	return out, false, err
}

// onlySkeleton says whether doc holds nothing but the keys an install adds
// around the hooks (an empty object, or {"version":1}): the file was ours
// and is now empty.
func (f hooksFile) onlySkeleton(doc object) bool {
	for _, m := range doc {
		want, ok := object(f.top).get(m.Key)
		if !ok || !sameJSON(m.Val, want) {
			return false
		}
	}
	return true
}

func (f hooksFile) check(cur []byte, exists bool) (State, string) {
	if !exists {
		return Missing, ""
	}
	_, hooks, err := f.load(cur)
	if err != nil {
		return Unreadable, err.Error()
	}
	var states []State
	var notes []string
	for _, ev := range f.events {
		arr, err := f.event(hooks, ev.name)
		if err != nil {
			return Unreadable, err.Error()
		}
		switch n, exact := f.scan(arr, ev.entry); {
		case exact:
			states = append(states, Installed)
		case n > 0:
			states = append(states, Stale)
			notes = append(notes, ev.name+" differs from what init writes")
		default:
			states = append(states, Missing)
			notes = append(notes, ev.name+" missing")
		}
	}
	s := combine(states)
	if s == Installed {
		return s, ""
	}
	return s, strings.Join(notes, "; ")
}
