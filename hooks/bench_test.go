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

// BenchmarkCommitEmptyHook is the floor for any hook at all: a
// prepare-commit-msg that is only `exit 0`. What the unbound shim costs
// beyond it is the shim's own work.
func BenchmarkCommitEmptyHook(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {
		writeFile(b, filepath.Join(dir, ".git", "hooks", "prepare-commit-msg"), "#!/bin/sh\nexit 0\n", 0o755)
	})
}

// BenchmarkCommitHooksUnbound: our hooks installed, no session ever bound,
// so no prepare-commit-msg at all (see Refresh): nothing of ours runs.
func BenchmarkCommitHooksUnbound(b *testing.B) {
	benchCommit(b, func(e *env, dir string) { e.install(dir) })
}

// BenchmarkCommitHooksUnboundArmed: hook files, a session bound once and
// ended: the shim stays armed (stickyDetail in arm.go) and an unbound
// commit runs it as far as its first builtin tests, which is an sh start.
func BenchmarkCommitHooksUnboundArmed(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {
		e.install(dir)
		e.bind(dir, "s1")
		e.unbind(dir)
		wantArmed(b, filepath.Join(dir, ".git", "hooks"), true)
	})
}

// activeRecord is a session record as git-handoff writes it, which the
// shim's own path reads.
const activeRecord = `{"schema":"session/v1","id":"s1","owner":"dev@example.com","branch":"main","harness":"claude-code","status":"active"}`

// BenchmarkCommitHooksBound: a bound agent's `git commit -m`, finished by the
// shim itself. Binding refreshes (env.bind), which arms the shim.
func BenchmarkCommitHooksBound(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {
		e.install(dir)
		e.bindRecord(dir, "s1", activeRecord)
	})
}

// BenchmarkCommitHooksBoundBinary: a bound commit the shim hands to
// git-handoff (here a record it cannot read with certainty).
func BenchmarkCommitHooksBoundBinary(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {
		e.install(dir)
		e.bind(dir, "s1")
	})
}

// BenchmarkCommitHooksBoundViaGit makes the shim call `git handoff`, as it
// does when git-handoff is not on PATH: one more git start per commit.
func BenchmarkCommitHooksBoundViaGit(b *testing.B) {
	benchCommit(b, func(e *env, dir string) {
		if _, err := hooks.Install(e.ctx(), dir, hooks.Options{Command: "git handoff", Form: hooks.FormFiles}); err != nil {
			b.Fatal(err)
		}
		e.bind(dir, "s1")
	})
}

// BenchmarkCommitConfigHooksUnbound: our hooks in config, on a git that
// runs hooks from config (2.54 and later), no session bound: no event of
// ours for prepare-commit-msg, so nothing of ours runs.
func BenchmarkCommitConfigHooksUnbound(b *testing.B) {
	onGit(b, nil, rowWith(b, true))
	benchCommit(b, func(e *env, dir string) {
		e.form = hooks.FormConfig
		e.install(dir)
	})
}

// BenchmarkCommitConfigHooksBound: a bound `git commit -m` through our
// config hook, finished by the shim it reads.
func BenchmarkCommitConfigHooksBound(b *testing.B) {
	onGit(b, nil, rowWith(b, true))
	benchCommit(b, func(e *env, dir string) {
		e.form = hooks.FormConfig
		e.install(dir)
		e.bindRecord(dir, "s1", activeRecord)
	})
}

func benchCommit(b *testing.B, setup func(e *env, dir string)) {
	e := newEnv(b).with(logEnv + "=")
	base, dir := e.newRepo(), e.newRepo()
	setup(e, dir)
	// Wall time is what users feel; CPU time (user+system of git and every
	// process it waited for, hooks included) barely moves with machine load,
	// so it is the steadier figure on a shared machine.
	commit := func(dir string) (wall, cpu time.Duration) {
		cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "bench")
		cmd.Dir, cmd.Env = dir, e.vars
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("commit: %v\n%s", err, out)
		}
		return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	commit(base)
	commit(dir) // warm caches, and fail early if the hooks break commits
	var baseWall, baseCPU, wall, cpu []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, c := commit(base)
		baseWall, baseCPU = append(baseWall, w), append(baseCPU, c)
		w, c = commit(dir)
		wall, cpu = append(wall, w), append(cpu, c)
	}
	b.StopTimer()
	b.ReportMetric(ratio(wall, baseWall), "x-vs-nohooks")
	b.ReportMetric(ratio(cpu, baseCPU), "cpu-x-vs-nohooks")
	b.ReportMetric(float64(median(wall))/1e6, "ms/commit")
	b.ReportMetric(float64(median(baseWall))/1e6, "ms/commit-nohooks")
}

func ratio(a, b []time.Duration) float64 {
	return float64(median(a)) / float64(median(b))
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
