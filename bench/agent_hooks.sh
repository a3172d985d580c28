#!/usr/bin/env bash
# The agents' SessionStart hook on 100,000 batons against `git handoff brief`
# run in the same loop (each loop first leaves a fresh baton, untimed, so
# every hook call claims one); and the size of the context a full baton
# (near the 64 KiB record cap) gives each agent, against the agent's cap.
#   usage: bench/agent_hooks.sh path/to/git-handoff [runs] [batons]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: agent_hooks.sh path/to/git-handoff [runs]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-25}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"

uuid() { printf '%08x-%04x-4%03x-8%03x-%012x\n' $((RANDOM * RANDOM)) $RANDOM $((RANDOM % 4096)) $((RANDOM % 4096)) $((RANDOM * RANDOM * RANDOM)); }
hook_start() {
	printf '{"session_id":"%s","source":"startup","hook_event_name":"SessionStart","cwd":"%s"}' "$1" "$PWD" |
		git handoff hook agent claude-code session-start
}

n=${3:-100000}
repo="$tmp/r-$n"
git init -q "$repo"
git -C "$repo" commit -q --allow-empty -m init
populate_batons "$repo" "$n"
cd "$repo"
git handoff end --owner bench@example.com --next warmup >/dev/null 2>&1
hook_start "$(uuid)" >/dev/null; git handoff brief >/dev/null
o=(); t=(); u=()
for i in $(seq "$runs"); do
	git handoff end --next "step $i: carry on" >/dev/null 2>&1
	id=$(uuid)
	o+=("$(time_ns hook_start "$id")")
	t+=("$(time_ns git handoff brief)")
	# The same claim made by the command, for what the hook adds to it.
	git handoff end --next "step $i: carry on" >/dev/null 2>&1
	u+=("$(time_ns git handoff start --session "cmd-$i" --harness claude-code --json)")
done
mo=$(printf '%s\n' "${o[@]}" | median)
mt=$(printf '%s\n' "${t[@]}" | median)
mu=$(printf '%s\n' "${u[@]}" | median)
printf 'SessionStart hook  %d batons  hook %s  brief %s  ratio %s×  (goal ≤ 1.1×)\n' "$n" "$(ms "$mo")" "$(ms "$mt")" "$(ratio "$mo" "$mt")"
printf 'SessionStart hook  %d batons  hook %s  start --json (the same claim)  %s  ratio %s×  (no goal; what the hook adds)\n' "$n" "$(ms "$mo")" "$(ms "$mu")" "$(ratio "$mo" "$mu")"

# A full baton: eight next steps of 7 KiB each.
step=$(head -c 7000 /dev/zero | tr '\0' 'x')
args=()
for i in 1 2 3 4 5 6 7 8; do args+=(--next "$i $step"); done
git handoff end "${args[@]}" >/dev/null 2>&1
out=$(hook_start "$(uuid)")
chars=$(printf '%s' "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"]))' 2>/dev/null ||
	printf '%s' "$out" | wc -m)
printf 'full baton (%d bytes of next steps)  injected %d characters  cap 10000 (Claude Code; every agent gets the same)\n' $((8 * 7002)) "$chars"
