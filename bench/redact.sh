#!/usr/bin/env bash
# What redaction (redact/, gitleaks' rules) adds to `end`: the redaction
# pass alone on a one-line baton (goal <= 2 ms) and on a 64 KB summary
# (goal <= 10 ms), first call in a process (cold: the rules read, the ones
# the text calls for compiled) and later calls (warm), with the memory of
# the cold call; each against `git hash-object -w --stdin` of the same text,
# which `end` runs alongside to write it. Then `end` itself with each, end
# to end, against `git status`. The pass's figures come from `go test
# -bench BenchmarkRedact ./redact` (median of 5), so this needs Go and the
# source tree beside bench/.
#   usage: bench/redact.sh path/to/git-handoff [runs]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: redact.sh path/to/git-handoff [runs]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-15}
go=${GO:-go}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"

# The pass alone: ns/op and B/op of each case, median of five runs.
(cd "$here/.." && "$go" test -run '^$' -bench 'BenchmarkRedact/(baton-line|summary-64KB)/' -benchmem -count 5 ./redact) >"$tmp/bench.txt"
figure() { # case column: the median of that column over the runs
	awk -v c="BenchmarkRedact/$1-" -v col="$2" 'index($1, c) == 1 { print $col }' "$tmp/bench.txt" | median
}

# The texts: the benchmark's, rebuilt here for git and `end`.
line="carry on with the lexer: the tokenizer fails on nested quotes, see parse_test.go"
cat "$here/../README.md" "$here"/../docs/*.md >"$tmp/docs.md"
: >"$tmp/long"
while [ "$(wc -c <"$tmp/long")" -lt 65536 ]; do
	cat "$tmp/docs.md" >>"$tmp/long"
done
head -c 65536 "$tmp/long" >"$tmp/summary"

repo="$tmp/repo"
git init -q "$repo"
git -C "$repo" commit -q --allow-empty -m init
cd "$repo"
git handoff end --next warmup >/dev/null 2>&1
hash_file() { git hash-object -w --stdin <"$1"; }
h1=(); h64=(); e1=(); e64=(); st=()
for i in $(seq "$runs"); do
	printf '%s %s' "$line" "$i" >"$tmp/line.$i"
	{ cat "$tmp/summary"; echo "$i"; } >"$tmp/summary.$i"
	h1+=("$(time_ns hash_file "$tmp/line.$i")")
	h64+=("$(time_ns hash_file "$tmp/summary.$i")")
	e1+=("$(time_ns git handoff end --next "$line $i")")
	e64+=("$(time_ns git handoff end --next "$(cat "$tmp/summary") $i")")
	st+=("$(time_ns git status --porcelain)")
done
mh1=$(printf '%s\n' "${h1[@]}" | median)
mh64=$(printf '%s\n' "${h64[@]}" | median)
me1=$(printf '%s\n' "${e1[@]}" | median)
me64=$(printf '%s\n' "${e64[@]}" | median)
mst=$(printf '%s\n' "${st[@]}" | median)

kb() { awk -v n="$1" 'BEGIN { printf "%.0f KB", n / 1024 }'; }
# Columns of a benchmark line: 3 ns/op, 7 CPU ns/op (the process's CPU
# time, which moves less than the wall clock when others share the
# machine), 9 B/op.
pass() { # case, what, goal in ms
	local name=$1 what=$2 goal=$3 cold warm cpu wcpu mem git_ns
	cold=$(figure "$name/cold" 3)
	cpu=$(figure "$name/cold" 7)
	warm=$(figure "$name/warm" 3)
	wcpu=$(figure "$name/warm" 7)
	mem=$(figure "$name/cold" 9)
	git_ns=$mh1
	[ "$name" = summary-64KB ] && git_ns=$mh64
	printf 'redaction pass, %s  cold %s (CPU %s, %s)  warm %s (CPU %s)  git hash-object %s  ratio cold %s×  warm %s×  (goal: <= %s ms added)\n' \
		"$what" "$(ms "$cold")" "$(ms "$cpu")" "$(kb "$mem")" "$(ms "$warm")" "$(ms "$wcpu")" "$(ms "$git_ns")" "$(ratio "$cold" "$git_ns")" "$(ratio "$warm" "$git_ns")" "$goal"
}
pass baton-line "one-line baton" 2
pass summary-64KB "64 KB summary" 10
printf 'end --next, one line  %s  git status %s  ratio %s×\n' "$(ms "$me1")" "$(ms "$mst")" "$(ratio "$me1" "$mst")"
printf 'end --next, 64 KB     %s  git status %s  ratio %s×\n' "$(ms "$me64")" "$(ms "$mst")" "$(ratio "$me64" "$mst")"
