#!/usr/bin/env bash
# scripts/dist-check.sh (make dist-check): `make dist` run for real and its
# files checked. This tree as it is (tracked files and new ones git does
# not ignore, changes included) is committed in a scratch repository and
# tagged v1.2.3; make dist runs there and in a clone of it at another
# path, and then:
#   - with no tag the version is v0.0.0-<commits>-g<commit>, with the tag
#     v1.2.3, and a version that is not vX.Y.Z is refused;
#   - each archive holds exactly the binary, man page, completions, README
#     and LICENSE, owned by 0/0 and dated the commit's time; the binary of
#     this machine's platform prints "git handoff version v1.2.3";
#   - dpkg-deb -c and rpm -qlp list each file where Debian and Fedora look,
#     and the packages' versions and architectures are right;
#   - the .deb's man page is the archive's, gzipped; its bash and fish
#     completions complete `git handoff` from where the package puts them
#     (git's own bash completion loading ours, fish reading vendor_conf.d);
#   - sha256sum -c SHA256SUMS verifies, and the sums name every file;
#   - the Homebrew formula names each archive's release URL and its sum;
#   - the two builds are the same bytes, file for file.
# Needs git, make, GNU tar, gzip, sha256sum, dpkg-deb, rpm, bash with
# bash-completion and git's completion, and fish: a missing tool fails the
# check (.ci/run installs them). The whole check has a deadline of
# DIST_CHECK_TIMEOUT (default 20m: a first run compiles four platforms).
set -euo pipefail
if [ -z "${DIST_CHECK_DEADLINE:-}" ]; then
	DIST_CHECK_DEADLINE=1 exec timeout --kill-after=10s "${DIST_CHECK_TIMEOUT:-20m}" "$0" "$@"
fi
cd "$(dirname "$0")/.."
root=$PWD
go=${GO:-go}

missing=
for tool in git make tar gzip zcat sha256sum dpkg-deb rpm bash fish; do
	command -v "$tool" >/dev/null || missing="$missing $tool"
done
for f in /usr/share/bash-completion/bash_completion /usr/share/bash-completion/completions/git; do
	[ -f "$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	echo "dist-check: missing:$missing (Debian: apt-get install -y git make dpkg rpm bash-completion fish)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() {
	passed=$((passed + 1))
	echo "ok   $*"
}
fail() {
	failed=$((failed + 1))
	echo "FAIL $*"
}
# same WHAT GOT WANT: one check that two strings are equal.
same() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1"
		diff <(printf '%s\n' "$3") <(printf '%s\n' "$2") | sed 's/^/     /' || true
	fi
}

# The scratch repository: this tree's files as they are now, one commit
# at a fixed time by a fixed author, so that its commit time (the files'
# time in every archive) is known here.
epoch=1767225600 # 2026-01-01T00:00:00Z
a=$tmp/a
mkdir -p "$a"
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
	done | tar --null -T - -cf - | tar -C "$a" -xf -
export GIT_AUTHOR_NAME=dist-check GIT_AUTHOR_EMAIL=dist-check@example.invalid
export GIT_COMMITTER_NAME=dist-check GIT_COMMITTER_EMAIL=dist-check@example.invalid
export GIT_AUTHOR_DATE="@$epoch +0000" GIT_COMMITTER_DATE="@$epoch +0000"
git -C "$a" init -q
git -C "$a" add -A
git -C "$a" -c commit.gpgsign=false -c core.hooksPath=/dev/null commit -q -m "dist-check"
unset SOURCE_DATE_EPOCH VERSION DIST_DIR DIST_RELEASE_URL

# --- the version ------------------------------------------------------
got=$("$a/scripts/dist.sh" version)
if [[ $got =~ ^v0\.0\.0-1-g[0-9a-f]{12}$ ]]; then pass "version without a tag: $got"; else fail "version without a tag: $got, want v0.0.0-1-g<12 hex>"; fi
if out=$(cd "$a" && VERSION=1.2 scripts/dist.sh version 2>&1); then
	fail "VERSION=1.2 accepted: $out"
elif [[ $out == *"not vMAJOR.MINOR.PATCH"* ]]; then
	pass "VERSION=1.2 refused: $out"
else
	fail "VERSION=1.2 refused without saying why: $out"
fi
git -C "$a" tag v1.2.3
same "version at the tag" "$("$a/scripts/dist.sh" version)" v1.2.3

