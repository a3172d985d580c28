package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
)

// A conflict's field values are any JSON value (json.RawMessage): the
// tools' output schema takes a string, a number, an object or an array
// there, as the SDK checks every tool result against it (found by the
// soak: an MCP call that met a sync conflict answered an error).
func TestConflictFieldValuesAreAnyJSON(t *testing.T) {
	rs, err := portableFor[handoff.ConflictField]().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{`"h-1"`, `3`, `true`, `{"reason":"cancelled"}`, `["a","b"]`} {
		var inst map[string]any
		if err := json.Unmarshal([]byte(`{"field":"x","kept":`+v+`,"dropped":`+v+`}`), &inst); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(inst); err != nil {
			t.Errorf("a field valued %s: %v", v, err)
		}
	}
}
