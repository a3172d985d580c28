#!/usr/bin/env bash
# end + start against a plumbing script doing the same work, on 10, 1,000
# and 10,000 batons, loose and packed; list --all on 10,000 against
# for-each-ref | cat-file --batch; peak memory of that list.
#   usage: bench/batons.sh path/to/git-handoff [runs]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: batons.sh path/to/git-handoff [runs]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-25}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"

# The same work with plumbing: read the old baton, write a new blob, swap;
# then read it back, write the claimed blob, swap, and create the session.
plumbing_end() {
	local ref=refs/ao/handoffs/private/me@example.com/main old head new
	old=$(git rev-parse -q --verify "$ref" || echo 0000000000000000000000000000000000000000)
	head=$(git rev-parse HEAD)
	new=$(printf '{"schema":"handoff/v1","id":"h-%s","owner":"me@example.com","branch":"main","nextSteps":["go on"],"head":"%s","claimed":false}' "$RANDOM$RANDOM" "$head" | git hash-object -w --stdin)
	git update-ref -m "handoff: end" "$ref" "$new" "$old"
}
plumbing_start() {
	local ref=refs/ao/handoffs/private/me@example.com/main oid claimed sess
	oid=$(git for-each-ref --format='%(objectname)' "$ref")
	git cat-file blob "$oid" >/dev/null
	claimed=$(git cat-file blob "$oid" | sed 's/"claimed":false/"claimed":true,"claimedBySession":"s"/' | git hash-object -w --stdin)
	git update-ref -m "handoff: claimed" "$ref" "$claimed" "$oid"
	sess=$(printf '{"schema":"session/v1","id":"s-%s","status":"active"}' "$1" | git hash-object -w --stdin)
	git update-ref -m "handoff: start" "refs/ao/sessions/s-$1" "$sess" ""
}
ours() {
	git handoff end --owner me@example.com --next "go on" >/dev/null
	git handoff start --owner me@example.com --session "b-$1" --json >/dev/null
}
theirs() {
	plumbing_end
	plumbing_start "$1"
}

echo "# end + start (median of $runs): git-handoff vs plumbing script"
for n in 10 1000 10000; do
	for layout in loose packed; do
		repo="$tmp/r-$n-$layout"
		git init -q "$repo"
		git -C "$repo" commit -q --allow-empty -m init
		populate_batons "$repo" "$n"
		[ "$layout" = packed ] && git -C "$repo" pack-refs --all
		cd "$repo"
		ours warmup-o >/dev/null; theirs warmup-t >/dev/null
		o=(); t=()
		for i in $(seq "$runs"); do
			o+=("$(time_ns ours "o$i")")
			t+=("$(time_ns theirs "t$i")")
		done
		mo=$(printf '%s\n' "${o[@]}" | median)
		mt=$(printf '%s\n' "${t[@]}" | median)
		printf 'end+start  %6d batons %-6s  git-handoff %s  plumbing %s  ratio %s×\n' "$n" "$layout" "$(ms "$mo")" "$(ms "$mt")" "$(ratio "$mo" "$mt")"
		cd "$tmp"
	done
done

echo "# list --all --json on 10,000 batons (median of 7) vs for-each-ref | cat-file --batch"
for layout in loose packed; do
	repo="$tmp/r-10000-$layout"
	cd "$repo"
	[ "$layout" = packed ] && git pack-refs --all
	o=(); t=()
	for i in $(seq 7); do
		o+=("$(time_ns git handoff list --all --json)")
		t+=("$(time_ns sh -c "git for-each-ref --format='%(objectname)' refs/ao/handoffs/ | git cat-file --batch")")
	done
	mo=$(printf '%s\n' "${o[@]}" | median)
	mt=$(printf '%s\n' "${t[@]}" | median)
	count=$(git handoff list --all --json | grep -c '"schema"')
	printf 'list --all %6d batons %-6s  git-handoff %s  plumbing %s  ratio %s×  (%d listed)\n' 10000 "$layout" "$(secs "$mo")" "$(secs "$mt")" "$(ratio "$mo" "$mt")" "$count"
	kb=$(peak_kb git handoff list --all --json)
	gkb=$(peak_kb git for-each-ref --format='%(objectname) %(raw)' refs/ao/handoffs/)
	printf 'list --all peak memory (%s): git-handoff %s KiB, git for-each-ref %s KiB\n' "$layout" "$kb" "$gkb"
	cd "$tmp"
done
