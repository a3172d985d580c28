#!/bin/sh
# sync.sh BINARY [N]: `git handoff sync` of N (default 10000) records
# against plain `git fetch` + `git push` of the same refspecs, in both
# directions: a clone pushing N new records to an empty bare remote, then a
# fresh clone receiving them. Each side runs on identical copies. Prints
#   sync (N records): Xs vs git fetch+push Ys = Z×
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$tmp/home/.gitconfig" GIT_TERMINAL_PROMPT=0
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n' >"$GIT_CONFIG_GLOBAL"
cd "$tmp"

git init -q --bare r1.git
git init -q a1
git -C a1 commit -q --allow-empty -m first
git -C a1 remote add origin ../r1.git
git -C a1 push -q origin main
(cd a1 && "$bin" init --no-hooks >/dev/null 2>&1)

# N batons, one per branch, as blobs pointed at by refs.
mkdir recs
awk -v n="$n" -v d="$tmp/recs" 'BEGIN {
	for (i = 0; i < n; i++) {
		f = sprintf("%s/%d", d, i)
		printf "{\"schema\":\"handoff/v1\",\"id\":\"h-bench%05d\",\"owner\":\"bench\",\"branch\":\"b-%d\",\"shared\":false,\"nextSteps\":[\"step %d\"],\"failedApproaches\":[],\"openQuestions\":[],\"createdAt\":\"2026-11-02T09:00:00Z\",\"claimed\":false}", i, i, i > f
		close(f)
		print f
	}
}' >paths
git -C a1 hash-object -w --stdin-paths <paths >oids
awk '{ printf "create refs/ao/handoffs/private/bench/b-%d %s\n", NR - 1, $1 }' oids | git -C a1 update-ref --stdin
git -C a1 pack-refs --all

cp -r r1.git r2.git
cp -r a1 a2
git -C a2 remote set-url origin ../r2.git

specs='+refs/ao/handoffs/*:refs/ao/remotes/origin/handoffs/* +refs/ao/objectives/*:refs/ao/remotes/origin/objectives/* +refs/ao/sessions/*:refs/ao/remotes/origin/sessions/* +refs/ao/prs/*:refs/ao/remotes/origin/prs/*'
pushspecs='+refs/ao/handoffs/*:refs/ao/handoffs/* +refs/ao/objectives/*:refs/ao/objectives/* +refs/ao/sessions/*:refs/ao/sessions/* +refs/ao/prs/*:refs/ao/prs/*'

now() { date +%s.%N; }

# Outgoing: N new records to an empty remote.
t0=$(now)
(cd a1 && "$bin" sync origin >/dev/null 2>&1)
t1=$(now)
# shellcheck disable=SC2086
git -C a2 fetch -q origin $specs
# shellcheck disable=SC2086
git -C a2 push -q origin $pushspecs
t2=$(now)

# Incoming: a fresh clone receives them.
git clone -q r1.git b1
git clone -q r2.git b2
(cd b1 && "$bin" init --no-hooks >/dev/null 2>&1)
(cd b2 && "$bin" init --no-hooks >/dev/null 2>&1)
t3=$(now)
(cd b1 && "$bin" sync origin >/dev/null 2>&1)
t4=$(now)
# shellcheck disable=SC2086
git -C b2 fetch -q origin $specs
# shellcheck disable=SC2086
git -C b2 push -q origin $pushspecs
t5=$(now)

got=$(git -C b1 for-each-ref refs/ao/handoffs/ | wc -l)
[ "$got" -eq "$n" ] || { echo "sync.sh: b1 has $got records, want $n" >&2; exit 1; }

awk -v s1="$t0" -v e1="$t1" -v e2="$t2" -v s3="$t3" -v e4="$t4" -v e5="$t5" -v n="$n" 'BEGIN {
	sync = (e1 - s1) + (e4 - s3); plain = (e2 - e1) + (e5 - e4)
	printf "sync (%d records): %.2fs vs git fetch+push %.2fs = %.2f×\n", n, sync, plain, sync / plain
}'
