#!/usr/bin/env bash
# `git commit` with git-handoff's hooks against the same commit without
# hooks, interleaved (hooks/bench_test.go): idle (installed, no session
# ever bound; goal <= 1.05x), idle after a session (hook files stay armed
# once a session was bound, as removing the shim could fail a commit in
# another worktree: no goal of its own, an empty hook is its floor) and
# bound (goal: bound/empty-hook <= 1.2x, an empty prepare-commit-msg being
# the least any hook can cost).
#   usage: bench/commit_hooks.sh path/to/git-handoff [commits]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${1:?usage: commit_hooks.sh path/to/git-handoff [commits]}"
n=${2:-100}
cd "$here/.."
out=$(go test -run '^$' -bench '^BenchmarkCommit(NoHooks|EmptyHook|HooksUnbound|HooksUnboundArmed|HooksBound)$' -benchtime "${n}x" ./hooks)
# metric NAME UNIT: the figure go test reported for a benchmark.
metric() {
	printf '%s\n' "$out" | awk -v b="BenchmarkCommit$1" -v u="$2" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i+1) == u) print $i }'
}
idle=$(metric HooksUnbound x-vs-nohooks)
empty=$(metric EmptyHook x-vs-nohooks)
bound=$(metric HooksBound x-vs-nohooks)
printf 'git commit, hooks idle   %s ms vs %s ms without  ratio %s×  (goal ≤ 1.05×)\n' "$(metric HooksUnbound ms/commit)" "$(metric HooksUnbound ms/commit-nohooks)" "$idle"
printf 'git commit, hooks idle after a session (armed)  %s× vs an empty hook %s× (each against no hooks)  ratio %s×  (floor: the empty hook)\n' "$(metric HooksUnboundArmed x-vs-nohooks)" "$empty" "$(ratio "$(metric HooksUnboundArmed x-vs-nohooks)" "$empty")"
printf 'git commit, hooks bound  %s× vs an empty hook %s× (each against no hooks)  ratio %s×  (goal ≤ 1.2×)\n' "$bound" "$empty" "$(ratio "$bound" "$empty")"
