#!/usr/bin/env bash
# end + start --json against the six-process git floor on 10, 10,000 and
# 100,000 batons, loose and packed (goal <= 1.5x); start at 100,000 against
# start at 10, and the same after git gc (goal <= 1.2x); list --all --json on 100,000 against
# for-each-ref | cat-file --batch (goal <= 1.0x) and its peak memory (goal
# < 100 MB). Each line: the figure, its goal, the ratio; end + start's
# line also the git processes each side starts (counted by git's trace2 on
# one more run of each, not timed). parts "floor" stops after end + start;
# BATONS_ARGV=1 prints each side's git commands there too. BATONS_INIT
# adds options to every git init (the formats: "--object-format=sha256
# --ref-format=reftable", with a git that has them first on PATH).
#   usage: bench/batons.sh path/to/git-handoff [runs] [sizes] [all|floor]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: batons.sh path/to/git-handoff [runs] [sizes]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-25}
sizes=${3:-10 10000 100000}
parts=${4:-all}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"

# The floor: the fewest git processes that do the same job, with no JSON
# work. end: read the baton's id (the compare-and-swap's old value), write
# the new blob, swap; start: read the blob, write the claimed blob, swap.
# Six git processes.
ref=refs/ao/handoffs/private/me@example.com/main
zero=0000000000000000000000000000000000000000 # the repository's "no object" (set per repository)
floor() {
	local old new claimed
	old=$(git rev-parse -q --verify "$ref" || echo "$zero")
	new=$(printf '{"schema":"handoff/v1","id":"h-%s","owner":"me@example.com","branch":"main","nextSteps":["go on"],"claimed":false}' "$1" | git hash-object -w --stdin)
	git update-ref -m "handoff: end" "$ref" "$new" "$old"
	claimed=$(git cat-file blob "$ref" | sed 's/"claimed":false/"claimed":true/' | git hash-object -w --stdin)
	git update-ref -m "handoff: claimed" "$ref" "$claimed" "$new"
}
ours_end() { git handoff end --owner me@example.com --next "go on" >/dev/null; }
ours_start() { git handoff start --owner me@example.com --session "b-$1" --json >/dev/null; }
ours() {
	ours_end
	ours_start "$1"
}
start_only() { git handoff start --owner me@example.com --session "s-$1" --json; }

# make_repo N LAYOUT: a repository on main with N batons.
make_repo() {
	local repo="$tmp/r-$1-$2"
	git init -q -b main ${BATONS_INIT:-} "$repo"
	git -C "$repo" commit -q --allow-empty -m init
	populate_batons "$repo" "$1" "$2"
	[ "$2" = packed ] && git -C "$repo" pack-refs --all
	echo "$repo"
}

echo "# end + start --json vs the six-process git floor (wall: median of $runs; cpu: per run over $runs); goal <= 1.5x"
for n in $sizes; do
	for layout in loose packed; do
		t0=$(now_ns)
		repo=$(make_repo "$n" "$layout")
		t1=$(now_ns)
		cd "$repo"
		zero=$(git rev-parse --show-object-format | sed 's/sha256/0000000000000000000000000000000000000000000000000000000000000000/; s/sha1/0000000000000000000000000000000000000000/')
		ours warmup-o; floor warmup-t
		o=(); t=()
		for i in $(seq "$runs"); do
			o+=("$(time_ns ours "o$i")")
			t+=("$(time_ns floor "t$i")")
		done
		mo=$(printf '%s\n' "${o[@]}" | median)
		mt=$(printf '%s\n' "${t[@]}" | median)
		# Process time (user + system of every process) over all the runs.
		c0=$(cpu_ms); for i in $(seq "$runs"); do ours "c$i"; done
		c1=$(cpu_ms); for i in $(seq "$runs"); do floor "c$i"; done
		c2=$(cpu_ms)
		pe=$(git_procs ours_end); ps=$(git_procs ours_start p); pf=$(git_procs floor p)
		printf 'end+start  %6d batons %-6s  wall: git-handoff %s  floor %s  ratio %s×  cpu: %s vs %s  ratio %s×  git processes: %d (end %d + start %d) vs %d  (goal ≤ 1.5×; populated in %s)\n' "$n" "$layout" "$(ms "$mo")" "$(ms "$mt")" "$(ratio "$mo" "$mt")" \
			"$(ms $(((c1 - c0) * 1000000 / runs)))" "$(ms $(((c2 - c1) * 1000000 / runs)))" "$(ratio $((c1 - c0)) $((c2 - c1)))" $((pe + ps)) "$pe" "$ps" "$pf" "$(secs $((t1 - t0)))"
		if [ "${BATONS_ARGV:-}" = 1 ]; then
			echo "  end:";   git_argvs ours_end | sed 's/^/    /'
			echo "  start:"; git_argvs ours_start a | sed 's/^/    /'
			echo "  floor:"; git_argvs floor a | sed 's/^/    /'
		fi
		cd "$tmp"
	done
