#!/usr/bin/env bash
# solo.sh BINARY [N] [RUNS]: the lifetime cost of a clone with no remote,
# which never syncs. N sessions (default 1,000) hand over one after another
# on main (start, which claims the last baton, then end with a new one),
# the clock moving 10 minutes a session through GIT_HANDOFF_NOW. Printed:
#   - refs under refs/ao/ after them: the session and baton refs and the
#     archive's months (goal: what is live, the baton waiting and the
#     sessions not retired yet, at most an hour's, + the months);
#   - files and disk under .git/handoff/ (git-handoff's local notes)
#     against the repository's objects, git's own;
#   - a start + end at the last sessions against one at the first
#     (median of RUNS pairs each; goal <= 1.2x: a handoff costs what it
#     did on the first day), each beside the same pair's git floor
#     (bench/batons.sh's six processes) run alongside.
#   usage: bench/solo.sh path/to/git-handoff [N] [RUNS]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: solo.sh path/to/git-handoff [N] [RUNS]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
n=${2:-1000}
runs=${3:-9}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"
repo="$tmp/solo"
git init -q -b main "$repo"
cd "$repo"
git commit -q --allow-empty -m first
git config handoff.owner me@example.com

t0=$(date -u +%s)
i=0
# pair: one session's start and end, at the clock of session $i.
pair() {
	export GIT_HANDOFF_NOW
	GIT_HANDOFF_NOW=$(date -u -d "@$((t0 + i * 600))" +%Y-%m-%dT%H:%M:%SZ)
	git handoff start --session "s-$i" --json >/dev/null
	git handoff end --session "s-$i" --next "go on from s-$i" >/dev/null
}
# The git floor of the same pair (batons.sh): read, write, swap twice.
ref=refs/ao/handoffs/private/bench-floor/main
floor() {
	local old new claimed
	old=$(git rev-parse -q --verify "$ref" || echo 0000000000000000000000000000000000000000)
	new=$(printf '{"id":"h-%s","claimed":false}' "$i" | git hash-object -w --stdin)
	git update-ref -m "floor: end" "$ref" "$new" "$old"
	claimed=$(git cat-file blob "$ref" | sed 's/"claimed":false/"claimed":true/' | git hash-object -w --stdin)
	git update-ref -m "floor: claimed" "$ref" "$claimed" "$new"
}
# timed K: K pairs, each timed with a floor alongside; sets mo and mf.
timed() {
	local o=() f=() k
	for k in $(seq "$1"); do
		i=$((i + 1))
		o+=("$(time_ns pair)")
		f+=("$(time_ns floor)")
	done
	mo=$(printf '%s\n' "${o[@]}" | median)
	mf=$(printf '%s\n' "${f[@]}" | median)
}
timed "$runs"
first_o=$mo first_f=$mf
t1=$(now_ns)
while [ "$i" -lt $((n - runs)) ]; do
	i=$((i + 1))
	pair
done
t2=$(now_ns)
timed "$runs"
git update-ref -d "$ref"
refs=$(git for-each-ref --format=x refs/ao/ | wc -l)
months=$(git for-each-ref --format=x refs/ao/archive/ | wc -l)
live=$(git for-each-ref --format=x refs/ao/sessions/ refs/ao/handoffs/ | wc -l)
files=$(find .git/handoff -type f | wc -l)
kib=$(du -sk .git/handoff | cut -f1)
okib=$(du -sk .git/objects | cut -f1)
echo "# $n sessions handed over one after another in a clone with no remote, 10 minutes apart ($(secs $((t2 - t1))) for the untimed ones)"
printf 'refs under refs/ao/ after %d sessions: %d = %d session and baton refs + %d archive months  (goal: what is live, the last hour'"'"'s sessions and the baton waiting, + the months)\n' "$n" "$refs" "$live" "$months"
printf 'local notes: %d files, %d KiB under .git/handoff vs %d KiB of .git/objects  (%s×)\n' "$files" "$kib" "$okib" "$(ratio "$kib" "$okib")"
printf 'start + end at session %d vs at the first: %s vs %s = %s×  (goal ≤ 1.2×); the git floor alongside: %s vs %s = %s×; git-handoff vs the floor: %s× then %s×\n' "$n" "$(ms "$mo")" "$(ms "$first_o")" "$(ratio "$mo" "$first_o")" "$(ms "$mf")" "$(ms "$first_f")" "$(ratio "$mf" "$first_f")" "$(ratio "$first_o" "$first_f")" "$(ratio "$mo" "$mf")"
