#!/usr/bin/env bash
# `git handoff session ls --all --json` on 100,000 session records (a third
# of them in replacement pairs) against reading the same blobs with
# plumbing: `git for-each-ref | git cat-file --batch`. Median of several
# runs, loose refs and then packed. Goal: <= 1.2x.
#   usage: bench/session_ls.sh path/to/git-handoff [runs] [sessions]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: session_ls.sh path/to/git-handoff [runs]}
runs=${2:-9}
n=${3:-100000}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"

# populate_sessions DIR N: N session records through one fast-import and one
# update-ref (bench/lib.sh). Sessions 3k+1 replace 3k ("stuck"); the rest stand alone.
populate_sessions() {
	local dir=$1 n=$2
	awk -v n="$n" -v wt="$dir" 'BEGIN {
		h[0] = "claude-code"; h[1] = "codex"; h[2] = "gemini"
		for (i = 0; i < n; i++) {
			status = "active"; extra = ""
			if (i % 3 == 0 && i + 1 < n) {
				status = "replaced"
				extra = sprintf(",\"replacedBy\":\"app-%d\",\"handoffAt\":\"2026-11-02T09:00:00Z\",\"endedAt\":\"2026-11-02T09:00:00Z\"", i + 1)
			} else if (i % 3 == 1) {
				extra = sprintf(",\"supersedes\":\"app-%d\",\"handoffReason\":\"stuck\",\"handoffAt\":\"2026-11-02T09:00:00Z\",\"handoffContextMode\":\"summary\"", i - 1)
			} else if (i % 7 == 0) {
				status = "ended"; extra = ",\"endedAt\":\"2026-11-02T10:00:00Z\""
			}
			printf "{\"schema\":\"session/v1\",\"id\":\"app-%d\",\"owner\":\"owner%d@example.com\",\"branch\":\"feature-%d\",\"worktree\":\"%s/wt-%d\",\"host\":\"bench\",\"harness\":\"%s\",\"model\":\"model-x\",\"status\":\"%s\",\"prompt\":\"implement feature %d and its tests\",\"summary\":\"did the first half of feature %d; tests pass\",\"createdAt\":\"2026-11-01T12:00:00Z\",\"updatedAt\":\"2026-11-02T09:00:00Z\",\"launched\":{\"%s\":{\"nativeId\":\"11111111-1111-4111-8111-%012d\",\"first\":\"2026-11-01T12:00:00Z\",\"last\":\"2026-11-02T09:00:00Z\"}}%s}\n", i, i % 97, i, wt, i, h[i % 3], status, i, i, h[i % 3], i, extra
		}
	}' | import_blobs "$dir" | awk '{ printf "refs/ao/sessions/app-%d %s\n", NR - 1, $1 }' | write_refs "$dir" loose
}

ours() { git handoff session ls --all --json >/dev/null; }
theirs() { git for-each-ref --format='%(objectname)' refs/ao/sessions/ | git cat-file --batch >/dev/null; }

repo="$tmp/repo"
git init -q "$repo"
git -C "$repo" commit -q --allow-empty -m init
populate_sessions "$repo" "$n"
cd "$repo"
count=$(git handoff session ls --all --json | grep -c '"ref": "refs/ao/sessions/')
[ "$count" = "$n" ] || { echo "session ls listed $count sessions, want $n" >&2; exit 1; }
ours; theirs # warm the caches
for layout in loose packed; do
	[ "$layout" = packed ] && git pack-refs --all
	a=$(for _ in $(seq "$runs"); do time_ns ours; done | median)
	b=$(for _ in $(seq "$runs"); do time_ns theirs; done | median)
	# Process time of every process over all the runs (moves less than
	# wall time with the load of a shared machine).
	c0=$(cpu_ms); for _ in $(seq "$runs"); do ours; done
	c1=$(cpu_ms); for _ in $(seq "$runs"); do theirs; done
	c2=$(cpu_ms)
	label="session ls --all ($n sessions)"
	[ "$layout" = packed ] && label="session ls --all ($n sessions, packed refs)"
	printf '%s: wall %s vs plumbing %s  ratio %s×  cpu: %s vs %s  ratio %s×  peak %s KiB  (goal ≤ 1.2×)\n' "$label" "$(secs "$a")" "$(secs "$b")" "$(ratio "$a" "$b")" \
		"$(ms $(((c1 - c0) * 1000000 / runs)))" "$(ms $(((c2 - c1) * 1000000 / runs)))" "$(ratio $((c1 - c0)) $((c2 - c1)))" "$(peak_kb git handoff session ls --all --json)"
done
