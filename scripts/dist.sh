#!/usr/bin/env bash
# scripts/dist.sh: the release files of this checkout, in DIST_DIR (default
# dist/; a relative one is taken from the repository's top), as
# `make dist` makes them:
#   git-handoff_<v>_<os>_<arch>.tar.gz  linux and darwin, amd64 and arm64:
#       the binary, git-handoff.1, completions/ (bash, zsh, fish), README.md
#       and LICENSE, under one directory of the archive's name
#   git-handoff_<v>_<arch>.deb, git-handoff-<v>-1.<arch>.rpm  (linux, nfpm)
#   SHA256SUMS     sha256sum's lines for the archives and packages
#   git-handoff.rb the Homebrew formula of the tag, from those sums
# <v> is the version without its v. The version is VERSION if set, else
# `git describe --tags` of a v* tag (a commit past the tag gives
# v1.2.3-4-g<commit>; a tree with changes adds -dirty); with no tag at all
# v0.0.0-<commits>-g<commit>.
#
# Reproducible: one commit gives the same bytes on any machine with the
# same Go release (dist prints which it used), so that anyone can check a
# release against its tag. Hence -trimpath (no build directory in the binary),
# -buildvcs=false (no checkout state; the version is passed with -X
# instead), a fixed environment for the compiler, every file's time the
# commit's (SOURCE_DATE_EPOCH), archives with sorted entries owned by 0/0,
# and gzip without a name or time. Offline: Go modules come from the
# module cache once it has them (nfpm's through packaging/tools/go.sum).
#
# `scripts/dist.sh version` prints the version and does nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
go=${GO:-go}
out=${DIST_DIR:-$root/dist}
platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"
# Where the Homebrew formula downloads the archives from: the GitHub
# release of the tag.
release_url=${DIST_RELEASE_URL:-https://github.com/git-handoff/git-handoff/releases/download}

die() {
	echo "dist: $*" >&2
	exit 1
}

dist_version() {
	if [ -n "${VERSION:-}" ]; then
		echo "$VERSION"
		return
	fi
	git rev-parse --git-dir >/dev/null 2>&1 ||
		die "not a git checkout, so no tag to take the version from: give VERSION=vX.Y.Z"
	if git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null; then
		return
	fi
	local dirty=
	git diff --quiet HEAD -- || dirty=-dirty
	echo "v0.0.0-$(git rev-list --count HEAD)-g$(git rev-parse --short=12 HEAD)$dirty"
}

version=$(dist_version)
# A version is a semantic one with its v: the packages' versions are made
# from it, and a space or slash would break the file names.
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
	die "version $version is not vMAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]"
if [ "${1:-}" = version ]; then
	echo "$version"
	exit 0
fi
[ $# = 0 ] || die "usage: scripts/dist.sh [version]"
v=${version#v}
# The packages' version: dots for the hyphens after the first, which deb
# would read as a Debian revision and rpm refuses (v1.2.3-4-gabc: 1.2.3,
# prerelease 4.gabc).
pkgversion=${v%%-*}
[ "$pkgversion" = "$v" ] || pkgversion="$pkgversion-$(echo "${v#*-}" | tr - .)"

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD 2>/dev/null) ||
		die "no commit to take the files' time from: set SOURCE_DATE_EPOCH"
fi
export SOURCE_DATE_EPOCH

# GNU tar, for --sort and --mtime (macOS: brew install gnu-tar, which
# gives gtar).
tar=tar
tar --version 2>/dev/null | grep -q 'GNU tar' || tar=gtar
"$tar" --version 2>/dev/null | grep -q 'GNU tar' || die "GNU tar needed, as tar or gtar, for archives that are the same bytes every time"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The files of an earlier make dist go, and nothing else: DIST_DIR may be
# a directory of other things too.
mkdir -p "$out"
out=$(cd "$out" && pwd) # nfpm runs elsewhere
rm -f "$out"/git-handoff_*.tar.gz "$out"/git-handoff_*.deb "$out"/git-handoff-*.rpm "$out/SHA256SUMS" "$out/git-handoff.rb"

# The compiler's environment, whatever the caller's: GOFLAGS, GOAMD64,
# GOARM64 or GOEXPERIMENT set by a developer would change the bytes. The
# tags are the Makefile's (GOTAGS there says why).
build() { # build GOOS GOARCH OUTPUT
	env -u GOFLAGS CGO_ENABLED=0 GOOS="$1" GOARCH="$2" GOAMD64=v1 GOARM64=v8.0 GOEXPERIMENT= \
		"$go" build -tags urfave_cli_no_docs -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$version" \
		-o "$3" ./cmd/git-handoff
}

echo "dist: $version, files dated @$SOURCE_DATE_EPOCH, $("$go" env GOVERSION)"
for platform in $platforms; do
	echo "dist: building for $platform"
	build "${platform%/*}" "${platform#*/}" "$work/bin/$platform/git-handoff"
done
# The man page and completions come from the binary of this machine's
# platform, the same for every platform (the command tree does not vary).
host=$("$go" env GOHOSTOS)/$("$go" env GOHOSTARCH)
[ -x "$work/bin/$host/git-handoff" ] || build "${host%/*}" "${host#*/}" "$work/bin/$host/git-handoff"
common=$work/common
mkdir -p "$common/completions"
"$work/bin/$host/git-handoff" man >"$common/git-handoff.1"
"$work/bin/$host/git-handoff" completion bash >"$common/completions/git-handoff.bash"
"$work/bin/$host/git-handoff" completion zsh >"$common/completions/_git-handoff"
"$work/bin/$host/git-handoff" completion fish >"$common/completions/git-handoff.fish"
cp README.md LICENSE "$common/"

# nfpm, of the version packaging/tools/go.mod pins: `go tool -n` builds it
# (once; go keeps it in its cache) and prints where it is.
nfpm=$(env -u GOFLAGS -u GOOS -u GOARCH "$go" tool -C packaging/tools -n nfpm)

# gzip's default level: -9 took three times as long here for 0.2% less.
archive() { # archive DIR: DIR.tar.gz beside it, the same bytes every time
	"$tar" -C "$(dirname "$1")" --sort=name --format=gnu --mtime="@$SOURCE_DATE_EPOCH" \
		--owner=0 --group=0 --numeric-owner --mode=u=rwX,go=rX \
		-cf - "$(basename "$1")" | gzip -n >"$1.tar.gz"
}

for platform in $platforms; do
	os=${platform%/*} arch=${platform#*/}
	name=git-handoff_${v}_${os}_${arch}
	stage=$work/$name
	cp -R "$common" "$stage"
	cp "$work/bin/$platform/git-handoff" "$stage/"
	archive "$stage"
	mv "$stage.tar.gz" "$out/"
	if [ "$os" = linux ]; then
		# packaging/nfpm.yaml names its sources relative to the stage.
		gzip -n -9 <"$stage/git-handoff.1" >"$stage/git-handoff.1.gz"
		for packager in deb rpm; do
			(cd "$stage" && DIST_ARCH=$arch DIST_VERSION=$pkgversion \
				"$nfpm" package --config "$root/packaging/nfpm.yaml" --packager $packager --target "$out/") >/dev/null
		done
	fi
done

(cd "$out" && sha256sum -- git-handoff_*.tar.gz git-handoff_*.deb git-handoff-*.rpm | LC_ALL=C sort -k2 >SHA256SUMS)

# The formula: each platform's archive URL and sum into the template.
formula=$(cat packaging/homebrew/git-handoff.rb.in)
formula=${formula//@VERSION@/$v}
formula=${formula//@TAG@/$version}
for platform in $platforms; do
	os=${platform%/*} arch=${platform#*/}
	file=git-handoff_${v}_${os}_${arch}.tar.gz
	sum=$(awk -v f="$file" '$2 == f { print $1 }' "$out/SHA256SUMS")
	key=$(echo "${os}_$arch" | tr a-z A-Z)
	formula=${formula//@URL_$key@/$release_url/$version/$file}
	formula=${formula//@SHA256_$key@/$sum}
done
[[ $formula != *@*@* ]] || die "packaging/homebrew/git-handoff.rb.in: a placeholder left: $(grep -o '@[A-Z0-9_]*@' <<<"$formula" | head -1)"
printf '%s\n' "$formula" >"$out/git-handoff.rb"

echo "dist: $(cd "$out" && ls | tr '\n' ' ')"
