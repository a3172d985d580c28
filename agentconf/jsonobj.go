package agentconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object that keeps its members in the order they were
// read. Agents' settings files are edited by people: decoding them into a
// Go map would sort their keys on the way back out, and their values are
// kept as raw text so that nothing we do not touch is re-encoded.
type object []member

type member struct {
	Key string
	Val json.RawMessage
}

// errNotObject is returned when a value we must edit is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// parseObject reads one JSON object and nothing after it. Empty input (or
// only white space) is an empty object: an empty settings file is common.
func parseObject(raw []byte) (object, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return object{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return nil, errors.New("more than one JSON value in the file")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Val, true
		}
	}
	return nil, false
}

// set replaces key's value where it stands, or appends it. A duplicate key
// in the input keeps its last value (what every JSON reader the agents use
// would see) in the place of the first.
func (o *object) set(key string, v json.RawMessage) {
	for i, m := range *o {
		if m.Key == key {
			(*o)[i].Val = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o *object) del(key string) {
	out := (*o)[:0]
	for _, m := range *o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	*o = out
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v without escaping <, > and &, which shell commands hold.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// pretty lays a document out with two-space indents and a final newline.
func pretty(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// parseArray reads a JSON array as raw elements; null is empty.
func parseArray(raw json.RawMessage) ([]json.RawMessage, error) {
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	return a, nil
}

// sameJSON says whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// RemoveMember returns the JSON object doc without the member at path
// (object keys, the outermost first), laid out as this package writes
// settings files, and whether there was such a member. The other members
// keep their order and their text; doc is returned as it was when there
// was none (or a value on the way is not an object).
func RemoveMember(doc []byte, path ...string) ([]byte, bool, error) {
	if len(path) == 0 {
		return doc, false, nil
	}
	o, err := parseObject(doc)
	if err != nil {
		return doc, false, err
	}
	v, ok := o.get(path[0])
	if !ok {
		return doc, false, nil
	}
	if len(path) == 1 {
		o.del(path[0])
	} else {
		inner, removed, err := RemoveMember(v, path[1:]...)
		if err != nil || !removed {
			return doc, false, nil
		}
		o.set(path[0], inner)
	}
	raw, err := o.MarshalJSON()
	if err != nil {
		return doc, false, err
	}
	out, err := pretty(raw)
	if err != nil {
		return doc, false, err
	}
	return out, true, nil
}
