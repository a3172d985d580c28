#!/usr/bin/env bash
# The agents' SessionEnd hook of a session that worked and left no baton:
# it ends the session and writes the automatic handoff (summary, task,
# commits, a snapshot of the dirty worktree, the transcript's end). Timed
# against `git status` run alongside, and against the 1.5 s Claude Code
# gives a SessionEnd hook (a hook cut short is finished by the next start,
# but should not need to be).
#   usage: bench/session_end.sh path/to/git-handoff [runs] [batons]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: session_end.sh path/to/git-handoff [runs] [batons]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-15}
n=${3:-10000}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"

uuid() { printf '%08x-%04x-4%03x-8%03x-%012x\n' $((RANDOM * RANDOM)) $RANDOM $((RANDOM % 4096)) $((RANDOM % 4096)) $((RANDOM * RANDOM * RANDOM)); }
hook() { # event id [extra json]
	printf '{"session_id":"%s","source":"startup","cwd":"%s","transcript_path":"%s"%s}' "$2" "$PWD" "$tmp/transcript.jsonl" "${3:-}" |
		git handoff hook agent claude-code "$1"
}

repo="$tmp/r-$n"
git init -q "$repo"
git -C "$repo" commit -q --allow-empty -m init
populate_batons "$repo" "$n"
cd "$repo"
# A transcript of a thousand turns, in Claude Code's format.
for i in $(seq 1000); do
	printf '{"type":"user","message":{"role":"user","content":"step %d"}}\n{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done with step %d"}]}}\n' "$i" "$i"
done >"$tmp/transcript.jsonl"
ref=$(git handoff end --next warmup --json | sed -n 's/.*"ref": "\(refs\/ao\/handoffs\/private\/[^"]*\)".*/\1/p' | head -1)
e=(); s=(); h=()
for i in $(seq "$runs"); do
	git handoff end --next "task $i" >/dev/null 2>&1
	id=$(uuid)
	hook session-start "$id" >/dev/null
	echo "$i" >"work-$i.txt" && git add "work-$i.txt" && git commit -q -m "work $i"
	echo dirty >>"work-$i.txt"
	hook stop "$id" ',"stop_hook_active":true,"last_assistant_message":"step '"$i"' is half done"' >/dev/null
	t0=$(now_ns)
	e+=("$(time_ns hook session-end "$id" ',"reason":"other"')")
	# The handover runs detached: time until its baton is there.
	until git cat-file -p "$ref" 2>/dev/null | grep -q '"auto"'; do
		[ $(($(now_ns) - t0)) -gt 30000000000 ] && { echo "run $i: no automatic handoff within 30 s" >&2; exit 1; }
		sleep 0.01
	done
	h+=($(($(now_ns) - t0)))
	s+=("$(time_ns git status --porcelain)")
	git checkout -q -- . && git handoff start --session "drain-$i" >/dev/null 2>&1 # claims it
done
me=$(printf '%s\n' "${e[@]}" | median)
ms_=$(printf '%s\n' "${s[@]}" | median)
mh=$(printf '%s\n' "${h[@]}" | median)
printf 'SessionEnd, until the automatic handoff is written (detached)  %s  git status %s  ratio %s×\n' "$(ms "$mh")" "$(ms "$ms_")" "$(ratio "$mh" "$ms_")"
printf 'SessionEnd hook (what the agent waits for)  %d batons  hook %s  git status %s  ratio %s×  (budget: 1500 ms, Claude Code'"'"'s)\n' "$n" "$(ms "$me")" "$(ms "$ms_")" "$(ratio "$me" "$ms_")"
