package hooks

import (
	"bytes"
	"fmt"
	"strings"
)

// ShimVersion changes whenever the text of any shim changes, so Check can
// tell a current shim from a stale one left by an older git-handoff.
const ShimVersion = 8

// shimMarker starts the second line of every shim; it is how Install, Check
// and Uninstall recognise a hook as ours whatever its version.
const shimMarker = "# git-handoff hook shim v"

// commandLinePrefix introduces the line recording how the shim calls
// git-handoff, so Check can regenerate the exact text and compare.
const commandLinePrefix = "# command: "

// By default (an empty command) a shim runs git-handoff straight from PATH
// when it is there (command -v is a builtin) and through `git handoff`,
// which also searches git's exec-path, only when it is not: going through
// git costs one more process start on every bound commit.

// The shims are POSIX sh. A hook file's shim runs the hook it replaced
// first, with the same arguments and stdin, and lets its exit status decide
// the user's operation (chainHead); a config hook's shim has nothing to run
// first, as git runs the user's hook file itself. Then, only if a test made of shell builtins says there may be
// something to do, it runs git-handoff's part with stdin from /dev/null
// (pre-push's stdin belongs to the user's hook alone) and ignores its
// status. The builtins-only test is what keeps an idle hook at the cost of
// one sh start: no git process, no Go binary.

// gitDirLines sets d to this worktree's git dir: GIT_DIR when git exported
// it (linked worktrees, explicit GIT_DIR), else .git in the hook's working
// directory, which git makes the top of the worktree; a .git file is
// followed ("gitdir: <path>", relative to the top).
const gitDirLines = `d=${GIT_DIR:-.git}
if [ -f "$d" ]; then read -r d <"$d"; d=${d#gitdir: }; fi
`

// commonDirLines turns d into the common git dir, where shared refs live.
const commonDirLines = `if [ -f "$d/commondir" ]; then
	read -r c <"$d/commondir"
	case $c in /*) d=$c ;; *) d=$d/$c ;; esac
fi
`

