#!/usr/bin/env bash
# year.sh BINARY [N] [RUNS]: the figures of "A year of records". A bare
# remote holds N (default 100,000) session records written over the year
# before now (~97% ended long ago, ~3% this week, a few hundred still
# active) with batons (one ref per 20 sessions), objectives and PR records
# (one per 50) in proportion, written by bench/yearpop with the project's
# own record types; beside it a plain clone (no git-handoff) and a clone
# that ran `init --no-hooks` and synced once. Each figure is the median of
# RUNS (default 3), the two sides of a ratio alternating which goes first
# so that both see the same load:
#   1. git fetch, nothing new: the handoff clone vs the plain clone (goal <= 1.1x)
#   2. git handoff sync, nothing new vs the plain clone's git fetch (goal <= 2x)
#   3. the first sync in a new teammate's clone (goal <= 3 s), its peak
#      memory, and the refs it created vs the live records (goal <=)
#   4. start right after a fetch that brought a teammate's new records vs
#      start with nothing new (goal <= 1.2x)
#   5. refs under refs/ao/ on the remote once sync (retention) ran (goal <=
#      the live records + the archive's few)
# "Live" is the population's own count of what sync keeps live: what is
# not final (active sessions and their lineage, the sessions waiting
# batons came from, waiting batons, set objectives, open PRs); final
# records retire at the first sync that sees them. RETENTION (git config
# handoff.retention in every clone) is a dismissal's undo window and how
# far listings reach; the population has no dismissals. Goals are
# printed, not enforced.
#   usage: [RETENTION=7d] bench/year.sh path/to/git-handoff [N] [RUNS]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: year.sh path/to/git-handoff [N] [RUNS]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
n=${2:-100000}
runs=${3:-3}
# RETENTION (days, "7d" by default, as git-handoff's own): git config handoff.retention in every
# clone, and what the population counts as live.
retention=${RETENTION:-7d}
case $retention in *[!0-9]*d | d | *[!d]) echo "year.sh: RETENTION is a number of days, such as 30d" >&2; exit 2 ;; esac
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"
cd "$tmp"

# GNU time for peak memory, if there is one.
timebin=$(type -P time || true)
# peak RESULT CMD...: runs CMD with its output discarded, writing
# "<wall ns> <peak KiB or n/a>" to RESULT.
peak() {
	local out=$1 t0 t1 kb=n/a
	shift
	t0=$(now_ns)
	if [ -n "$timebin" ]; then
		"$timebin" -f %M -o "$out.mem" "$@" >/dev/null 2>&1 || true
		kb=$(tail -1 "$out.mem")
	else
		"$@" >/dev/null 2>&1 || true
	fi
	t1=$(now_ns)
	echo "$((t1 - t0)) $kb" >"$out"
}
count() { git -C "$1" for-each-ref --format=x "$2" | wc -l; }
# kinds DIR: the refs under refs/ao/ but not refs/ao/remotes/, by kind.
kinds() {
	git -C "$1" for-each-ref --format='%(refname)' refs/ao/ | cut -d/ -f3 | grep -vx remotes | sort | uniq -c |
		awk '{ printf "%s%s %d", sep, $2, $1; sep = ", " }'
}
sizepack() { git -C "$1" count-objects -v | awk '$1 == "size-pack:" { print $2 }'; }
# ours CLONE ARGS...: git handoff in CLONE.
ours() { (cd "$1" && shift && git handoff "$@"); }
# quiet CMD...: CMD with its output kept back, shown only when it fails
# (untimed steps: a failure stops the benchmark, with git's words).
quiet() {
	local out
	out=$("$@" 2>&1) || { echo "year.sh: $* failed: $out" >&2; return 1; }
}

# The remote: main with a few commits, then the year.
git init -q --bare remote.git
git init -q seed
for i in 1 2 3 4 5; do
	echo "line $i" >>seed/README
	git -C seed add README
	git -C seed commit -q -m "commit $i"
done
git -C seed push -q ../remote.git main
rm -rf seed
(cd "$here/.." && go build -o "$tmp/yearpop" ./bench/yearpop)
now=$(date -u +%Y-%m-%dT%H:00:00Z)
t0=$(now_ns)
"$tmp/yearpop" -repo remote.git -n "$n" -now "$now" >pop.txt
t1=$(now_ns)
pop() { awk -F= -v k="$1" '$1 == k { print $2 }' pop.txt; }
live=$(pop live)
echo "# a year of records to $now: $(pop sessions) sessions ($(pop sessions_this_week) this week, $(pop sessions_active) active), $(pop batons) baton refs ($(pop batons_waiting) waiting), $(pop objectives) objectives ($(pop objectives_set) set), $(pop prs) PR records ($(pop prs_open) open): $(pop records) records, populated in $(secs $((t1 - t0)))"
echo "# live (not final): $live = sessions ($(pop sessions_active) active, the rest on an active one's lineage or a waiting baton's) + $(pop batons_waiting) waiting batons + $(pop objectives_set) set objectives + $(pop prs_open) open PRs"

