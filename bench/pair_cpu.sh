#!/usr/bin/env bash
# The CPU time (perf stat's task-clock, every process of the run) of one
# `end` + `start --json` pair against batons.sh's six-process git floor,
# the two taking turns so that a busy machine slows both alike; with a
# second binary (an older build, say), its pair takes a turn too. Prints
# the minimum and median of each, and their ratios to the floor. batons.sh
# measures wall time and the shell's children in 10 ms ticks; this is the
# finer figure for the same job. Needs perf; without it, says so and stops.
#   usage: bench/pair_cpu.sh path/to/git-handoff [runs] [other/git-handoff]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: pair_cpu.sh path/to/git-handoff [runs] [other/git-handoff]}
runs=${2:-40}
other=${3:-}
if ! perf stat -x, -e task-clock true >/dev/null 2>&1; then
	echo "pair_cpu: perf stat cannot count task-clock here: skipped"
	exit 0
fi
bench_tmp
trap 'rm -rf "$tmp"' EXIT
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
mkdir -p "$tmp/a" && ln -sf "$(abs "$bin")" "$tmp/a/git-handoff"
[ -z "$other" ] || { mkdir -p "$tmp/b" && ln -sf "$(abs "$other")" "$tmp/b/git-handoff"; }

repo="$tmp/r"
git init -q -b main "$repo"
git -C "$repo" commit -q --allow-empty -m init
cd "$repo"
cat >"$tmp/ours.sh" <<'EOF'
git handoff end --owner me@example.com --next "go on" >/dev/null
git handoff start --owner me@example.com --session "b-$1" --json >/dev/null
EOF
cat >"$tmp/floor.sh" <<'EOF'
ref=refs/ao/handoffs/private/me@example.com/main
old=$(git rev-parse -q --verify "$ref" || echo 0000000000000000000000000000000000000000)
new=$(printf '{"schema":"handoff/v1","id":"h-%s","owner":"me@example.com","branch":"main","nextSteps":["go on"],"claimed":false}' "$1" | git hash-object -w --stdin)
git update-ref -m "handoff: end" "$ref" "$new" "$old"
claimed=$(git cat-file blob "$ref" | sed 's/"claimed":false/"claimed":true/' | git hash-object -w --stdin)
git update-ref -m "handoff: claimed" "$ref" "$claimed" "$new"
EOF
task_ms() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 }'; }
kinds="a floor"
[ -z "$other" ] || kinds="a b floor"
for k in $kinds; do # one warm-up each
	if [ "$k" = floor ]; then bash "$tmp/floor.sh" w >/dev/null; else PATH="$tmp/$k:$PATH" bash "$tmp/ours.sh" "w$k" >/dev/null; fi
done
for i in $(seq "$runs"); do
	for k in $kinds; do
		if [ "$k" = floor ]; then
			echo "floor $(task_ms bash "$tmp/floor.sh" "$i")"
		else
			echo "$k $(PATH="$tmp/$k:$PATH" task_ms bash "$tmp/ours.sh" "$k$i")"
		fi
	done
done >"$tmp/out"
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/out" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f %.2f", a[1], a[int((NR + 1) / 2)] }'; }
read -r fmin fmed <<<"$(stat_of floor)"
for k in $kinds; do
	[ "$k" = floor ] && continue
	read -r kmin kmed <<<"$(stat_of "$k")"
	name=$bin
	[ "$k" = b ] && name=$other
	printf 'end+start cpu (task-clock, %d runs interleaved)  %s: min %s ms, median %s ms  floor: min %s ms, median %s ms  ratio %s× / %s×  (goal ≤ 1.5×)\n' \
		"$runs" "$name" "$kmin" "$kmed" "$fmin" "$fmed" "$(ratio "$kmin" "$fmin")" "$(ratio "$kmed" "$fmed")"
done