var shimBodies = map[string]string{
	// Bound means GIT_HANDOFF_SESSION is set or the per-worktree symbolic ref
	// file exists; per-worktree refs are never packed, so in a files
	// repository a file test is exact. A reftable repository (the common
	// dir has a reftable directory) keeps no ref in a file: there the shim
	// asks `git symbolic-ref`, one git process per commit in any worktree
	// while the shim is armed. A bound-but-ended session is left for
	// git-handoff to judge.
	//
	// The common bound commit, an agent's `git commit -m`, is finished here
	// without starting git-handoff: one git process reads the session record
	// (is it active, which agent), another adds the trailers. Anything less
	// plain (another message source, an id that is percent-encoded, a
	// message that already names a session or lacks its final newline, a
	// record this cannot read with certainty) goes to git-handoff, which
	// decides the same way with more care.
	//
	// Its leased() ("may a path lease ref exist?": a loose directory, a
	// packed-refs line, or in a reftable git's answer) is the test
	// refstore.Peeked.MayHold (refstore/peek.go) makes in Go for the
	// agents' pre-tool hook: one definition in two languages, kept alike.
	PrepareCommitMsg: `[ -z "$` + GuardEnv + `" ] || exit 0
# plain GITDIR COMMONDIR: git's trailer rules as the shim knows them hold
# for git's default trailer configuration only. Any trailer setting
# (separators, a key's own rules) in the repository's, the user's or the
# system's config, or on the command line, gives status 1: the commit goes
# to git-handoff, which runs git interpret-trailers. Files pulled in by
# include are not followed.
# sh reads a file a byte per system call, and a user's ~/.gitconfig of a
# few kilobytes made each commit milliseconds dearer: a plain answer is
# kept in GITDIR/handoff-hook-plain under what chose the files (the
# variables below), and holds while it is newer than each of them (a
# change made in the same clock tick as it, or while the files were being
# read, counts from the next change on).
plain() {
	case ${GIT_CONFIG_PARAMETERS-} in *[Tt][Rr][Aa][Ii][Ll][Ee][Rr].*) return 1 ;; esac
	case ${GIT_CONFIG_COUNT:-0} in 0) ;; *) return 1 ;; esac
	pc=$1/handoff-hook-plain
	key="${GIT_CONFIG_GLOBAL-}:${HOME-}:${XDG_CONFIG_HOME-}:${GIT_CONFIG_NOSYSTEM-}:${GIT_CONFIG_SYSTEM-}"
	set -- "$2/config" "$1/config.worktree" "${GIT_CONFIG_GLOBAL:-${HOME-}/.gitconfig}"
	[ -n "${GIT_CONFIG_GLOBAL-}" ] || set -- "$@" "${XDG_CONFIG_HOME:-${HOME-}/.config}/git/config"
	[ -n "${GIT_CONFIG_NOSYSTEM-}" ] || set -- "$@" "${GIT_CONFIG_SYSTEM:-/etc/gitconfig}"
	k=
	[ -f "$pc" ] && IFS= read -r k <"$pc"
	if [ "$k" = "$key" ]; then
		k=kept
		for f; do
			[ ! -e "$f" ] || [ "$pc" -nt "$f" ] || k=
		done
		[ -z "$k" ] || return 0
	fi
	for f; do
		[ -f "$f" ] || continue
		while IFS= read -r l; do
			case $l in *'['*[Tt][Rr][Aa][Ii][Ll][Ee][Rr]*) return 1 ;; esac
		done <"$f"
	done
	printf '%s\n' "$key" 2>/dev/null >"$pc"
}
# fast FILE REF finishes a bound ` + "`git commit -m`" + ` here, without git-handoff;
# status 1 leaves the commit to git-handoff.
fast() {
	cd=$d
	if [ -f "$d/commondir" ]; then
		read -r cd <"$d/commondir"
		case $cd in /*) ;; *) cd=$d/$cd ;; esac
	fi
	plain "$d" "$cd" || return 1
	# The message: content, no Handoff-* or comment line, a final newline
	# and no trailing blank line; p counts paragraphs, k says whether the
	# last one is all trailers (t), has no colon at all (n) or is mixed (m).
	c= l= b= p=0 k=
	while IFS= read -r l; do
		case $l in
		[Hh][Aa][Nn][Dd][Oo][Ff][Ff]-* | '#'*) return 1 ;;
		*[![:space:]]*)
			if [ "$p" = 0 ] || [ -n "$b" ]; then p=$((p + 1)) k=; fi
			b= c=1
			# t only for the canonical "Token: value" git would not rewrite;
			# git also counts "(cherry picked from commit" as a trailer.
			case $l in
			*:*)
				x=m
				case ${l%%:*} in '' | *[!A-Za-z0-9-]*) ;; *)
					case ${l#*:} in ' '[![:space:]]*) x=t ;; esac ;;
				esac ;;
			'(cherry picked from commit '*) x=m ;;
			*) x=n ;;
			esac
			case $k in '') k=$x ;; "$x") ;; *) k=m ;; esac ;;
		*) b=1 ;;
		esac
	done <"$1"
	[ "$c" = 1 ] && [ -z "$l" ] && [ -z "$b" ] || return 1
	# The session: active? which agent? Its record's blob id, read from the
	# loose ref, keys a cache of the answer, so later commits of the same
	# session read no object; a packed ref is read through git each time.
	id=
	[ -f "$cd/$2" ] && read -r id <"$cd/$2"
	case $id in *[!0-9a-f]*) return 1 ;; esac
	if [ -n "$id" ] && [ -f "$d/handoff-hook-cache" ] && read -r cid st a <"$d/handoff-hook-cache" && [ "$cid" = "$id" ]; then
		:
	else
		rec=$(git cat-file blob "${id:-$2}" 2>/dev/null) || return 1
		top=${rec%%'"claimedHandoff":'*}
		case $top in
		*'"status":"active"'*) st=active ;;
		*'"status":"'*) st=other ;;
		*) return 1 ;;
		esac
		a=
		case $top in *'"harness":"'*)
			a=${top#*'"harness":"'}
			a=${a%%'"'*} ;;
		esac
		case $a in *[!A-Za-z0-9._@+-]*) return 1 ;; esac
		[ -z "$id" ] || printf '%s %s %s\n' "$id" "$st" "$a" 2>/dev/null >"$d/handoff-hook-cache"
	fi
	[ "$st" = active ] || return 0
	s1="` + SessionTrailer + `: ${2#refs/ao/sessions/}" s2="` + AgentTrailer + `: $a"
	# As git interpret-trailers --where end would: after a blank line, unless
	# the last paragraph (never the subject's) is a trailer block already.
	case $p$k in
	1? | *n) [ -z "$a" ] && printf '\n%s\n' "$s1" >>"$1" || printf '\n%s\n%s\n' "$s1" "$s2" >>"$1" ;;
	*t) [ -z "$a" ] && printf '%s\n' "$s1" >>"$1" || printf '%s\n%s\n' "$s1" "$s2" >>"$1" ;;
	*)
		f=$1
		set -- --trailer "$s1"
		[ -z "$a" ] || set -- "$@" --trailer "$s2"
		git interpret-trailers --in-place --where end --if-exists doNothing --if-missing add "$@" "$f" 2>/dev/null || return 1 ;;
	esac
}
# leased: a path lease may be held (a ref under refs/ao/leases/path/,
# loose, packed or, in a reftable, listed by git). Then git-handoff runs,
# to warn when the commit touches another session's leased files; with
# none, the commit never pays for it. What packed-refs holds is kept in
# GITDIR/handoff-hook-leased while that is newer than packed-refs, so a
# commit greps it only after it changed.
leased() {
	lc=$d
	if [ -f "$d/commondir" ]; then
		read -r lc <"$d/commondir"
		case $lc in /*) ;; *) lc=$d/$lc ;; esac
	fi
	[ ! -d "$lc/refs/ao/leases/path" ] || return 0
	if [ -f "$lc/packed-refs" ]; then
		lp=$d/handoff-hook-leased la=
		[ "$lp" -nt "$lc/packed-refs" ] && read -r la <"$lp"
		if [ -z "$la" ]; then
			la=0
			grep -qs ' refs/ao/leases/path/' "$lc/packed-refs" && la=1
			printf '%s\n' "$la" 2>/dev/null >"$lp"
		fi
		[ "$la" = 0 ] || return 0
	fi
	[ -d "$lc/reftable" ] && [ -n "$(git for-each-ref --count=1 --format=x refs/ao/leases/path/)" ]
}
if [ -z "$` + SessionEnv + `" ]; then
` + indent(gitDirLines) + `	r=
	if [ -f "$d/refs/worktree/ao/session" ]; then
		[ "$2" = message ] && read -r r <"$d/refs/worktree/ao/session"
	else
		# No file: unbound, unless refs are kept in a reftable, where no
		# ref is a file and git must say.
		c=$d
		if [ -f "$d/commondir" ]; then
			read -r c <"$d/commondir"
			case $c in /*) ;; *) c=$d/$c ;; esac
		fi
		if [ -d "$c/reftable" ]; then
			r=$(git symbolic-ref -q refs/worktree/ao/session 2>/dev/null) || r=
		fi
		# Unbound: only a path lease gives git-handoff anything to say.
		[ -n "$r" ] || leased || exit 0
	fi
	case ${2-}:${r#ref: } in
	message:refs/ao/sessions/*[!A-Za-z0-9._@+-]* | message:refs/ao/sessions/) ;;
	message:refs/ao/sessions/*) leased || { fast "$1" "${r#ref: }" && exit 0; } ;;
	esac
fi
%INVOKE% </dev/null || :
exit 0
`,
	// Only a branch change ($3 = 1) in a repository holding batons, loose or
	// packed (or, in a reftable repository, which keeps refs in no file a
	// shell can test, any that git lists) can have one waiting. The user's hook's status is the
	// checkout's status, as it would be without us.
	PostCheckout: `[ -z "$` + GuardEnv + `" ] && [ "$3" = 1 ] || exit $s
` + gitDirLines + commonDirLines + `[ -d "$d/refs/ao/handoffs" ] ||
	grep -qs ' refs/ao/handoffs/' "$d/packed-refs" ||
	{ [ -d "$d/reftable" ] && [ -n "$(git for-each-ref --count=1 --format=x refs/ao/handoffs/)" ]; } || exit $s
%INVOKE% </dev/null || :
exit $s
`,
	// Only a repository holding records of ours has any to push (reftable:
	// as for post-checkout, git lists them). The user's
	// hook runs first so that a push it rejects carries nothing of ours.
	PrePush: `[ -z "$` + GuardEnv + `" ] || exit 0
` + gitDirLines + commonDirLines + `[ -d "$d/refs/ao/sessions" ] || [ -d "$d/refs/ao/handoffs" ] ||
	[ -d "$d/refs/ao/objectives" ] || [ -d "$d/refs/ao/prs" ] ||
	grep -qsE ' refs/ao/(sessions|handoffs|objectives|prs)/' "$d/packed-refs" ||
	{ [ -d "$d/reftable" ] && [ -n "$(git for-each-ref --count=1 --format=x refs/ao/sessions/ refs/ao/handoffs/ refs/ao/objectives/ refs/ao/prs/)" ]; } || exit 0
%INVOKE% </dev/null || :
exit 0
`,
}