# The clones: plain, and one set up by git-handoff that synced once.
# --no-local: through upload-pack, as from a server, so a clone holds what
# it fetched rather than hard links to all the remote has.
git clone -q --no-local remote.git plain
# setup NAME OWNER: a clone that ran init and synced once.
setup() {
	git clone -q --no-local remote.git "$1"
	git -C "$1" config handoff.owner "$2"
	git -C "$1" config handoff.retention "$retention"
	quiet ours "$1" init --no-hooks
	quiet ours "$1" sync
}
# The first clone's first sync meets the year as an older release left
# it, a ref per record: the migration, timed, and checked to lose nothing
# (every session and baton is live or archived at the remote after it).
git clone -q --no-local remote.git handoff
git -C handoff config handoff.owner me@example.com
git -C handoff config handoff.retention "$retention"
quiet ours handoff init --no-hooks
peak migrate.out git -C handoff handoff sync
read -r mt_ns mt_kb <migrate.out
archived() { # DIR KIND: the records of KIND (sessions, handoffs) in DIR's archive months
	for m in $(git -C "$1" for-each-ref --format='%(refname)' refs/ao/archive/); do
		git -C "$1" ls-tree --name-only "$m:$2" 2>/dev/null
	done | sort -u | wc -l
}
ms_live=$(count remote.git refs/ao/sessions/) ms_arch=$(archived remote.git sessions)
mb_live=$(count remote.git refs/ao/handoffs/) mb_arch=$(archived remote.git handoffs)
lost=ok
[ $((ms_live + ms_arch)) -ge "$(pop sessions)" ] && [ $((mb_live + mb_arch)) -ge "$(pop batons)" ] || lost=LOST
printf 'migration, the first sync to meet the year live: %s  (goal ≤ 30 s; peak memory %s KiB); after it the remote holds %d+%d sessions (live+archived, of %d) and %d+%d batons (of %d): %s\n' \
	"$(secs "$mt_ns")" "$mt_kb" "$ms_live" "$ms_arch" "$(pop sessions)" "$mb_live" "$mb_arch" "$(pop batons)" "$lost"
echo "# the handoff clone after init and one sync: $(count handoff refs/ao/) refs under refs/ao/; size-pack $(sizepack handoff) KiB vs the plain clone's $(sizepack plain) KiB"

# alternate RUN NAME_A CMD_A... -- CMD_B...: times both, A first on odd
# runs; sets ta and tb (nanoseconds).
alternate() {
	local run=$1 a=() b=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	if [ $((run % 2)) -eq 1 ]; then
		ta=$(time_ns "${a[@]}"); tb=$(time_ns "${b[@]}")
	else
		tb=$(time_ns "${b[@]}"); ta=$(time_ns "${a[@]}")
	fi
}
# medians: sets ma and mb from the arrays A and B.
medians() { ma=$(printf '%s\n' "${A[@]}" | median); mb=$(printf '%s\n' "${B[@]}" | median); }
# compare CMD_A... -- CMD_B...: times both RUNS times (alternate), and sets
# ma and mb to their medians.
compare() {
	A=(); B=()
	for run in $(seq "$runs"); do
		alternate "$run" "$@"
		A+=("$ta"); B+=("$tb")
	done
	medians
}

# 1 and 2: nothing new.
git -C handoff fetch -q; git -C plain fetch -q; quiet ours handoff sync # warm
compare git -C handoff fetch -q -- git -C plain fetch -q
printf 'git fetch, nothing new: handoff clone %s vs plain clone %s = %s×  (goal ≤ 1.1×; median of %d)\n' "$(ms "$ma")" "$(ms "$mb")" "$(ratio "$ma" "$mb")" "$runs"
# What the tracking refs (refs/ao/remotes/) cost of that fetch, and what
# the live records' own refs do: the same fetch in a copy of the handoff
# clone without its tracking refs. git's fetch reads every ref's object
# (its connectivity check, rev-list --not --all), a blob ref included.
cp -a handoff notrack
git -C notrack for-each-ref --format='delete %(refname)' refs/ao/remotes/ | git -C notrack update-ref --stdin
compare git -C notrack fetch -q -- git -C plain fetch -q
printf '# the same fetch without the tracking refs (%d refs, the live records'"'"' own and the archive'"'"'s): %s vs %s = %s×\n' "$(count notrack refs/)" "$(ms "$ma")" "$(ms "$mb")" "$(ratio "$ma" "$mb")"
rm -rf notrack
compare ours handoff sync -- git -C plain fetch -q
printf 'git handoff sync, nothing new: %s vs the plain clone'"'"'s git fetch %s = %s×  (goal ≤ 2×; median of %d)\n' "$(ms "$ma")" "$(ms "$mb")" "$(ratio "$ma" "$mb")" "$runs"

