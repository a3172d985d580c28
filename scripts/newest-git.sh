#!/usr/bin/env bash
# Builds the newest git the way Debian ships it: Debian's own source package
# of unstable (sid), fetched with `apt-get source git`, built without perl,
# python, Tcl/Tk and gettext, and installed into a cache directory outside
# the clone:
#
#   ${GIT_HANDOFF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/git-handoff}/git-<version>
#
# where <version> is sid's version without its epoch (for example
# git-2.51.0-1). It prints that installation's bin directory on stdout and
# nothing else; a second run, while sid still has the same version, builds
# nothing. Progress goes to stderr.
#
# The deb-src entry for sid is derived from the machine's own apt sources
# (the URIs of the entry for this release's codename), written to a private
# apt configuration under the cache directory, with its own package lists:
# the machine's sources and lists are left as they are. Only the -dev
# libraries that are missing are installed, and only when running as root
# (CI); without them git is built without HTTP transport or PCRE2.
#
# Offline, or when sid cannot be reached, the newest git already built here
# is used with a warning.
set -euo pipefail

cache=${GIT_HANDOFF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/git-handoff}
aptdir=$cache/apt-sid
log() { printf 'newest-git: %s\n' "$*" >&2; }

mkdir -p "$cache"
exec 9>"$cache/newest-git.lock"
flock 9

# --- the deb-src entry for sid, from the machine's apt sources ----------
. /etc/os-release
codename=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
uri=
signed_by=
# deb822 .sources files: the stanza whose Suites name this release.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	read -r uri signed_by < <(awk -v want="$codename" '
		function flush() {
			if (isdeb && hassuite && u != "" && found == "") found = u " " sb
			isdeb = 0; hassuite = 0; u = ""; sb = ""
		}
		/^[[:space:]]*$/ { flush(); next }
		/^#/ { next }
		tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") isdeb = 1 }
		tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == want) hassuite = 1 }
		tolower($1) == "uris:" { u = $2 }
		tolower($1) == "signed-by:" { sb = $2 }
		END { flush(); if (found != "") print found }
	' "$f") || true
	[ -n "$uri" ] && break
done
# One-line format: "deb [options] URI codename components".
if [ -z "$uri" ]; then
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		uri=$(awk -v want="$codename" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) == want) { print $i; exit }
			}' "$f")
		[ -n "$uri" ] && break
	done
fi
if [ -z "$uri" ]; then
	log "no apt source for $codename found under /etc/apt; cannot derive sid's"
	exit 1
fi
signed_by=${signed_by:-/usr/share/keyrings/debian-archive-keyring.gpg}

mkdir -p "$aptdir/sources.list.d" "$aptdir/lists/partial" "$aptdir/archives/partial"
cat >"$aptdir/sources.list.d/sid-src.sources" <<EOF
Types: deb-src
URIs: $uri
Suites: sid
Components: main
Signed-By: $signed_by
EOF
apt_opts=(
	-o Dir::Etc::SourceList=/dev/null
	-o Dir::Etc::SourceParts="$aptdir/sources.list.d"
	-o Dir::State::Lists="$aptdir/lists"
	-o Dir::Cache::Archives="$aptdir/archives"
	-o Dir::Cache::pkgcache=
	-o Dir::Cache::srcpkgcache=
	# The cache lives in the user's home, which apt's _apt user may not
	# be able to enter.
	-o APT::Sandbox::User="$(id -un)"
)

newest_built() {
	local d
	d=$(ls -d "$cache"/git-*/ 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && [ -x "${d}bin/git" ] && echo "${d%/}"
}

version=
if apt-get "${apt_opts[@]}" -qq update >&2 2>&1; then
	version=$(apt-cache "${apt_opts[@]}" showsrc git 2>/dev/null |
		awk '/^Package: /{p=$2} p=="git" && /^Version: /{print $2}' | sort -V | tail -n 1)
fi
if [ -z "$version" ]; then
	if d=$(newest_built); then
		log "warning: sid unreachable; using the git already built in $d"
		echo "$d/bin"
		exit 0
	fi
	log "cannot read git's version in sid from $uri"
	exit 1
fi
upstream=${version#*:}
dest=$cache/git-$upstream
if [ -x "$dest/bin/git" ]; then
	log "git $upstream from sid: already built in $dest"
	echo "$dest/bin"
	exit 0
fi

# --- build -----------------------------------------------------------------
if [ "$(id -u)" = 0 ]; then
	need=
	command -v cc >/dev/null 2>&1 || need="$need gcc libc6-dev"
	command -v make >/dev/null 2>&1 || need="$need make"
	command -v dpkg-source >/dev/null 2>&1 || need="$need dpkg-dev"
	command -v curl-config >/dev/null 2>&1 || need="$need libcurl4-openssl-dev"
	[ -f /usr/include/zlib.h ] || need="$need zlib1g-dev"
	[ -f /usr/include/expat.h ] || need="$need libexpat1-dev"
	command -v pcre2-config >/dev/null 2>&1 || need="$need libpcre2-dev"
	if [ -n "$need" ]; then
		log "installing$need"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
	fi
fi
flags=(NO_PERL=1 NO_PYTHON=1 NO_TCLTK=1 NO_GETTEXT=1)
command -v curl-config >/dev/null 2>&1 || { flags+=(NO_CURL=1); log "no libcurl headers: building without HTTP transport"; }
[ -f /usr/include/expat.h ] || flags+=(NO_EXPAT=1)
command -v pcre2-config >/dev/null 2>&1 && flags+=(USE_LIBPCRE2=1)

work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "fetching Debian's source package git $version from sid"
(cd "$work" && apt-get "${apt_opts[@]}" -qq source "git=$version") >&2
src=$(ls -d "$work"/git-*/ | head -n 1)
jobs=${NEWEST_GIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
log "building git $upstream (make -j$jobs ${flags[*]})"
start=$(date +%s)
nice make -C "$src" -j"$jobs" prefix="$dest" "${flags[@]}" all >"$work/build.log" 2>&1 ||
	{ tail -n 40 "$work/build.log" >&2; exit 1; }
nice make -C "$src" prefix="$dest" "${flags[@]}" DESTDIR="$work/root" install >>"$work/build.log" 2>&1 ||
	{ tail -n 40 "$work/build.log" >&2; exit 1; }
# Built for $dest, staged under DESTDIR: the move makes it appear whole.
mv "$work/root$dest" "$dest"
log "git $upstream built in $(($(date +%s) - start))s: $("$dest/bin/git" --version)"
echo "$dest/bin"