done

[ "$parts" = floor ] && exit 0

# start with a baton waiting at the largest size against the smallest:
# the two repositories take turns, so that what the machine (and its
# filesystem) does meanwhile slows both alike.
small=${sizes%% *}
large=${sizes##* }
# take_turns LAYOUT TAG [CMD...]: $runs rounds, each ending a baton in
# the $large and then the $small repository of LAYOUT, running CMD there
# (if any) and timing one start; sets ma and mb to the two medians.
take_turns() {
	local layout=$1 tag=$2 i n t a=() b=()
	shift 2
	for i in $(seq "$runs"); do
		for n in "$large" "$small"; do
			cd "$tmp/r-$n-$layout"
			git handoff end --owner me@example.com --next "go on" >/dev/null
			[ $# -eq 0 ] || "$@"
			t=$(time_ns start_only "$tag$i")
			if [ "$n" = "$large" ]; then a+=("$t"); else b+=("$t"); fi
		done
	done
	cd "$tmp"
	ma=$(printf '%s\n' "${a[@]}" | median)
	mb=$(printf '%s\n' "${b[@]}" | median)
}
echo "# start --json with a baton waiting: $large vs $small batons (median of $runs, runs interleaved); goal <= 1.2x"
for layout in loose packed; do
	take_turns "$layout" i
	printf 'start --json %d vs %d batons %-6s  %s vs %s  ratio %s×  (goal ≤ 1.2×)\n' "$large" "$small" "$layout" "$(ms "$ma")" "$(ms "$mb")" "$(ratio "$ma" "$mb")"
done

# The same after `git gc`, as a team's repository is most of the time:
# every record packed, the baton that start claims too, so the read goes
# through the pack's index.
echo "# start --json after git gc packed every record, the waiting baton too: $large vs $small batons (median of $runs, runs interleaved); goal <= 1.2x"
take_turns packed gc git gc -q
printf 'start --json after gc %d vs %d batons  %s vs %s  ratio %s×  (goal ≤ 1.2×)\n' "$large" "$small" "$(ms "$ma")" "$(ms "$mb")" "$(ratio "$ma" "$mb")"

# start with no private baton waiting, at $large shared batons against
# $small (goal <= 1.2x): before each run a teammate ends a shared baton
# (owner0, one of 97 owners, whose directory holds a 97th of the shared
# batons), which the start claims. The two repositories take turns, so a
# busy machine slows both alike. Loose, the teammate's baton lands among
# a thousand loose files, which the start stats (no finer trace of git's
# writers exists); packed (what gc makes of them), among a few.
populate_shared() {
	local dir=$1 n=$2 layout=$3
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "{\"schema\":\"handoff/v1\",\"id\":\"h-shared%06d\",\"owner\":\"owner%d@example.com\",\"branch\":\"branch-%d\",\"shared\":true,\"nextSteps\":[\"step %d\"],\"failedApproaches\":[],\"openQuestions\":[],\"createdAt\":\"2026-11-01T12:00:00Z\",\"claimed\":%s}\n", i, i % 97, i, i, (i % 3 == 0) ? "true" : "false"
	}' | import_blobs "$dir" > "$dir/.blobs.ids"
	awk '{ i = NR - 1; printf "refs/ao/handoffs/shared/owner%d@example.com/branch-%d %s\n", i % 97, i, $1 }' "$dir/.blobs.ids" | write_refs "$dir" "$layout"
	rm -f "$dir/.blobs.ids"
}
shared_start() {
	git -C "$1" handoff end --owner owner0@example.com --branch "fresh-$2" --shared --next "go on" >/dev/null
	c0=$(cpu_ms)
	t=$(time_ns git -C "$1" handoff start --owner me@example.com --session "s-$2" --json)
	c1=$(cpu_ms)
}
echo "# start --json, no private baton, a shared one just ended: $large vs $small shared batons (median of $runs, runs interleaved); goal <= 1.2x"
for layout in loose packed; do
	for n in "$small" "$large"; do
		repo="$tmp/sh-$n-$layout"
		git init -q -b main ${BATONS_INIT:-} "$repo"
		git -C "$repo" commit -q --allow-empty -m init
		populate_shared "$repo" "$n" "$layout"
		# The first start after populating decodes every shared baton once.
		shared_start "$repo" warmup
	done
	a=(); b=(); ca=0; cb=0
	for i in $(seq "$runs"); do
		shared_start "$tmp/sh-$large-$layout" "$i"; a+=("$t"); ca=$((ca + c1 - c0))
		shared_start "$tmp/sh-$small-$layout" "$i"; b+=("$t"); cb=$((cb + c1 - c0))
	done
	ma=$(printf '%s\n' "${a[@]}" | median)
	mb=$(printf '%s\n' "${b[@]}" | median)
	printf 'start, shared waiting  %d vs %d shared %-6s  wall: %s vs %s  ratio %s×  cpu: %s vs %s  ratio %s×  (goal ≤ 1.2×)\n' "$large" "$small" "$layout" "$(ms "$ma")" "$(ms "$mb")" "$(ratio "$ma" "$mb")" \
		"$(ms $((ca * 1000000 / runs)))" "$(ms $((cb * 1000000 / runs)))" "$(ratio "$ca" "$cb")"
	# Not removed here: ext4 makes each new file dearer for minutes after
	# a hundred thousand are freed, which would land on the packed row's
	# every write. The trap removes everything at the end.
done

echo "# list --all --json on $large batons (wall: median of 7; cpu: over 7) vs for-each-ref | cat-file --batch; goal <= 1.0x, peak < 100 MB"
listed() { git handoff list --all --json; }
plumbing() { git for-each-ref --format='%(objectname)' refs/ao/handoffs/ | git cat-file --batch; }
for layout in loose packed; do
	cd "$tmp/r-$large-$layout"
	listed >/dev/null; plumbing >/dev/null # warm the caches
	o=(); t=()
	for i in $(seq 7); do
		o+=("$(time_ns listed)")
		t+=("$(time_ns plumbing)")
	done
	mo=$(printf '%s\n' "${o[@]}" | median)
	mt=$(printf '%s\n' "${t[@]}" | median)
	# Process time (user + system of every process), which moves less
	# than wall time with the load of a shared machine.
	c0=$(cpu_ms); for i in $(seq 7); do listed >/dev/null; done
	c1=$(cpu_ms); for i in $(seq 7); do plumbing >/dev/null; done
	c2=$(cpu_ms)
	count=$(listed | grep -c '"ref": "refs/ao/handoffs/' || true)
	printf 'list --all %6d batons %-6s  wall: git-handoff %s  plumbing %s  ratio %s×  cpu: %s vs %s  ratio %s×  (goal ≤ 1.0×; %d listed)\n' "$large" "$layout" "$(secs "$mo")" "$(secs "$mt")" "$(ratio "$mo" "$mt")" \
		"$(ms $(((c1 - c0) * 1000000 / 7)))" "$(ms $(((c2 - c1) * 1000000 / 7)))" "$(ratio $((c1 - c0)) $((c2 - c1)))" "$count"
	kb=$(peak_kb git handoff list --all --json)
	printf 'list --all peak memory %6d batons %-6s  %s KiB  (goal < 102400 KiB)\n' "$large" "$layout" "$kb"
	cd "$tmp"
done
