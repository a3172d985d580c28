#!/usr/bin/env bash
# Does a bare remote hold the lease of `git push --force-with-lease=ref:old`
# while a pack-refs runs there? Plain git, no git-handoff: PUSHERS loops each
# read the ref (ls-remote), write a blob of their own and push it leased on
# what they read, to a remote whose pre-receive hook holds each push up to
# 0.9 s (as a server's checks do) and whose post-receive hook logs every
# update it took, old and new; one more loop keeps pushing 20 other refs.
# With PACK=1 (the default) a loop runs `git pack-refs --all` on the remote
# meanwhile. Every blob is new, so the ref never holds a value
# twice: two updates taken with the same old value are a lease that did not
# hold (taken-twice). git-handoff's claims rest on this lease (teamsync's
# Arbiter); the soak's twice=1 (seed 1006, and one before) was this.
# REFTABLE=1 makes the remote a reftable repository (git >= 2.45 on PATH).
# GROW=1 adds a ref before each pack-refs, so packed-refs never keeps its
# size (the stat that vouches for receive-pack's cached copy of it).
#   usage: bench/leaserace.sh [seconds] [pushers]
#   measured here (git 2.39.5, 2 cores shared with a soak, 8 pushers,
#   60-120 s; counts of updates taken on a version already taken): PACK=1:
#   3 of 16 with this script, 114 of 500, 41 of 246 and 32 of 184 with its
#   first form (one more line of date in the hook); git 2.55: 21 of 217.
#   PACK=0: 0 of 174; GROW=1: 0 of 98; REFTABLE=1 (git 2.55): 0 of 175.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
secs=${1:-60}
pushers=${2:-8}
bench_tmp
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
init=(git init -q --bare)
[ "${REFTABLE:-0}" = 1 ] && init+=(--ref-format=reftable)
"${init[@]}" "$tmp/remote.git"
cat >"$tmp/remote.git/hooks/pre-receive" <<'H'
#!/bin/sh
cat >/dev/null
sleep 0.$(( $(od -An -N2 -tu2 /dev/urandom) % 10 ))
H
cat >"$tmp/remote.git/hooks/post-receive" <<'H'
#!/bin/sh
while read old new ref; do echo "$old $new $ref" >>"$(dirname "$0")/../taken"; done
H
chmod +x "$tmp/remote.git/hooks/pre-receive" "$tmp/remote.git/hooks/post-receive"
git clone -q "$tmp/remote.git" "$tmp/c" 2>/dev/null
cd "$tmp/c" || exit 1
first=$(echo first | git hash-object -w --stdin)
git push -q origin "$first:refs/ao/x"
# Other refs, so packed-refs holds more than the one.
for i in $(seq 20); do
	git push -q origin "$(echo "other $i" | git hash-object -w --stdin):refs/ao/o$i"
done
end=$((SECONDS + secs))
if [ "${PACK:-1}" = 1 ]; then
	(
		k=0
		while [ $SECONDS -lt $end ]; do
			if [ "${GROW:-0}" = 1 ]; then
				k=$((k + 1))
				git -C "$tmp/remote.git" update-ref "refs/ao/grow/$k" "$first"
			fi
			git -C "$tmp/remote.git" pack-refs --all
		done
	) &
fi
# Other refs change meanwhile, as a team's do: packed-refs is rewritten
# with new contents and, mostly, the same size.
(
	while [ $SECONDS -lt $end ]; do
		git push -q -f origin "$(echo "other $RANDOM" | git hash-object -w --stdin):refs/ao/o$((RANDOM % 20 + 1))" 2>/dev/null
	done
) &
for w in $(seq "$pushers"); do
	(
		n=0
		while [ $SECONDS -lt $end ]; do
			cur=$(git ls-remote "$tmp/remote.git" refs/ao/x | cut -f1)
			blob=$(echo "pusher $w push $n" | git hash-object -w --stdin)
			n=$((n + 1))
			git push -q --force-with-lease="refs/ao/x:$cur" origin "$blob:refs/ao/x" 2>/dev/null
		done
	) &
done
wait
taken=$(grep -c ' refs/ao/x$' "$tmp/remote.git/taken")
twice=$(awk '$3 == "refs/ao/x" { n[$1]++ } END { for (o in n) if (n[o] > 1) t += n[o] - 1; print t + 0 }' "$tmp/remote.git/taken")
echo "leaserace: $(git version) pushers=$pushers seconds=$secs pack-refs=${PACK:-1} grow=${GROW:-0} reftable=${REFTABLE:-0} updates=$taken taken-twice=$twice"
