#!/usr/bin/env bash
# make bench: every bench/*.sh with the binary under test; each prints its
# figures as ratios against git's own plumbing measured in the same run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: bench/run.sh path/to/git-handoff}
for b in "$here"/*.sh; do
	case "$(basename "$b")" in run.sh|lib.sh) continue ;; esac
	echo "== $(basename "$b")"
	bash "$b" "$bin"
done
