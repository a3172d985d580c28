package refstore

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

var nameSeeds = []string{
	"main", "feature/parser", "dev@example.com", "with space", "a..b", "@{u}", "x@{1}",
	".hidden", "trailing.", "name.lock", "a.lock.b", "percent%2F", "%", "ünïcödé", "日本語",
	"Case", "case", "tab\there", "nl\nx", "ctl\x7f", "star*", "q?", "col:on", "til~de", "car^et",
	"br[acket", `back\slash`, "@", "-", "--", "...", ".", "..", "x/", "/x", "\xff\xfe", "a\x00b",
	"HEAD", "refs/heads/x", "a//b", strings.Repeat("é", 80),
}

func TestEncodeComponentRoundTrips(t *testing.T) {
	for _, s := range nameSeeds {
		enc, err := EncodeComponent(s)
		if err != nil {
			t.Fatalf("EncodeComponent(%q): %v", s, err)
		}
		if strings.Contains(enc, "/") {
			t.Errorf("EncodeComponent(%q) = %q contains a slash", s, enc)
		}
		dec, err := DecodeComponent(enc)
		if err != nil || dec != s {
			t.Errorf("DecodeComponent(%q) = %q, %v; want %q", enc, dec, err, s)
		}
	}
}

func TestEncodeComponentRefusesEmptyAndHuge(t *testing.T) {
	if _, err := EncodeComponent(""); err == nil {
		t.Error("empty name accepted")
	}
	if _, err := EncodeComponent(strings.Repeat("/", 100)); err == nil {
		t.Error("a name of 300 encoded bytes was accepted")
	}
}

func TestDecodeComponentIsStrict(t *testing.T) {
	for _, c := range []string{"", "%2f", "%2", "%ZZ", "a%41", ".x", "a..b", "a/b", "x.lock", "a b"} {
		if d, err := DecodeComponent(c); err == nil {
			t.Errorf("DecodeComponent(%q) = %q, want an error", c, d)
		}
	}
}

func TestNamesDifferingInCaseStayApart(t *testing.T) {
	a, _ := HandoffRef(false, "Dev", "Main")
	b, _ := HandoffRef(false, "dev", "main")
	if a == b {
		t.Fatalf("both encode to %q", a)
	}
}

// checkRefFormat asks git whether ref is a valid ref name.
func checkRefFormat(t testing.TB, names []string) []bool {
	t.Helper()
	ok := make([]bool, len(names))
	for i, n := range names {
		ok[i] = exec.Command("git", "check-ref-format", n).Run() == nil
	}
	return ok
}

func TestEncodedNamesPassGitCheckRefFormat(t *testing.T) {
	var refs []string
	for _, s := range nameSeeds {
		owner, err := HandoffRef(true, s, s)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, owner)
	}
	for i, ok := range checkRefFormat(t, refs) {
		if !ok {
			t.Errorf("git check-ref-format rejects %q (from %q)", refs[i], nameSeeds[i])
		}
	}
}

// FuzzComponent: any non-empty name encodes to one component git accepts and
// decodes back to itself.
func FuzzComponent(f *testing.F) {
	for _, s := range nameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, err := EncodeComponent(s)
		if s == "" {
			if err == nil {
				t.Fatal("empty name accepted")
			}
			return
		}
		if err != nil {
			if !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), "too long") || len(s)*3 < maxComponent {
				t.Fatalf("EncodeComponent(%q): %v", s, err)
			}
			return
		}
		if strings.Contains(enc, "/") {
			t.Fatalf("%q encodes to %q with a slash", s, enc)
		}
		dec, err := DecodeComponent(enc)
		if err != nil || dec != s {
			t.Fatalf("round trip of %q: %q, %v", s, dec, err)
		}
		ref := SharedPrefix + enc + "/x"
		if !checkRefFormat(t, []string{ref})[0] {
			t.Fatalf("git check-ref-format rejects %q (from %q)", ref, s)
		}
	})
}

// FuzzDecodeComponent: decoding never panics, and what it accepts encodes
// back to the same component.
func FuzzDecodeComponent(f *testing.F) {
	for _, s := range append(nameSeeds, "%25", "%2E%2E", "a%20b", "%E6%97") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		s, err := DecodeComponent(c)
		if err != nil {
			return
		}
		if enc, err := EncodeComponent(s); err != nil || enc != c {
			t.Fatalf("DecodeComponent(%q) = %q, which encodes to %q, %v", c, s, enc, err)
		}
	})
}

// refSeeds are ref names for TestCheckRefIsGitCheckRefFormat and
// FuzzCheckRef: every rule of git check-ref-format, each side of it.
var refSeeds = []string{
	"refs/ao/x", "refs/x", "refs", "refs/", "refs//x", "refs/x/", "refs/./x", "refs/../x",
	"refs/.x", "refs/x.", "refs/x./y", "refs/x.lock", "refs/x.lock/y", "refs/.lock", "refs/x.lck",
	"refs/a..b", "refs/a.b", "refs/a@{b", "refs/a@b", "refs/@", "refs/@/x", "refs/{@", "refs/@{",
	"refs/a b", "refs/a\tb", "refs/a\x01b", "refs/a\x7fb", "refs/a:b", "refs/a?b", "refs/a*b",
	"refs/a[b", "refs/a]b", `refs/a\b`, "refs/a^b", "refs/a~b", "refs/a{b}", "refs/a%b", "refs/a!b",
	"refs/heads/-x", "refs/ünï", "refs/\xff\xfe", "refs/a/b/c/d", "refs/worktree/ao/session",
}

// TestCheckRefIsGitCheckRefFormat: under refs/, CheckRef accepts exactly
// the names git check-ref-format accepts (outside refs/ it accepts none).
func TestCheckRefIsGitCheckRefFormat(t *testing.T) {
	names := append([]string(nil), refSeeds...)
	for _, s := range nameSeeds {
		if !strings.Contains(s, "\x00") {
			names = append(names, "refs/ao/"+s, "refs/"+s)
		}
	}
	for i, git := range checkRefFormat(t, names) {
		if err := CheckRef(names[i]); (err == nil) != git {
			t.Errorf("CheckRef(%q) = %v; git check-ref-format accepts it: %v", names[i], err, git)
		} else if err != nil && !errors.Is(err, ErrBadName) {
			t.Errorf("CheckRef(%q) = %v, not ErrBadName", names[i], err)
		}
	}
	for _, ref := range []string{"HEAD", "ao/x", "x", "", "refsx/y", "FETCH_HEAD"} {
		if CheckRef(ref) == nil {
			t.Errorf("CheckRef(%q) accepts a name outside refs/", ref)
		}
	}
}

// FuzzCheckRef holds CheckRef to git check-ref-format on any name under
// refs/ (git's argv cannot carry a NUL; CheckRef refuses one).
func FuzzCheckRef(f *testing.F) {
	for _, s := range refSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		err := CheckRef(ref)
		if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "\x00") {
			if err == nil {
				t.Fatalf("CheckRef(%q) accepted it", ref)
			}
			return
		}
		if git := checkRefFormat(t, []string{ref})[0]; (err == nil) != git {
			t.Fatalf("CheckRef(%q) = %v; git check-ref-format accepts it: %v", ref, err, git)
		}
	})
}
