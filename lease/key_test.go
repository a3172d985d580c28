package lease

import (
	"errors"
	"strings"
	"testing"
)

func TestParseKey(t *testing.T) {
	good := []struct{ in, want string }{
		{"issue:42", "issue:42"},
		{"issue:#42", "issue:42"},
		{"#42", "issue:42"},
		{"owner/repo#42", "issue:42"},
		{"issue:owner/repo#42", "issue:42"},
		{"issue:https://github.com/o/r/issues/42", "issue:42"},
		{"https://github.com/o/r/issues/42#issuecomment-7", "issue:42"},
		{"pr:17", "pr:17"},
		{"pr:#17", "pr:17"},
		{"pr:o/r#17", "pr:17"},
		{"https://github.example.com/o/r/pull/17/files", "pr:17"},
		{"pr:https://github.com/o/r/pull/17", "pr:17"},
		{"path:src/lexer/**", "path:src/lexer/**"},
		{"path:./src//lexer/./x.go", "path:src/lexer/x.go"},
		{"path:src/", "path:src/"},
		{"path:*.go", "path:*.go"},
		{"key:deploy staging", "key:deploy staging"},
		{"key:a/b:c", "key:a/b:c"},
		{"  issue:7 ", "issue:7"},
	}
	for _, c := range good {
		k, err := ParseKey(c.in)
		if err != nil || k.String() != c.want {
			t.Errorf("ParseKey(%q) = %v, %v; want %s", c.in, k, err, c.want)
			continue
		}
		// Canonical keys parse to themselves and name a ref that names them.
		again, err := ParseKey(k.String())
		if err != nil || again != k {
			t.Errorf("%s is not canonical: %v %v", k, again, err)
		}
		ref, err := k.Ref()
		if err != nil || !strings.HasPrefix(ref, Prefix) {
			t.Errorf("%s: ref %q %v", k, ref, err)
		}
		if back, err := KeyOfRef(ref); err != nil || back != k {
			t.Errorf("%s: ref %s reads back as %v %v", k, ref, back, err)
		}
	}
	bad := []string{
		"", "42", "issue:", "issue:0", "issue:-1", "issue:042", "issue:+4", "issue:x",
		"issue:https://github.com/o/r/pull/4", "pr:https://github.com/o/r/issues/4",
		"https://github.com/o/r/wiki/4", "issue:a/b/c#4", "issue:/r#4",
		"path:", "path:/etc/passwd", "path:../x", "path:a/../../b", "path::(glob)x", "path:.",
		"path:src/[ab", "path:src/*/", "path:a\\",
		"key:", "key:  ", "branch:main", "key:" + strings.Repeat("x", 300),
	}
	for _, in := range bad {
		if k, err := ParseKey(in); err == nil || !errors.Is(err, ErrBadKey) {
			t.Errorf("ParseKey(%q) = %v, %v; want ErrBadKey", in, k, err)
		}
	}
}

// Hostile values still make exactly one ref component each, and two keys
// never share a ref.
func TestKeyRefsHostile(t *testing.T) {
	vals := []string{"a/b", "..", ".lock", "x.lock", "@{1}", "a b", "a:b", "~^", "%41", "A", "\x01", "é", "*?[", "-"}
	refs := map[string]string{}
	for _, v := range vals {
		k := Key{KindKey, v}
		ref, err := k.Ref()
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if strings.Count(ref, "/") != strings.Count(Prefix, "/")+1 {
			t.Errorf("%q: ref %s has more than one component below its kind", v, ref)
		}
		if prev, dup := refs[ref]; dup {
			t.Errorf("%q and %q share %s", v, prev, ref)
		}
		refs[ref] = v
		if back, err := KeyOfRef(ref); err != nil || back != k {
			t.Errorf("%q: %v %v", v, back, err)
		}
	}
}
