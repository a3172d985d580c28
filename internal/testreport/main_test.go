package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A real `go test -json` stream of a module made for the test: a package
// whose tests pass (one slow only in its parallel subtests, which its own
// Elapsed leaves out; two parallel ones that wait for it), one with a
// failing test, one that does not build, one that times out. The report shows the failure and
// the build error, hides the passing tests' output, and ranks the slow
// test first, with its subtests' time and not the parallel tests' wait.
func TestReadsGoTestJSON(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.21\n",
		"good/good_test.go": `package good
import ("testing"; "time")
func TestSlow(t *testing.T) {
	t.Log("passing noise")
	for _, n := range []string{"a", "b"} {
		t.Run(n, func(t *testing.T) { t.Parallel(); time.Sleep(500 * time.Millisecond) })
	}
}
func TestQuick(t *testing.T) { t.Parallel(); t.Run("inner", func(t *testing.T) { t.Log("inner noise") }) }
func TestQuick2(t *testing.T) { t.Parallel(); time.Sleep(100 * time.Millisecond) }
`,
		"bad/bad_test.go": `package bad
import "testing"
func TestOK(t *testing.T) { t.Log("passing noise") }
func TestBroken(t *testing.T) { t.Error("the broken thing") }
`,
		"nobuild/nobuild_test.go": "package nobuild\nimport \"testing\"\nfunc TestX(t *testing.T) { undefinedThing() }\n",
		"hang/hang_test.go": `package hang
import ("testing"; "time")
func TestHang(t *testing.T) { t.Log("hanging on"); time.Sleep(time.Minute) }
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-timeout=8s", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	stream, err := cmd.Output()
	if err == nil {
		t.Fatal("go test passed a module with a failing test")
	}
	if len(stream) == 0 {
		t.Fatalf("go test wrote no JSON: %v", err)
	}

	var echo bytes.Buffer
	r, err := read(bytes.NewReader(stream), &echo)
	if err != nil {
		t.Fatal(err)
	}
	if !r.failed {
		t.Error("the report did not fail")
	}
	shown := echo.String()
	for _, want := range []string{"the broken thing", "--- FAIL: TestBroken", "undefinedThing", "ok  \texample.com/m/good", "FAIL\texample.com/m/bad"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the output lacks %q:\n%s", want, shown)
		}
	}
	// A package that timed out: its running test's output, then its
	// result line.
	hang, result := strings.Index(shown, "hanging on"), strings.Index(shown, "FAIL\texample.com/m/hang")
	if hang < 0 || result < hang || !strings.Contains(shown, "panic: test timed out") {
		t.Errorf("the timed-out test's output is not shown before its package's FAIL line:\n%s", shown)
	}
	if strings.Contains(shown, "noise") {
		t.Errorf("the output shows passing tests' output:\n%s", shown)
	}

	var times bytes.Buffer
	r.printSlowest(&times, 1, false)
	if got := times.String(); !strings.Contains(got, "example.com/m/good TestSlow\n") || strings.Contains(got, "TestQuick") {
		t.Errorf("the slowest test is not TestSlow:\n%s", got)
	}
	for _, tm := range r.tests {
		// Its subtests sleep 0.5 s; go test rounds, and on a loaded
		// machine printed 0.49 for it. A report that lost the subtests'
		// time would show about nothing.
		if tm.test == "TestSlow" && tm.secs < 0.4 {
			t.Errorf("TestSlow took %.2fs, not its subtests' 0.5s", tm.secs)
		}
		if tm.test == "TestQuick2" && tm.secs >= 0.5 {
			t.Errorf("TestQuick2 took %.2fs, its wait for TestSlow counted", tm.secs)
		}
	}
	times.Reset()
	r.printSlowest(&times, 10, true)
	if got := times.String(); !strings.Contains(got, "TestQuick/inner") || !strings.Contains(got, "TestBroken (fail)") {
		t.Errorf("with subtests:\n%s", got)
	}
}

func TestRefusesWhatIsNotATestStream(t *testing.T) {
	if _, err := read(strings.NewReader("{\"Action\":\"start\"}\n"), &bytes.Buffer{}); err == nil {
		t.Error("a stream with no results was read as a report")
	}
	if _, err := read(strings.NewReader("{not json\n"), &bytes.Buffer{}); err == nil {
		t.Error("broken JSON was read")
	}
}
