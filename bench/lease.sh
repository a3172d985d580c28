#!/usr/bin/env bash
# `git handoff lease take` decided at a bare remote (the arbiter), against
# git's own push of one new ref to the same remote, run in the same loop:
# each take is of a new key, so every run is a real decision at the remote
# (a fetch of the leases, one atomic push). Then a take of a key this
# session holds already (answered "already mine", which still asks the
# remote), against git ls-remote. Issue 37 asks for the figure; it names
# no goal for it.
#   usage: bench/lease.sh path/to/git-handoff [runs]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: lease.sh path/to/git-handoff [runs]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-15}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"
unset GIT_HANDOFF_SESSION

git init -q --bare "$tmp/remote.git"
git clone -q "$tmp/remote.git" "$tmp/a" 2>/dev/null
cd "$tmp/a"
git commit -q --allow-empty -m init
git push -q origin HEAD:refs/heads/main
git handoff init --no-hooks --remote origin >/dev/null 2>&1
git handoff start --session s-bench --harness claude-code >/dev/null 2>&1 ||
	{ echo "lease: start failed" >&2; exit 1; }

i=0
take() { i=$((i + 1)); git handoff lease take "key:bench-$i" >/dev/null 2>&1; }
pushone() { git push -q "$tmp/remote.git" "HEAD:refs/heads/bench-$i" 2>/dev/null; }

take || { echo "lease: lease take failed" >&2; exit 1; }
l=() g=()
for _ in $(seq "$runs"); do
	l+=("$(time_ns take)")
	g+=("$(time_ns pushone)")
done
ml=$(printf '%s\n' "${l[@]}" | median)
mg=$(printf '%s\n' "${g[@]}" | median)
printf 'lease take (a new key, at the remote)   take %s  git push of one ref %s  ratio %s×\n' "$(ms "$ml")" "$(ms "$mg")" "$(ratio "$ml" "$mg")"

again() { git handoff lease take key:bench-1 >/dev/null 2>&1; }
l=() g=()
for _ in $(seq "$runs"); do
	l+=("$(time_ns again)")
	g+=("$(time_ns git ls-remote -q "$tmp/remote.git" refs/heads/main)")
done
ml=$(printf '%s\n' "${l[@]}" | median)
mg=$(printf '%s\n' "${g[@]}" | median)
printf 'lease take (already mine)               take %s  git ls-remote %s      ratio %s×\n' "$(ms "$ml")" "$(ms "$mg")" "$(ratio "$ml" "$mg")"
