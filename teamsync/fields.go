package teamsync

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/git-handoff/git-handoff/handoff"
)

// bookkeeping are the members of a record that say how it was written
// rather than what it says (refstore.Cause, the schema, the signature):
// a user deciding whether a conflict lost them anything never needs them.
var bookkeeping = map[string]bool{"schema": true, "rev": true, "prev": true, "seen": true, "sig": true}

// ConflictFields lists the members a user reads that differ between the
// dropped and the kept record, in the order they appear in the kept one
// (then the dropped one's own). Values are compact JSON. A record that is
// not a JSON object gives no fields: Diff still shows it.
func ConflictFields(dropped, kept []byte) []handoff.ConflictField {
	dk, dv, err := members(dropped)
	if err != nil {
		return []handoff.ConflictField{}
	}
	kk, kv, err := members(kept)
	if err != nil {
		return []handoff.ConflictField{}
	}
	out := []handoff.ConflictField{}
	add := func(name string) {
		if bookkeeping[name] {
			return
		}
		k, d := kv[name], dv[name]
		if bytes.Equal(k, d) {
			return
		}
		out = append(out, handoff.ConflictField{Field: name, Kept: k, Dropped: d})
	}
	for _, name := range kk {
		add(name)
	}
	for _, name := range dk {
		if _, ok := kv[name]; !ok {
			add(name)
		}
	}
	return out
}

// members reads a JSON object's members in order, each value compacted.
func members(data []byte) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil {
		return nil, nil, err
	} else if t != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var names []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[name]; !dup {
			names = append(names, name)
		}
		vals[name] = buf.Bytes()
	}
	return names, vals, nil
}
