package redact

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/viper"
	gitleaks "github.com/zricethezav/gitleaks/v8/config"
)

// TestGitleaksRulesAsGitleaksReadsThem: what gitleaksRules reads of the
// default configuration is what gitleaks' own loader makes of it, rule by
// rule and allowlist by allowlist (the path rules left out). A new
// gitleaks whose configuration this reader takes otherwise fails here.
func TestGitleaksRulesAsGitleaksReadsThem(t *testing.T) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(gitleaks.DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	var vc gitleaks.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		t.Fatal(err)
	}
	want, err := vc.Translate()
	if err != nil {
		t.Fatal(err)
	}
	rules, global, err := gitleaksRules(gitleaks.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*rule{}
	for _, r := range rules {
		got[r.id] = r
	}
	kept := 0
	for _, w := range want.GetOrderedRules() {
		r, ok := got[w.RuleID]
		if w.Path != nil || w.Regex == nil {
			if ok {
				t.Errorf("%s: a path rule was kept", w.RuleID)
			}
			continue
		}
		kept++
		if !ok {
			t.Errorf("%s: missing", w.RuleID)
			continue
		}
		if r.source != w.Regex.String() || r.secretGroup != w.SecretGroup || r.entropy != w.Entropy ||
			!slices.Equal(r.keywords, w.Keywords) || r.description != w.Description {
			t.Errorf("%s: read as %q group %d entropy %v keywords %q, gitleaks reads %q group %d entropy %v keywords %q",
				w.RuleID, r.source, r.secretGroup, r.entropy, r.keywords, w.Regex, w.SecretGroup, w.Entropy, w.Keywords)
		}
		sameAllowlists(t, w.RuleID, r.allow, w.Allowlists)
	}
	if kept != len(rules) {
		t.Errorf("read %d rules, gitleaks has %d without a path", len(rules), kept)
	}
	sameAllowlists(t, "global", global, want.Allowlists)
	if kept < 200 {
		t.Errorf("only %d rules: not gitleaks' default configuration", kept)
	}
}

func sameAllowlists(t *testing.T, where string, got []*allowlist, want []*gitleaks.Allowlist) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d allowlists, gitleaks reads %d", where, len(got), len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		var regexes []string
		for _, re := range w.Regexes {
			regexes = append(regexes, re.String())
		}
		stop := slices.Sorted(slices.Values(w.StopWords))
		gotStop := slices.Compact(slices.Sorted(slices.Values(g.stopwords)))
		if g.and != (w.MatchCondition == gitleaks.AllowlistMatchAnd) || g.target != w.RegexTarget ||
			!slices.Equal(g.regexes, regexes) || !slices.Equal(gotStop, stop) ||
			g.needsPathOrCommit != (len(w.Paths) > 0 || len(w.Commits) > 0) {
			t.Errorf("%s: allowlist %d read as %+v, gitleaks reads %+v", where, i, g, w)
		}
	}
}

