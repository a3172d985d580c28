package agentconf_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/agentconf"
)

// FuzzMerge: whatever JSON a user has in an agent's settings, an install
// that succeeds is checked installed, a second install changes nothing,
// and a remove gives back the user's value (or deletes a file that held
// nothing of theirs). A failed install leaves the file as it was.
func FuzzMerge(f *testing.F) {
	for _, s := range []string{
		"", "{}", userClaude, `{"hooks":null}`, `{"hooks":{}}`, `{"a":1,"a":2}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]},{"matcher":"y"}],"Other":5}}`,
		`{"hooks":{"Stop":[1,"s",null,{"hooks":7}]}}`, `[]`, `{"x":"<&>"}`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, user string, flat bool) {
		if strings.Contains(user, agentconf.Marker) {
			t.Skip("a file already holding our entries is covered by the table tests")
		}
		agent, rel := "claude-code", ".claude/settings.json"
		if flat {
			agent, rel = "cursor", ".cursor/hooks.json"
		}
		root := t.TempDir()
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(user), 0o644); err != nil {
			t.Fatal(err)
		}
		names := []string{agent}
		if _, err := agentconf.Install(root, names); err != nil {
			if got, _ := os.ReadFile(p); string(got) != user {
				t.Fatalf("failed install changed the file: %v", err)
			}
			return
		}
		sts, err := agentconf.Check(root, names, agentconf.Options{CodexHome: t.TempDir()})
		if err != nil || sts[0].Files[0].State != agentconf.Installed {
			t.Fatalf("check after install: %v %+v", err, sts)
		}
		once, _ := os.ReadFile(p)
		if rep, err := agentconf.Install(root, names); err != nil || rep.Changed() {
			t.Fatalf("second install: %v %+v", err, rep)
		}
		if again, _ := os.ReadFile(p); string(again) != string(once) {
			t.Fatal("second install rewrote the file")
		}
		if _, err := agentconf.Remove(root, names); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		var orig map[string]json.RawMessage
		if strings.TrimSpace(user) != "" {
			if err := json.Unmarshal([]byte(user), &orig); err != nil {
				t.Fatalf("install accepted %q, which is not an object: %v", user, err)
			}
		}
		if err != nil {
			// Deleted: the user's file held nothing but what we add around our hooks.
			for k, v := range orig {
				if k == "hooks" && (string(v) == "null" || isEmptyObject(v)) || flat && k == "version" && string(v) == "1" {
					continue
				}
				t.Fatalf("remove deleted a file holding the user's %s", k)
			}
			return
		}
		if _, had := orig["version"]; flat && !had {
			// Cursor needs "version"; install adds it and remove leaves it,
			// as it cannot tell who wrote it.
			var m map[string]any
			json.Unmarshal(got, &m)
			if m["version"] != 1.0 {
				t.Fatalf("version %v", m["version"])
			}
			delete(m, "version")
			got, _ = json.Marshal(m)
		}
		if !sameJSONValue(t, normalize(string(got)), normalize(user)) {
			t.Fatalf("remove did not give back the user's value:\n got %s\nwant %s", got, user)
		}
	})
}

// normalize drops an empty or null "hooks" member: install needs one and
// remove takes an emptied one away.
func normalize(s string) string {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return s
	}
	if h, ok := m["hooks"]; ok {
		if hm, isMap := h.(map[string]any); h == nil || isMap && len(hm) == 0 {
			delete(m, "hooks")
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func isEmptyObject(v json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(v, &m) == nil && len(m) == 0
}

func sameJSONValue(t *testing.T, a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
