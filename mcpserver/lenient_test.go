package mcpserver

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func endSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	s := portableFor[endIn]()
	requireNext(s)
	return s
}

func TestMendArguments(t *testing.T) {
	s := endSchema(t)
	for _, tc := range []struct{ in, want string }{
		{`{"next":"a, b, and c"}`, `{"next":["a, b, and c"]}`},
		{`{"next":["a"],"shared":"TRUE"}`, `{"next":["a"],"shared":true}`},
		{`{"next":["a"],"shared":"no"}`, `{"next":["a"],"shared":false}`},
		{`{"next":["a"],"session":7}`, `{"next":["a"],"session":"7"}`},
		{`{"next":["a"],"failed":null}`, `{"next":["a"]}`},
		// Left for validation to refuse, as sent.
		{`{"next":["a"],"shared":"maybe"}`, `{"next":["a"],"shared":"maybe"}`},
		{`{"next":["a"],"nexts":"b"}`, `{"next":["a"],"nexts":"b"}`},
		{`{"next":{"a":1}}`, `{"next":{"a":1}}`},
		{`["a"]`, `["a"]`},
		{`{"next":["a"]} {}`, `{"next":["a"]} {}`},
	} {
		got := mendArguments(s, json.RawMessage(tc.in))
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal([]byte(tc.want), &w) != nil {
			if string(got) != tc.want {
				t.Errorf("mendArguments(%s) = %s, want %s", tc.in, got, tc.want)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("mendArguments(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	b := portableFor[bootstrapIn]()
	for _, in := range []string{`" 4000 "`, `4000.0`, `4e3`} {
		if got := string(mendArguments(b, json.RawMessage(`{"maxBytes":`+in+`}`))); got != `{"maxBytes":4000}` {
			t.Errorf("maxBytes %s = %s", in, got)
		}
	}
	for _, in := range []string{`4000.5`, `"4000.5"`, `1e300`} {
		if got := string(mendArguments(b, json.RawMessage(`{"maxBytes":`+in+`}`))); got != `{"maxBytes":`+in+`}` {
			t.Errorf("maxBytes %s = %s, want it left for validation", in, got)
		}
	}
}

// FuzzMendArguments: whatever a client sends, mending returns JSON as
// valid as it came, and mends a value only into its property's type.
func FuzzMendArguments(f *testing.F) {
	for _, seed := range []string{`{"next":"a, b"}`, `{"shared":"true","failed":null}`, `{"session":1e400}`, `{"next":[1,"x"]}`, `null`, ``, `{"a":`} {
		f.Add([]byte(seed))
	}
	s := endSchema(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := mendArguments(s, raw)
		if !json.Valid(raw) {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("mendArguments(%s) = %s, not JSON", raw, got)
		}
		var before, after map[string]any
		if json.Unmarshal(raw, &before) != nil || json.Unmarshal(got, &after) != nil {
			return
		}
		for k, v := range after {
			p := s.Properties[k]
			if p == nil || reflect.DeepEqual(v, before[k]) {
				continue
			}
			ok := false
			switch v.(type) {
			case bool:
				ok = p.Type == "boolean"
			case string:
				ok = p.Type == "string"
			case []any:
				ok = p.Type == "array"
			case float64:
				ok = p.Type == "integer"
			}
			if !ok {
				t.Errorf("%s: %v became %v, not its property's type %s", k, before[k], v, p.Type)
			}
		}
	})
}