# --- two builds ---------------------------------------------------------
git clone -q "$a" "$tmp/b-elsewhere"
start=$SECONDS
make -s -C "$a" dist >"$tmp/a.log" 2>&1 || { cat "$tmp/a.log"; fail "make dist"; echo "$passed passed, $failed failed"; exit 1; }
echo "     make dist: $((SECONDS - start)) s"
start=$SECONDS
DIST_DIR="$tmp/b-dist" make -s -C "$tmp/b-elsewhere" dist >"$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; fail "make dist, second build"; echo "$passed passed, $failed failed"; exit 1; }
echo "     make dist again, in a clone elsewhere: $((SECONDS - start)) s"
dist=$a/dist

# --- what make dist made --------------------------------------------------
v=1.2.3
archives=
for p in darwin_amd64 darwin_arm64 linux_amd64 linux_arm64; do
	archives="$archives git-handoff_${v}_$p.tar.gz"
done
want_files=$(printf '%s\n' $archives git-handoff_${v}_amd64.deb git-handoff_${v}_arm64.deb \
	git-handoff-$v-1.x86_64.rpm git-handoff-$v-1.aarch64.rpm SHA256SUMS git-handoff.rb | LC_ALL=C sort)
same "dist/ holds the archives, packages, sums and formula" "$(ls "$dist" | LC_ALL=C sort)" "$want_files"

# --- archives -----------------------------------------------------------
stamp=$(TZ=UTC date -d "@$epoch" '+%Y-%m-%d %H:%M:%S')
for f in $archives; do
	d=${f%.tar.gz}
	listing=$(TZ=UTC tar --numeric-owner --full-time -tvzf "$dist/$f")
	same "$f: entries" "$(awk '{ print $1, $6 }' <<<"$listing")" "drwxr-xr-x $d/
-rw-r--r-- $d/LICENSE
-rw-r--r-- $d/README.md
drwxr-xr-x $d/completions/
-rw-r--r-- $d/completions/_git-handoff
-rw-r--r-- $d/completions/git-handoff.bash
-rw-r--r-- $d/completions/git-handoff.fish
-rwxr-xr-x $d/git-handoff
-rw-r--r-- $d/git-handoff.1"
	same "$f: owner 0/0 and the commit's time" "$(awk '{ print $2, $4, $5 }' <<<"$listing" | sort -u)" "0/0 $stamp"
done
host="$("$go" env GOHOSTOS)_$("$go" env GOHOSTARCH)"
mkdir -p "$tmp/x"
if tar -C "$tmp/x" -xzf "$dist/git-handoff_${v}_$host.tar.gz"; then
	x=$tmp/x/git-handoff_${v}_$host
	same "the $host archive's binary: --version" "$("$x/git-handoff" --version 2>&1)" "git handoff version v1.2.3"
	same "its man page names the version" "$(grep '^\.TH' "$x/git-handoff.1")" '.TH GIT\-HANDOFF 1 "" "git\-handoff v1.2.3" "Git Manual"'
	same "its LICENSE is the repository's" "$(cat "$x/LICENSE")" "$(cat "$root/LICENSE")"
else
	fail "no archive for this machine ($host) among the release's platforms"
	x=
fi

# --- packages -------------------------------------------------------------
for arch in amd64 arm64; do
	deb=$dist/git-handoff_${v}_$arch.deb
	same "$(basename "$deb"): dpkg-deb -c" "$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $1, $2, $6 }')" \
		"-rwxr-xr-x root/root ./usr/bin/git-handoff
-rw-r--r-- root/root ./usr/share/bash-completion/completions/git-handoff
-rw-r--r-- root/root ./usr/share/doc/git-handoff/README.md
-rw-r--r-- root/root ./usr/share/doc/git-handoff/copyright
-rw-r--r-- root/root ./usr/share/fish/vendor_conf.d/git-handoff.fish
-rw-r--r-- root/root ./usr/share/man/man1/git-handoff.1.gz
-rw-r--r-- root/root ./usr/share/zsh/vendor-completions/_git-handoff"
	same "$(basename "$deb"): version and architecture" "$(dpkg-deb -f "$deb" Package Version Architecture Depends)" \
		"Package: git-handoff
Version: $v
Architecture: $arch
Depends: git"
done
for arch in x86_64 aarch64; do
	rpmf=$dist/git-handoff-$v-1.$arch.rpm
	same "$(basename "$rpmf"): rpm -qlp" "$(rpm -qlp "$rpmf" 2>/dev/null)" \
		"/usr/bin/git-handoff
