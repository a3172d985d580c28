# Shared helpers for the benchmark scripts (sourced, not run).
# Every figure is a median over several runs, printed next to the same work
# done by git's own plumbing in the same process tree, as a ratio.

set -euo pipefail
export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 LC_ALL=C
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com

# bench_tmp: sets tmp to a fresh scratch directory and points git's global
# configuration into it. Call it directly, not in $(...): the export must
# reach this shell.
bench_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/git-handoff-bench.XXXXXX")
	export GIT_CONFIG_GLOBAL="$tmp/gitconfig"
	git config --global gc.auto 0
	git config --global init.defaultBranch main
}

# now_ns: wall clock in nanoseconds.
now_ns() { date +%s%N; }

# median of numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# time_ns CMD...: nanoseconds one run of CMD took (output discarded).
time_ns() {
	local t0 t1
	t0=$(now_ns)
	"$@" >/dev/null 2>&1
	t1=$(now_ns)
	echo $((t1 - t0))
}

# ratio A B: A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v n="$1" 'BEGIN { printf "%.2f ms", n / 1e6 }'; }
secs() { awk -v n="$1" 'BEGIN { printf "%.3f s", n / 1e9 }'; }

# populate DIR KIND N: N records under refs/ao/<KIND>/... written through
# one hash-object and one update-ref, as fast as git allows.
populate_batons() {
	local dir=$1 n=$2
	mkdir -p "$dir/.blobs"
	awk -v n="$n" -v d="$dir/.blobs" 'BEGIN {
		for (i = 0; i < n; i++) {
			f = sprintf("%s/%d", d, i)
			shared = (i % 10 == 0) ? "true" : "false"
			printf "{\"schema\":\"handoff/v1\",\"id\":\"h-bench%06d\",\"owner\":\"owner%d@example.com\",\"branch\":\"branch-%d\",\"shared\":%s,\"nextSteps\":[\"step %d: carry on with the thing\"],\"failedApproaches\":[],\"openQuestions\":[],\"createdAt\":\"2026-11-01T12:00:00Z\",\"claimed\":%s}", i, i % 97, i, shared, i, (i % 3 == 0) ? "true" : "false" > f
			close(f)
			print f
		}
	}' > "$dir/.blobs.list"
	git -C "$dir" hash-object -w --stdin-paths < "$dir/.blobs.list" > "$dir/.blobs.ids"
	awk -v n="$n" '{
		i = NR - 1
		kind = (i % 10 == 0) ? "shared" : "private"
		printf "create refs/ao/handoffs/%s/owner%d@example.com/branch-%d %s\n", kind, i % 97, i, $1
	}' "$dir/.blobs.ids" | git -C "$dir" update-ref --stdin
	rm -rf "$dir/.blobs" "$dir/.blobs.list" "$dir/.blobs.ids"
}

# peak_kb CMD...: the peak resident memory of CMD in KiB, or "n/a".
peak_kb() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
	else
		echo n/a
	fi
}
