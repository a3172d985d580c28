#!/usr/bin/env bash
# sync.sh BINARY [N] [RUNS]: `git handoff sync` of N (default 10000) records
# against plain `git fetch` + `git push` of the same refspecs, in both
# directions: a clone pushing N new records to an empty bare remote, then a
# fresh clone receiving them. Each run starts both sides from identical
# copies and alternates which goes first, so both see the same machine load.
# Prints one line a run and the median of RUNS (default 3):
#   sync (N records): Xs vs git fetch+push Ys = Z×
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-10000}
runs=${3:-3}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# The template: a bare remote holding main, and a clone holding N batons
# (one per branch, blobs pointed at by refs, packed) set up by init.
git init -q --bare remote.git
git init -q clone
git -C clone commit -q --allow-empty -m first
git -C clone remote add origin ../remote.git
git -C clone push -q origin main
(cd clone && "$bin" init --no-hooks >/dev/null 2>&1)
mkdir recs
awk -v n="$n" -v d="$tmp/recs" 'BEGIN {
	for (i = 0; i < n; i++) {
		f = sprintf("%s/%d", d, i)
		printf "{\"schema\":\"handoff/v1\",\"id\":\"h-bench%05d\",\"owner\":\"bench\",\"branch\":\"b-%d\",\"shared\":false,\"nextSteps\":[\"step %d\"],\"failedApproaches\":[],\"openQuestions\":[],\"createdAt\":\"2026-11-02T09:00:00Z\",\"claimed\":false}", i, i, i > f
		close(f)
		print f
	}
}' >paths
git -C clone hash-object -w --stdin-paths <paths >oids
awk '{ printf "create refs/ao/handoffs/private/bench/b-%d %s\n", NR - 1, $1 }' oids | git -C clone update-ref --stdin
git -C clone pack-refs --all
rm -rf recs paths oids

fetchspecs=() pushspecs=()
for k in handoffs objectives sessions prs; do
	fetchspecs+=("+refs/ao/$k/*:refs/ao/remotes/origin/$k/*")
	pushspecs+=("+refs/ao/$k/*:refs/ao/$k/*")
done
plain() {
	git -C "$1" fetch -q origin "${fetchspecs[@]}"
	git -C "$1" push -q origin "${pushspecs[@]}"
}
handoff_sync() { (cd "$1" && "$bin" sync origin); }

# side NAME: a fresh remote and sender for one side of a run.
side() {
	rm -rf "$1.git" "$1-out" "$1-in"
	cp -r remote.git "$1.git"
	cp -r clone "$1-out"
	git -C "$1-out" remote set-url origin "../$1.git"
}
# receiver NAME: a fresh clone of that side's remote, set up by init.
receiver() {
	git clone -q "$1.git" "$1-in"
	(cd "$1-in" && "$bin" init --no-hooks >/dev/null 2>&1)
}

# both RUN SYNCDIR PLAINDIR: time sync in SYNCDIR and plain fetch+push in
# PLAINDIR, the odd runs sync first; sets ts and tp (nanoseconds).
both() {
	if [ $(($1 % 2)) -eq 1 ]; then
		ts=$(time_ns handoff_sync "$2")
		tp=$(time_ns plain "$3")
	else
		tp=$(time_ns plain "$3")
		ts=$(time_ns handoff_sync "$2")
	fi
}

ratios=()
for run in $(seq 1 "$runs"); do
	side s
	side p
	both "$run" s-out p-out
	so=$ts po=$tp
	receiver s
	receiver p
	both "$run" s-in p-in
	si=$ts pi=$tp
	got=$(git -C s-in for-each-ref refs/ao/handoffs/ | wc -l)
	[ "$got" -eq "$n" ] || { echo "sync.sh: the receiving clone has $got records, want $n" >&2; exit 1; }
	got=$(git -C s.git for-each-ref refs/ao/handoffs/ | wc -l)
	[ "$got" -eq "$n" ] || { echo "sync.sh: the remote has $got records, want $n" >&2; exit 1; }
	s=$((so + si)) p=$((po + pi))
	r=$(ratio "$s" "$p")
	ratios+=("$r $s $p")
	echo "run $run: sync $(secs "$s") (out $(secs "$so"), in $(secs "$si")) vs git fetch+push $(secs "$p") (out $(secs "$po"), in $(secs "$pi")) = ${r}×"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk -v n="$n" '{ r[NR] = $0 } END {
	split(r[int((NR + 1) / 2)], m, " ")
	printf "sync (%d records, median of %d runs): %.2fs vs git fetch+push %.2fs = %.2f×\n", n, NR, m[2] / 1e9, m[3] / 1e9, m[1]
}'