func TestReadTOML(t *testing.T) {
	got, err := readTOML("# a comment\ntitle = \"t\\u00e9\" # after\n[allowlist]\nregexes = [\n  '''a''', # one\n  'b',\"c\\\"\",\n]\n\n[[rules]]\nid = 'x'\nentropy = 3.5\nsecretGroup = 2\nregex = '''x''y'''\n[[rules]]\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []tomlEntry{
		{table: "", key: "title", value: "té"},
		{table: "allowlist", newTable: true, key: "regexes", value: []string{"a", "b", `c"`}},
		{table: "rules", newTable: true, key: "id", value: "x"},
		{table: "rules", key: "entropy", value: 3.5},
		{table: "rules", key: "secretGroup", value: int64(2)},
		{table: "rules", key: "regex", value: "x''y"},
		{table: "rules", newTable: true},
	}
	if len(got) != len(want) {
		t.Fatalf("read %+v", got)
	}
	for i := range want {
		got[i].line = 0
		if g, w := got[i], want[i]; g.table != w.table || g.newTable != w.newTable || g.key != w.key || !sameValue(g.value, w.value) {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
	}
	for _, bad := range []string{
		"x = \"\"\"multi\"\"\"\n",
		"x = 'open\n",
		"x = [1, 2\n",
		"x = [1, 2]\n",
		"x = \"a\" y\n",
		"[rules\n",
		"= 3\n",
		"x = \"\\q\"\n",
		"x = nope\n",
	} {
		if _, err := readTOML(bad); err == nil {
			t.Errorf("readTOML(%q) took it", bad)
		}
	}
	for _, bad := range []string{
		"[[rules]]\nid = 'x'\nregex = 'y'\nfuture = 1\n",
		"[[rules]]\nid = 'x'\nregex = 'y'\n[[rules.allowlists]]\ncondition = 'XOR'\n",
		"[[rules]]\nid = 'x'\nregex = 'y'\n[[rules.required]]\nid = 'z'\n",
		"[[allowlists]]\ntargetRules = ['x']\n",
		"[[rules]]\nregex = 'y'\n",
	} {
		if _, _, err := gitleaksRules(bad); err == nil {
			t.Errorf("gitleaksRules(%q) took it", bad)
		}
	}
}

func sameValue(a, b any) bool {
	la, ok := a.([]string)
	if !ok {
		return a == b
	}
	lb, ok := b.([]string)
	return ok && slices.Equal(la, lb)
}

// TestProseEndWidened: gitleaks still ends its provider tokens the way
// buildRules widens; if it stops, the rewrite does nothing and this says so.
func TestProseEndWidened(t *testing.T) {
	rules, _, err := gitleaksRules(defaultGitleaksConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rules {
		if strings.Contains(r.source, proseEnd) {
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d rules end with %s", n, proseEnd)
	}
}

// TestEveryRuleCompiles compiles every rule, its anchors and its
// allowlists, which Text does only for the rules a text calls for, and
// says how many run anchored.
func TestEveryRuleCompiles(t *testing.T) {
	rs, err := buildRules(defaultGitleaksConfig())
	if err != nil {
		t.Fatal(err)
	}
	anchored := 0
	for _, r := range rs.rules {
		r.compile()
		r.regexp()
		if r.anchors != nil {
			anchored++
		}

		for _, a := range r.allow {
			a.regexp()
		}
	}
	for _, a := range rs.global {
		a.regexp()
	}
	t.Logf("%d of %d rules run anchored at their keywords", anchored, len(rs.rules))
	if anchored < len(rs.rules)*9/10 {
		t.Errorf("only %d of %d rules anchored", anchored, len(rs.rules))
	}
}

// TestAnchorsFindWhatTheWholeTextDoes: for every rule, on texts made from
// its own regex (one match, set among prose and other rules' matches), a
// run anchored at the keywords finds every secret a run of the regex over
// the whole text finds.
func TestAnchorsFindWhatTheWholeTextDoes(t *testing.T) {
	rs, err := buildRules(defaultGitleaksConfig())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	var made []string
	for _, ru := range rs.rules {
		re, err := syntax.Parse(ru.source, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", ru.id, err)
		}
		for range 4 {
			made = append(made, makeMatch(r, re))
		}
	}
	fillers := []string{" ", "\n", " the api key is ", "token: ", "\n\n", "'", "\"", "=", " and "}
	checked := 0
	for i, ru := range rs.rules {
		if ru.compile(); ru.anchors == nil {
			continue
		}
		full := regexp.MustCompile(ru.source)
		for k := range 8 {
			var b strings.Builder
			b.WriteString(fillers[r.IntN(len(fillers))])
			for j := range 3 {
				if j == 1 {
					b.WriteString(made[i*4+k%4])
				} else {
					b.WriteString(made[r.IntN(len(made))])
				}
				b.WriteString(fillers[r.IntN(len(fillers))])
			}
			s := b.String()
			if !full.MatchString(s) {
				continue
			}
			checked++
			whole := rs.findIn(s, 0, len(s), i, nil)
			var anchored []finding
			for _, f := range rs.find(s) {
				if f.rule == i {
					anchored = append(anchored, f)
				}
			}
			for _, w := range whole {
				if !slices.ContainsFunc(anchored, func(a finding) bool { return a.from <= w.from && w.to <= a.to }) {
					t.Errorf("%s: in %q the whole text finds %q, anchored runs do not", ru.id, s, s[w.from:w.to])
				}
			}
		}
	}
	if checked < len(rs.rules) {
		t.Errorf("only %d texts checked", checked)
	}
}

// makeMatch makes a text that re (probably) matches: every repetition
// taken a few times at most, characters drawn from the printable ASCII
// that a class holds where it holds any.
func makeMatch(r *rand.Rand, re *syntax.Regexp) string {
	var b strings.Builder
	var walk func(n *syntax.Regexp)
	walk = func(n *syntax.Regexp) {
		switch n.Op {
		case syntax.OpLiteral:
			for _, c := range n.Rune {
				if n.Flags&syntax.FoldCase != 0 && r.IntN(2) == 0 {
					c = unicode.SimpleFold(c)
					if c > unicode.MaxASCII {
						c = unicode.SimpleFold(c)
					}
				}
				b.WriteRune(c)
			}
		case syntax.OpCharClass:
			var ascii []rune
			for i := 0; i+1 < len(n.Rune); i += 2 {
				for c := max(n.Rune[i], ' '); c <= min(n.Rune[i+1], '~'); c++ {
					ascii = append(ascii, c)
				}
			}
			switch {
			case len(ascii) > 0:
				b.WriteRune(ascii[r.IntN(len(ascii))])
			case len(n.Rune) > 0:
				b.WriteRune(n.Rune[0])
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte(byte('!' + r.IntN(90)))
		case syntax.OpCapture:
			walk(n.Sub[0])
		case syntax.OpConcat:
			for _, s := range n.Sub {
				walk(s)
			}
		case syntax.OpAlternate:
			walk(n.Sub[r.IntN(len(n.Sub))])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := n.Min, n.Max
			switch n.Op {
			case syntax.OpStar:
				lo, hi = 0, 3
			case syntax.OpPlus:
				lo, hi = 1, 4
			case syntax.OpQuest:
				lo, hi = 0, 1
			}
			if hi < 0 || hi > lo+6 {
				hi = lo + 6
			}
			for range lo + r.IntN(hi-lo+1) {
				walk(n.Sub[0])
			}
		}
	}
	walk(re)
	return b.String()
}
