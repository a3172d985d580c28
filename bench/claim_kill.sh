#!/usr/bin/env bash
# kill -9 trials of `start` claiming a baton through a bare remote: each
# trial writes a baton on a branch of its own, starts a session, kills it
# after a random 0-59 ms, then starts two more sessions. A baton counts as
# delivered to the killed start when it printed it or its session record
# holds it (recorded, then killed before printing). Prints batons lost and
# batons delivered twice (goal: zero of each), git fsck, notes left over.
# usage: bench/claim_kill.sh path/to/git-handoff [trials]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: bench/claim_kill.sh path/to/git-handoff [trials]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
n=${2:-50}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q --bare r.git
git clone -q r.git a 2>/dev/null
cd a
git commit -q --allow-empty -m first
git push -q origin main
"$bin" init --no-hooks >/dev/null 2>&1
claimed() { grep -q '"claimed": true' "$1" && grep -q "$2" "$1"; }
lost=0 twice=0 killed=0 recorded=0
for i in $(seq 1 "$n"); do
	git checkout -q -b "t$i"
	ref="refs/ao/handoffs/private/bench@example.com/t$i"
	git config user.email bench@example.com
	"$bin" end --next "step $i" >/dev/null 2>&1
	"$bin" sync >/dev/null 2>&1
	id=$(git cat-file -p "$ref" | sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' | head -1)
	"$bin" start --json --session "k$i" >k.out 2>/dev/null &
	pid=$!
	sleep "0.0$((RANDOM % 6))$((RANDOM % 10))"
	kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
	wait "$pid" 2>/dev/null || true
	d=0
	if claimed k.out "$id"; then
		d=1
	elif git cat-file -p "refs/ao/sessions/k$i" 2>/dev/null | grep -q "$id"; then
		d=1 recorded=$((recorded + 1))
	fi
	"$bin" start --json --session "n$i" >n.out 2>/dev/null || true
	claimed n.out "$id" && d=$((d + 1))
	"$bin" start --json --session "m$i" >m.out 2>/dev/null || true
	claimed m.out "$id" && d=$((d + 1))
	[ "$d" = 0 ] && lost=$((lost + 1))
	[ "$d" -gt 1 ] && twice=$((twice + 1))
done
fsck=ok
git fsck --no-progress >/dev/null 2>&1 || fsck=failed
left=$( (find .git/handoff/pending -type f ! -name '*.tmp' 2>/dev/null || true) | wc -l)
echo "claim kill trials: $n, killed $killed, lost $lost, delivered twice $twice, recorded but killed before printing $recorded, fsck $fsck, pending notes left $left"
