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

# import_blobs DIR: one blob per line of stdin (the line without its
# newline) written by one git fast-import into one pack; prints their ids
# in order. A file per blob for hash-object would cost more than the
# benchmarks themselves at 100,000 records.
import_blobs() {
	local dir=$1
	awk '{ printf "blob\nmark :%d\ndata %d\n%s\n", NR, length($0), $0 }' |
		git -C "$dir" fast-import --quiet --export-marks="$dir/.marks"
	sort -t: -k2 -n "$dir/.marks" | awk '{ print $2 }'
	rm -f "$dir/.marks"
}

# write_refs DIR LAYOUT: "refname id" lines on stdin become refs: loose
# through one update-ref, packed straight into packed-refs (sorted, as
# pack-refs writes it) so that 100,000 refs do not cost 100,000 files. A
# reftable has no packed-refs: there both go through update-ref (and a
# caller's pack-refs compacts the tables).
write_refs() {
	local dir=$1 layout=$2
	if [ "$layout" = packed ] && [ "$(git -C "$dir" rev-parse --show-ref-format 2>/dev/null)" != reftable ]; then
		local pr
		pr=$(git -C "$dir" rev-parse --git-path packed-refs)
		case "$pr" in /*) ;; *) pr="$dir/$pr" ;; esac
		{
			echo '# pack-refs with: peeled fully-peeled sorted '
			{ [ -f "$pr" ] && grep -v '^[#^]' "$pr" | awk '{ print $2, $1 }'; cat; } | LC_ALL=C sort -u -k1,1 | awk '{ print $2, $1 }'
		} > "$pr.new"
		mv "$pr.new" "$pr"
	else
		awk '{ printf "create %s %s\n", $1, $2 }' | git -C "$dir" update-ref --stdin
	fi
}

# populate_batons DIR N [LAYOUT]: N batons under refs/ao/handoffs/ (one in
# ten shared), loose refs unless LAYOUT is "packed".
populate_batons() {
	local dir=$1 n=$2 layout=${3:-loose}
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++) {
			shared = (i % 10 == 0) ? "true" : "false"
			printf "{\"schema\":\"handoff/v1\",\"id\":\"h-bench%06d\",\"owner\":\"owner%d@example.com\",\"branch\":\"branch-%d\",\"shared\":%s,\"nextSteps\":[\"step %d: carry on with the thing\"],\"failedApproaches\":[],\"openQuestions\":[],\"createdAt\":\"2026-11-01T12:00:00Z\",\"claimed\":%s}\n", i, i % 97, i, shared, i, (i % 3 == 0) ? "true" : "false"
		}
	}' | import_blobs "$dir" > "$dir/.blobs.ids"
	awk '{
		i = NR - 1
		kind = (i % 10 == 0) ? "shared" : "private"
		printf "refs/ao/handoffs/%s/owner%d@example.com/branch-%d %s\n", kind, i % 97, i, $1
	}' "$dir/.blobs.ids" | write_refs "$dir" "$layout"
	rm -f "$dir/.blobs.ids"
}

# git_procs CMD...: how many git processes one run of CMD starts, as git's
# own trace2 counts them (one "start" event per git process: the git that
# runs git-handoff, and every git git-handoff runs). Output discarded.
git_procs() {
	local ev="$tmp/trace2-events"
	rm -f "$ev"
	GIT_TRACE2_EVENT="$ev" "$@" >/dev/null 2>&1
	grep -c '"event":"start"' "$ev" || true
	rm -f "$ev"
}

# git_argvs CMD...: the git commands one run of CMD starts, one a line, in
# the order they started (trace2's argv of each "start" event).
git_argvs() {
	local ev="$tmp/trace2-events"
	rm -f "$ev"
	GIT_TRACE2_EVENT="$ev" "$@" >/dev/null 2>&1
	grep '"event":"start"' "$ev" | sed 's/.*"argv":\[//; s/\]}$//; s/","/ /g; s/"//g' || true
	rm -f "$ev"
}

# peak_kb CMD...: the peak resident memory of CMD in KiB, or "n/a".
peak_kb() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
	else
		echo n/a
	fi
}

# cpu_ms: the CPU time (user + system, ms) that this script's finished
# children and their descendants have used so far (cutime + cstime of
# /proc/$$/stat, in clock ticks). The issue's figure is process time, which
# moves far less with other load on a shared machine than wall time does;
# a tick is 10 ms, so compare totals over many runs, not single runs.
cpu_ms() {
	local tck
	tck=$(getconf CLK_TCK)
	awk -v tck="$tck" '{ sub(/^.*\) /, ""); print int(($14 + $15) * 1000 / tck) }' "/proc/$$/stat"
}
