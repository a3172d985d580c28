#!/usr/bin/env bash
# `end` then `start` on a branch of their own, over and over for the given
# seconds, while `git gc --prune=now` runs back to back in the same clone
# (git-gc(1) calls that unsafe beside writers; people do it). Counts the
# batons `end` said it wrote that the next `start` did not deliver, and
# refs under refs/ao/ that name an object the repository lacks (goal: zero
# of each). Also prints the commands' median time, which the wait for a
# running gc raises (refstore/gcrace.go).
# usage: bench/prune_race.sh path/to/git-handoff [seconds]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: bench/prune_race.sh path/to/git-handoff [seconds]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
secs=${2:-60}
bench_tmp
gcpid=
trap 'kill "$gcpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q -b main a
cd a
git config user.email bench@example.com
git commit -q --allow-empty -m first
"$bin" init --no-hooks >/dev/null 2>&1
( while :; do git gc --quiet --prune=now >/dev/null 2>&1 || true; done ) &
gcpid=$!
end_at=$(($(date +%s) + secs))
n=0 lost=0 failed=0
ts=()
while [ "$(date +%s)" -lt "$end_at" ]; do
	n=$((n + 1))
	git checkout -q -b "t$n"
	t0=$(now_ns)
	if ! "$bin" end --next "step $n" >/dev/null 2>e.out; then
		failed=$((failed + 1)) # said so: nothing is lost that end did not report written
		continue
	fi
	ts+=($(($(now_ns) - t0)))
	if ! "$bin" start --json --session "s$n" >s.out 2>>e.out || ! grep -q "step $n" s.out; then
		lost=$((lost + 1))
		echo "  lost: baton of t$n ($(tail -1 e.out))"
	fi
done
kill "$gcpid" 2>/dev/null || true
wait "$gcpid" 2>/dev/null || true
dangling=$(git for-each-ref --format='%(objectname) %(refname)' refs/ao/ | while read -r oid ref; do git cat-file -e "$oid" 2>/dev/null || echo "$ref"; done | wc -l)
med=$(printf '%s\n' "${ts[@]}" | median)
printf 'prune race  %d s  ends %d  lost %d  end failed (and said so) %d  refs naming nothing %d  end median %s  (goal: lost 0, refs naming nothing 0)\n' \
	"$secs" "$n" "$lost" "$failed" "$dangling" "$(ms "$med")"
