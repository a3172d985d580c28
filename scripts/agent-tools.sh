#!/bin/sh
# Installs the pinned releases of the coding agents' CLIs from npm into
# $GIT_HANDOFF_CI_TOOLS (default: the user's cache directory,
# git-handoff/ci-tools), where internal/agenttest finds them. A package
# already installed at its pinned version is not fetched again, so a second
# run installs nothing.
#
#   scripts/agent-tools.sh            install, failing on any error (CI)
#   scripts/agent-tools.sh --if-npm   do nothing without npm, and only warn
#                                     when the install fails (make test: the
#                                     agent tests then skip)
set -eu
mode=${1:-}
dir=${GIT_HANDOFF_CI_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/git-handoff/ci-tools}
# The versions the agent tests were checked against;
# raise them together with a run of the agent tests.
pins="@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @google/gemini-cli@0.61.0 @github/copilot@1.0.102 opencode-ai@1.18.33"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	if [ "$mode" = --if-npm ]; then
		echo "agent CLIs: npm not found, the tests that run them will skip" >&2
		exit 0
	fi
	echo "agent-tools: npm and node are needed to install the agent CLIs" >&2
	exit 1
fi

missing=
for p in $pins; do
	name=${p%@*}
	want=${p##*@}
	have=$(node -e 'try { console.log(require(process.argv[1]).version) } catch (e) {}' \
		"$dir/node_modules/$name/package.json" 2>/dev/null || true)
	[ "$have" = "$want" ] || missing="$missing $p"
done
failed() {
	if [ "$mode" = --if-npm ]; then
		echo "agent CLIs: npm install failed, the tests that run them will skip" >&2
		exit 0
	fi
	exit 1
}
if [ -z "$missing" ]; then
	echo "agent CLIs: $pins (installed)"
else
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
	echo "agent CLIs: installing$missing into $dir" >&2
	# shellcheck disable=SC2086 # one word per package
	npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error $missing || failed
fi

# OpenCode npm-installs its plugin SDK, @opencode-ai/plugin at its own
# version, into its configuration directory and every project's .opencode
# at each start where none is: a minute to three of a test's time on a
# loaded machine, for each fresh HOME and repository. The same install,
# made once here (the package.json as opencode writes it), is what
# internal/agenttest.SeedOpenCode links into those directories first.
oc=${pins##*opencode-ai@}
oc=${oc%% *}
deps="$dir/opencode-plugin-deps"
have=$(node -e 'try { console.log(require(process.argv[1]).version) } catch (e) {}' \
	"$deps/node_modules/@opencode-ai/plugin/package.json" 2>/dev/null || true)
if [ "$have" != "$oc" ]; then
	echo "agent CLIs: @opencode-ai/plugin@$oc into $deps" >&2
	rm -rf "$deps"
	mkdir -p "$deps"
	printf '{\n  "dependencies": {\n    "@opencode-ai/plugin": "%s"\n  }\n}\n' "$oc" >"$deps/package.json"
	npm install --prefix "$deps" --no-audit --no-fund --loglevel=error || failed
fi

# Copilot CLI unpacks itself (235 MB) into $XDG_CACHE_HOME/copilot/pkg
# before its first request in every fresh HOME: unpacked once here,
# internal/agenttest links it into each test's HOME.
cp=${pins##*@github/copilot@}
cp=${cp%% *}
if ! ls "$dir/copilot-cache/copilot/pkg"/*/"$cp"/.extraction-complete >/dev/null 2>&1; then
	echo "agent CLIs: unpacking copilot $cp into $dir/copilot-cache" >&2
	rm -rf "$dir/copilot-cache"
	XDG_CACHE_HOME="$dir/copilot-cache" "$dir/node_modules/.bin/copilot" --version >/dev/null || failed
fi