// chainHead opens a hook file's shim: the hook it replaced, if any, runs
// first with the same arguments and stdin, and its exit status decides
// (post-checkout's becomes the shim's). A shim git runs from config has no
// such head: git runs the user's hook file itself, after ours (config.go).
var chainHead = map[string]string{
	PrepareCommitMsg: chainStop,
	PostCheckout: `h="$0` + chainedSuffix + `"
s=0
if [ -x "$h" ]; then "$h" "$@"; s=$?; fi
`,
	PrePush: chainStop,
}

const chainStop = `h="$0` + chainedSuffix + `"
if [ -x "$h" ]; then "$h" "$@" || exit; fi
`

// configHead opens a config shim: nothing to run first, so post-checkout
// exits 0.
var configHead = map[string]string{PostCheckout: "s=0\n"}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("\t" + l)
		}
	}
	return b.String()
}

// Shim returns the text of the shim for hook name in the hooks directory
// (FormFiles). An empty command means git-handoff from PATH, else `git
// handoff`; any other command is inserted verbatim into sh, so a path must
// be quoted by the caller if it needs it (see Options.Command).
func Shim(name, command string) (string, error) {
	return shimText(name, command, FormFiles)
}

// shimText returns the shim for hook name in form: FormFiles, a hook file
// that chains the hook it replaced, or FormConfig, the file the command of
// config hook hook.git-handoff-<name> reads (config.go), which chains
// nothing.
func shimText(name, command string, form Form) (string, error) {
	body, ok := shimBodies[name]
	if !ok {
		return "", fmt.Errorf("unknown hook %q", name)
	}
	if strings.ContainsAny(command, "\n\r") {
		return "", fmt.Errorf("hook command %q spans lines", command)
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "%s%d: installed by \"git handoff hooks install\"; changes are overwritten.\n", shimMarker, ShimVersion)
	if form == FormConfig {
		fmt.Fprintf(&b, "# git runs it as config hook %s (read by its command), before any %s hook file.\n", configName(name), name)
	} else {
		fmt.Fprintf(&b, "# The hook it replaced, if any, is %s%s and runs first.\n", name, chainedSuffix)
	}
	b.WriteString(commandLinePrefix + command + "\n")
	invoke := command + " hook " + name + ` "$@"`
	if command == "" {
		invoke = `if command -v git-handoff >/dev/null 2>&1; then git-handoff hook ` + name +
			` "$@"; else git handoff hook ` + name + ` "$@"; fi`
	}
	if form == FormConfig {
		b.WriteString(configHead[name])
	} else {
		b.WriteString(chainHead[name])
	}
	b.WriteString(strings.ReplaceAll(body, "%INVOKE%", invoke))
	return b.String(), nil
}

// isShim reports whether content is a git-handoff shim of any version.
func isShim(content []byte) bool {
	_, rest, ok := bytes.Cut(content, []byte("\n"))
	return ok && bytes.HasPrefix(rest, []byte(shimMarker))
}

// shimCommand returns the command recorded in a shim; empty is the default.
func shimCommand(content []byte) string {
	for _, line := range strings.Split(string(content), "\n") {
		if c, ok := strings.CutPrefix(line, commandLinePrefix); ok {
			return c
		}
	}
	return ""
}

// isCurrentShim reports whether content is exactly the shim this version
// writes for name in form with the command the shim itself records.
func isCurrentShim(name string, content []byte, form Form) bool {
	want, err := shimText(name, shimCommand(content), form)
	return err == nil && want == string(content)
}
