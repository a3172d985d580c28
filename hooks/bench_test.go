package hooks_test

import (
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/hooks"
)

// The goal: with our hooks, `git commit` costs under 1.1x a commit without
// hooks when no session is bound, and under 1.5x when one is. Each benchmark
// interleaves commits in a hook-less repository with commits in the one under
// test, so both see the same machine load, and reports the ratio of medians
// as x-vs-nohooks. Run with:
//
//	go test -run '^$' -bench Commit -benchtime 200x ./hooks

func BenchmarkCommitNoHooks(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {})
}

func BenchmarkCommitHooksUnbound(b *testing.B) {
	benchCommit(b, func(e *env, dir string) { e.install(dir) })
}

func BenchmarkCommitHooksBound(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {
		e.install(dir)
		e.bind(dir, "s1")
	})
}

// BenchmarkCommitHooksBoundDirect calls the binary by absolute path instead
// of through `git handoff`, which saves starting git once more.
func BenchmarkCommitHooksBoundDirect(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {
		if _, err := hooks.Install(e.ctx(), dir, hooks.Options{Command: filepath.Join(binDir, "git-handoff")}); err != nil {
			b.Fatal(err)
		}
		e.bind(dir, "s1")
	})
}

func benchCommit(b *testing.B, setup func(e *env, dir string)) {
	e := newEnv(b).with(logEnv + "=")
	base, dir := e.newRepo(), e.newRepo()
	setup(e, dir)
	commit := func(dir string) time.Duration {
		cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "bench")
		cmd.Dir, cmd.Env = dir, e.vars
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("commit: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	commit(base)
	commit(dir) // warm caches, and fail early if the hooks break commits
	var baseT, underT []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		baseT = append(baseT, commit(base))
		underT = append(underT, commit(dir))
	}
	b.StopTimer()
	mb, mu := median(baseT), median(underT)
	b.ReportMetric(float64(mu)/float64(mb), "x-vs-nohooks")
	b.ReportMetric(float64(mu)/1e6, "ms/commit")
	b.ReportMetric(float64(mb)/1e6, "ms/commit-nohooks")
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