# 3: the first sync in a new teammate's clone (clone and init untimed).
T=(); M=()
for run in $(seq "$runs"); do
	rm -rf fresh
	git clone -q --no-local remote.git fresh
	git -C fresh config handoff.owner new@example.com
	git -C fresh config handoff.retention "$retention"
	quiet ours fresh init --no-hooks
	l0=$(count fresh refs/ao/)
	r0=$(count fresh refs/ao/remotes/)
	peak first.out git -C fresh handoff sync
	read -r t kb <first.out
	T+=("$t"); M+=("$kb")
	l1=$(count fresh refs/ao/)
	r1=$(count fresh refs/ao/remotes/)
	fk=$(kinds fresh)
done
mt=$(printf '%s\n' "${T[@]}" | median)
mm=$(printf '%s\n' "${M[@]}" | { grep -v n/a || echo n/a; } | median)
created=$(((l1 - r1) - (l0 - r0)))
tracking=$((r1 - r0))
printf 'first sync in a new clone: %s  (goal ≤ 3 s; median of %d; peak memory %s KiB; size-pack %s KiB)\n' "$(secs "$mt")" "$runs" "$mm" "$(sizepack fresh)"
months=$(count fresh refs/ao/archive/)
printf 'first sync'"'"'s refs: %d under refs/ao/ (not refs/ao/remotes/) vs %d live records + %d archive months = %d  (goal ≤ %d; there after it: %s; and %d under refs/ao/remotes/; the year: %d records)\n' "$created" "$live" "$months" $((live + months)) $((live + months)) "${fk:-none}" "$tracking" "$(pop records)"
rm -rf fresh

# 4: start right after a fetch that brought new records, against start
# with nothing new. A teammate's clone ends a session with a baton on a
# branch of its own and syncs; then the measured clone fetches as a user
# would (`git fetch`; `git handoff sync` when a plain fetch brings no
# records in, as once init stops adding refspecs) and starts. Each start
# has a fresh session id and ends after, untimed, leaving the baton the
# next start claims; a warm-up start first claims whatever the year left.
setup mate mate@example.com
news() {
	quiet ours mate start --session "m-$1" --branch "mate-$1"
	quiet ours mate end --session "m-$1" --branch "mate-$1" --next "carry on from m-$1"
	quiet ours mate sync
}
started() { ours handoff start --session "y-$1"; }
ended() { quiet ours handoff end --next "go on from y-$1"; }
refsum() { git -C handoff for-each-ref refs/ao/ | md5sum; }
news w0
s0=$(refsum)
git -C handoff fetch -q
if [ "$(refsum)" = "$s0" ]; then
	catchup() { quiet ours handoff sync; }
	how="git handoff sync (a plain git fetch brought no records)"
else
	catchup() { git -C handoff fetch -q; }
	how="git fetch"
fi
quiet started w1; ended w1
quiet started w2; ended w2
A=(); B=()
for run in $(seq "$runs"); do
	for side in $( [ $((run % 2)) -eq 1 ] && echo new none || echo none new); do
		if [ "$side" = new ]; then
			news "$run"
			s0=$(refsum)
			catchup
			[ "$(refsum)" != "$s0" ] || echo "# run $run: the catch-up brought nothing new" >&2
			t=$(time_ns started "n$run")
			A+=("$t")
			ended "n$run"
		else
			catchup
			t=$(time_ns started "z$run")
			B+=("$t")
			ended "z$run"
		fi
	done
done
medians
printf 'start after %s brought new records: %s vs %s with nothing new = %s×  (goal ≤ 1.2×; median of %d)\n' "$how" "$(ms "$ma")" "$(ms "$mb")" "$(ratio "$ma" "$mb")" "$runs"

# 5: the remote once retention ran. It runs in sync; a `retire` command or
# a `sync --retire`, when the binary has one, runs first.
if "$bin" retire --help >/dev/null 2>&1; then
	quiet ours handoff retire || echo "# git handoff retire failed" >&2
	ran="git handoff retire, then git handoff sync"
	quiet ours handoff sync
elif "$bin" sync --help 2>&1 | grep -q -- '--retire'; then
	quiet ours handoff sync --retire
	ran="git handoff sync --retire"
else
	quiet ours handoff sync
	ran="git handoff sync"
fi
total=$(count remote.git refs/ao/)
archive=$(count remote.git refs/ao/archive/)
printf 'remote refs under refs/ao/ after %s: %d (refs/ao/archive/: %d) vs %d live + the archive'"'"'s %d = %d  (goal ≤ %d; %s)\n' "$ran" "$total" "$archive" "$live" "$archive" $((live + archive)) $((live + archive)) "$(kinds remote.git)"
printf 'size-pack: handoff clone %s KiB, plain clone %s KiB, remote %s KiB\n' "$(sizepack handoff)" "$(sizepack plain)" "$(sizepack remote.git)"
exit 0
