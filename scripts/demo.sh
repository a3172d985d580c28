#!/usr/bin/env bash
# The main job, end to end, on a scratch repository with real git and no
# network: one agent's session ends and leaves a baton; a session of another
# agent starts, claims it and reads it at the top of its brief; a second
# claim is refused; then Claude Code's own hooks pick the next baton up and
# ask for one when it stops.
set -euo pipefail
bin=${1:?usage: demo.sh path/to/git-handoff}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/git-handoff-demo.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# git finds `git handoff` as git-handoff on PATH.
mkdir -p "$scratch/bin" && ln -s "$bin" "$scratch/bin/git-handoff"
export PATH="$scratch/bin:$PATH"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$scratch/gitconfig"
git config --global user.name "Demo Dev"
git config --global user.email "dev@example.com"
git config --global init.defaultBranch main

say() { printf "\n\033[1m$ %s\033[0m\n" "$*"; }
note() { printf "\n\033[1m# %s\033[0m\n" "$*"; }
run() { printf "\n\033[1m$"; printf " %q" "$@"; printf "\033[0m\n"; "$@"; }

cd "$scratch" && git init -q repo && cd repo
echo 'package main' > main.go && git add main.go && git commit -qm "start the parser"
git checkout -qb feature/parser

run git handoff start --session claude-1 --harness claude-code --objective "make the parser handle comments"
echo '// comments' >> main.go && git commit -qam "lexer: recognise // comments"
run git handoff end --session claude-1 \
  --next "handle /* block */ comments in the lexer" \
  --next "add tests for nested comments" \
  --failed "a regexp pre-pass: breaks string literals containing //" \
  --question "should doc comments be kept in the AST?"
echo '// block' >> main.go && git commit -qam "lexer: start on block comments"

say "git handoff start --session codex-1 --harness codex   # a different agent picks it up"
git handoff start --session codex-1 --harness codex

say "git handoff claim --session gemini-1   # the baton is single-use"
set +e
git handoff claim --session gemini-1
code=$?
set -e
echo "(exit code $code: the baton was already claimed)"
[ "$code" -eq 5 ] || { echo "demo: expected exit 5 from the second claim" >&2; exit 1; }

# The agents' own hooks: what Claude Code runs when a session starts and
# when it stops (the JSON is what it sends on standard input).
run git handoff init --agent claude --agent codex --agent gemini
run git handoff end --session codex-1 --next "wire the block comments into the parser"
note "Claude Code starts: its SessionStart hook claims the baton and gives the model the brief"
printf '{"session_id":"0b9c5a3e-1111-4222-8333-444455556666","source":"startup","hook_event_name":"SessionStart"}' |
	git handoff hook agent claude-code session-start
echo
echo 'func parse() {}' >> main.go
note "Claude Code stops after changing main.go without a baton: asked once for one"
printf '{"session_id":"0b9c5a3e-1111-4222-8333-444455556666","hook_event_name":"Stop","stop_hook_active":false}' |
	git handoff hook agent claude-code stop
echo
out=$(printf '{"session_id":"0b9c5a3e-1111-4222-8333-444455556666","hook_event_name":"Stop","stop_hook_active":false}' |
	git handoff hook agent claude-code stop)
[ -z "$out" ] || { echo "demo: the Stop hook asked twice" >&2; exit 1; }
git checkout -q -- main.go

run git handoff list --all
run git handoff session ls
run git handoff log
say "git cat-file -p refs/ao/handoffs/private/dev@example.com/feature%2Fparser"
git cat-file -p 'refs/ao/handoffs/private/dev@example.com/feature%2Fparser'
echo
echo "demo: ok"
