// Command testreport reads `go test -json` on stdin and says where the time
// went: it prints what plain `go test` would print for a human (each
// package's result line, the output of the tests that failed, build errors)
// and then the slowest tests, so that one run of the suite gives both the
// failures and the times. With -o it also keeps the JSON stream in a file,
// for a later look (-quiet reads such a file and prints only the times).
//
//	go test -json ./... | go run ./internal/testreport -n 10 -o /tmp/test.json
//	go run ./internal/testreport -quiet -sub -n 20 < /tmp/test.json
//
// It exits 1 when a test or package failed, so that a pipeline without
// pipefail still fails; go test's own exit status is the caller's to keep.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 10, "how many of the slowest tests to print (0: none)")
	sub := flag.Bool("sub", false, "count subtests too, not only top-level tests")
	quiet := flag.Bool("quiet", false, "print only the slowest tests, not the tests' output")
	out := flag.String("o", "", "also write the JSON stream to this `file`")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "testreport: reads go test -json on stdin; no arguments")
		os.Exit(2)
	}
	in := io.Reader(os.Stdin)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = io.TeeReader(os.Stdin, f)
	}
	echo := io.Writer(os.Stdout)
	if *quiet {
		echo = io.Discard
	}
	r, err := read(in, echo)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if *n > 0 {
		r.printSlowest(os.Stdout, *n, *sub)
	}
	if r.failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, and the
// build events go test adds to it).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Elapsed    float64
	Output     string
}

// timing is one finished test or package.
type timing struct {
	pkg, test string
	secs      float64
	action    string
}

type report struct {
	tests, pkgs []timing
	failed      bool
}

// read consumes the stream, writing to echo what go test without -json
// would show: a test's output is held until it ends and shown only if it
// failed; a package's own lines (ok, FAIL, panics outside tests) at once.
// Tests still running when their package fails (a timeout, a crash) have
// their output shown then.
func read(in io.Reader, echo io.Writer) (*report, error) {
	r := &report{}
	held := map[[2]string]*strings.Builder{}
	result := map[string]string{}
	// A test's Elapsed leaves out its parallel subtests (a parent that
	// only starts them reports 0 s) and a parallel test's wait for its
	// turn: its cost is the wall time from run to end less its pauses.
	started := map[[2]string]time.Time{}
	paused := map[[2]string]time.Time{}
	waited := map[[2]string]time.Duration{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 || b[0] != '{' {
			// not JSON: go test's own message (a vet or setup failure)
			fmt.Fprintf(echo, "%s\n", b)
			continue
		}
		var e event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		key := [2]string{e.Package, e.Test}
		switch {
		case e.Action == "run":
			started[key] = e.Time
		case e.Action == "pause":
			paused[key] = e.Time
		case e.Action == "cont":
			if p, ok := paused[key]; ok {
				waited[key] += e.Time.Sub(p)
				delete(paused, key)
			}
		case e.Action == "build-output":
			fmt.Fprint(echo, e.Output)
		case e.Action == "build-fail":
			r.failed = true
		case e.Action == "output" && e.Test != "":
			w := held[key]
			if w == nil {
				w = &strings.Builder{}
				held[key] = w
			}
			w.WriteString(e.Output)
		case e.Action == "output" && (strings.HasPrefix(e.Output, "FAIL\t") || strings.HasPrefix(e.Output, "ok  \t")):
			// the package's result line, after whatever its end shows
			result[e.Package] += e.Output
		case e.Action == "output":
			if e.Output != "PASS\n" {
				fmt.Fprint(echo, e.Output)
			}
		case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
			if e.Action == "fail" {
				r.failed = true
			}
			if e.Test == "" {
				if e.Action == "fail" {
					// whatever its tests were doing when it died
					var running [][2]string
					for k := range held {
						if k[0] == e.Package {
							running = append(running, k)
						}
					}
					sort.Slice(running, func(i, j int) bool { return running[i][1] < running[j][1] })
					for _, k := range running {
						fmt.Fprint(echo, held[k].String())
						delete(held, k)
					}
				}
				fmt.Fprint(echo, result[e.Package])
				delete(result, e.Package)
				r.pkgs = append(r.pkgs, timing{pkg: e.Package, secs: e.Elapsed, action: e.Action})
				continue
			}
			if w := held[key]; w != nil {
				if e.Action == "fail" {
					fmt.Fprint(echo, w.String())
				}
				delete(held, key)
			}
			secs := e.Elapsed
			if t0, ok := started[key]; ok && !e.Time.IsZero() {
				secs = max(secs, (e.Time.Sub(t0) - waited[key]).Seconds())
			}
			delete(started, key)
			delete(waited, key)
			r.tests = append(r.tests, timing{pkg: e.Package, test: e.Test, secs: secs, action: e.Action})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, line := range result {
		fmt.Fprint(echo, line)
	}
	if len(r.pkgs) == 0 && len(r.tests) == 0 && !r.failed && line > 0 {
		return nil, errors.New("no test results in the stream (was it go test -json?)")
	}
	return r, nil
}

// printSlowest prints the n slowest tests (top-level only unless sub) and
// the n slowest packages, slowest first.
func (r *report) printSlowest(w io.Writer, n int, sub bool) {
	var tests []timing
	for _, t := range r.tests {
		if sub || !strings.Contains(t.test, "/") {
			tests = append(tests, t)
		}
	}
	slowestFirst(tests)
	slowestFirst(r.pkgs)
	fmt.Fprintf(w, "--- slowest %d of %d tests:\n", min(n, len(tests)), len(tests))
	for _, t := range tests[:min(n, len(tests))] {
		fmt.Fprintf(w, "%8.1fs  %s %s%s\n", t.secs, t.pkg, t.test, mark(t.action))
	}
	fmt.Fprintf(w, "--- slowest %d of %d packages:\n", min(n, len(r.pkgs)), len(r.pkgs))
	for _, p := range r.pkgs[:min(n, len(r.pkgs))] {
		fmt.Fprintf(w, "%8.1fs  %s%s\n", p.secs, p.pkg, mark(p.action))
	}
}

func slowestFirst(ts []timing) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].secs > ts[j].secs })
}

func mark(action string) string {
	if action == "pass" {
		return ""
	}
	return " (" + action + ")"
}