/usr/share/bash-completion/completions/git-handoff
/usr/share/doc/git-handoff/README.md
/usr/share/fish/vendor_conf.d/git-handoff.fish
/usr/share/licenses/git-handoff/LICENSE
/usr/share/man/man1/git-handoff.1.gz
/usr/share/zsh/site-functions/_git-handoff"
	same "$(basename "$rpmf"): version and architecture" "$(rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE} %{ARCH}\n' "$rpmf" 2>/dev/null)" "git-handoff $v 1 $arch"
done

# The host's .deb unpacked as if installed at $r, and used from there.
r=$tmp/root
deb_arch=$("$go" env GOHOSTARCH)
dpkg-deb -x "$dist/git-handoff_${v}_$deb_arch.deb" "$r"
same "the .deb's binary: --version" "$("$r/usr/bin/git-handoff" --version 2>&1)" "git handoff version v1.2.3"
if [ -n "$x" ]; then
	if zcat "$r/usr/share/man/man1/git-handoff.1.gz" | cmp -s - "$x/git-handoff.1"; then
		pass "the .deb's man page is the archive's, gzipped"
	else
		fail "the .deb's man page differs from the archive's"
	fi
fi
# bash: nothing of ours sourced by hand. git's completion, meeting
# `git handoff`, asks bash-completion's loader for git-handoff, which
# looks in XDG_DATA_DIRS' bash-completion/completions.
home=$tmp/home
mkdir -p "$home"
bash_prog='source /usr/share/bash-completion/bash_completion; _completion_loader git
COMP_WORDS=(git handoff sess); COMP_CWORD=2; COMP_LINE="git handoff sess"; COMP_POINT=${#COMP_LINE}
__git_wrap__git_main git sess handoff
printf "%s\n" "${COMPREPLY[@]}"'
got=$(HOME=$home XDG_DATA_HOME=$home/.local/share XDG_DATA_DIRS=$r/usr/share:/usr/share PATH=$r/usr/bin:$PATH \
	timeout 60 bash --norc --noprofile -c "$bash_prog" 2>&1 | sed 's/ *$//')
same "bash: git handoff sess<TAB>, completion loaded from the .deb's place" "$got" "session"
# fish: the script in vendor_conf.d is read at start (HOME and XDG
# directories of its own: no user configuration).
got=$(HOME=$home XDG_CONFIG_HOME=$home/.config XDG_DATA_HOME=$home/.local/share XDG_DATA_DIRS=$r/usr/share:/usr/share \
	PATH=$r/usr/bin:$PATH timeout 60 fish -c 'complete -C "git handoff undis"' 2>&1 | cut -f1)
same "fish: git handoff undis<TAB>, from the .deb's vendor_conf.d" "$got" "undismiss"

# --- sums and formula ---------------------------------------------------------
if out=$(cd "$dist" && sha256sum --strict -c SHA256SUMS 2>&1); then pass "sha256sum -c SHA256SUMS"; else fail "sha256sum -c SHA256SUMS: $out"; fi
same "SHA256SUMS names every archive and package" "$(awk '{ print $2 }' "$dist/SHA256SUMS")" "$(grep -v -e SHA256SUMS -e '\.rb$' <<<"$want_files")"
# Each url line with the sha256 line after it, as "file sum".
pairs=$(awk -v base="https://github.com/git-handoff/git-handoff/releases/download/v1.2.3/" '
	$1 == "url" { gsub(/"/, "", $2); url = $2; if (index(url, base) != 1) print "bad url " url; next }
	$1 == "sha256" && url != "" { gsub(/"/, "", $2); n = split(url, parts, "/"); print parts[n], $2; url = "" }
' "$dist/git-handoff.rb" | LC_ALL=C sort)
same "formula: each platform's release URL with the sum from SHA256SUMS" "$pairs" "$(grep '\.tar\.gz$' "$dist/SHA256SUMS" | awk '{ print $2, $1 }')"
if grep -q 'assert_equal "git handoff version v1.2.3\\n"' "$dist/git-handoff.rb" && grep -q '^  version "1.2.3"$' "$dist/git-handoff.rb"; then
	pass "formula: version 1.2.3, and its test expects the tag"
else
	fail "formula: no version 1.2.3 or no test of --version"
fi

# --- reproducible ---------------------------------------------------------
differ=
for f in $want_files; do
	cmp -s "$dist/$f" "$tmp/b-dist/$f" || differ="$differ $f"
done
if [ -z "$differ" ]; then
	pass "two builds, at two paths: the same bytes ($(echo $want_files | wc -w) files)"
else
	fail "two builds differ:$differ"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
