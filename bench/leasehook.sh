#!/usr/bin/env bash
# The agents' pre-tool hook (`git handoff hook agent claude-code
# pre-tool-use`, asked about a Write) against `git rev-parse HEAD` run in
# the same loop: with no lease in the repository, and with 50 path leases
# held by another session (a write of a free file, which every lease is
# matched against, and a write the hook refuses).
# Goals (issue 37): the hook adds at most 10 ms to a tool call with nothing
# leased, at most 30 ms with leases. The hook's command is the one `init
# --agent claude-code` installs, run as Claude Code runs it (sh -c): the
# shell's start is in its time, and git's when the command goes through
# `git handoff`. Tools that write nothing never start it (the installed
# matchers).
#   usage: bench/leasehook.sh path/to/git-handoff [runs] [leases]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: leasehook.sh path/to/git-handoff [runs] [leases]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-25}
n=${3:-50}
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"
unset GIT_HANDOFF_SESSION

repo="$tmp/repo"
git init -q "$repo"
git -C "$repo" commit -q --allow-empty -m init
cd "$repo"

# The installed command, read back from where init wrote it (one JSON
# string a line; ours hold no quote or backslash to unescape).
git handoff init --agent claude-code --no-hooks --no-check >/dev/null 2>&1 ||
	{ echo "leasehook: init --agent claude-code failed" >&2; exit 1; }
command=$(sed -n 's/^ *"command": "\(.*pre-tool-use.*\)",\{0,1\}$/\1/p' .claude/settings.json)
[ -n "$command" ] || { echo "leasehook: no pre-tool-use command in .claude/settings.json" >&2; exit 1; }
echo "pre-tool hook command: $command"

# hook FILE: the hook asked about a Write of FILE, as Claude Code asks it.
hook() {
	printf '{"session_id":"0b9c5a3e-1111-4222-8333-444455556666","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s/%s","content":"x"}}' "$repo" "$repo" "$1" |
		sh -c "$command"
}

# measure LABEL FILE: the median of runs of the hook on FILE and of
# rev-parse, alternating, and the ratio.
measure() {
	local h=() g=() mh mg
	hook "$2" >/dev/null
	for _ in $(seq "$runs"); do
		h+=("$(time_ns hook "$2")")
		g+=("$(time_ns git rev-parse HEAD)")
	done
	mh=$(printf '%s\n' "${h[@]}" | median)
	mg=$(printf '%s\n' "${g[@]}" | median)
	printf 'pre-tool hook  %-37s hook %s  rev-parse %s  ratio %s×  (goal: the hook, all it adds to a write, ≤ %s)\n' \
		"$1" "$(ms "$mh")" "$(ms "$mg")" "$(ratio "$mh" "$mg")" "$3"
}

measure "no lease" "src/a.go" "10 ms"

keys=()
for i in $(seq "$n"); do keys+=("path:pkg$i/**"); done
git handoff lease take --session s-bench-other --ttl 2h --note bench "${keys[@]}" >/dev/null 2>&1 ||
	{ echo "leasehook: lease take failed" >&2; exit 1; }
if [ -z "$(hook "pkg1/x.go")" ]; then
	echo "leasehook: the hook did not refuse a write under another session's lease" >&2
	exit 1
fi
measure "$n path leases, a free file" "src/a.go" "30 ms"
measure "$n path leases, a leased file (deny)" "pkg$n/x.go" "30 ms"
