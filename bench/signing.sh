#!/usr/bin/env bash
# The added cost of signed records: end with signing on against end without
# (one ssh-keygen -Y sign per record written), start verifying a signed baton
# against start reading an unsigned one (one ssh-keygen -Y verify), and start
# with signing on as well (its claim and session are signed too). Ratios are
# against the same command on the same repository shape without signatures;
# ssh-keygen's own sign and verify, run alone, show what the floor is.
#   usage: bench/signing.sh path/to/git-handoff [runs]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:?usage: signing.sh path/to/git-handoff [runs]}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${2:-15}
if ! command -v ssh-keygen >/dev/null; then
	echo "ssh-keygen is not installed: skipped"
	exit 0
fi
bench_tmp
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -sf "$bin" "$tmp/bin/git-handoff"
export PATH="$tmp/bin:$PATH"

ssh-keygen -q -t ed25519 -N "" -C me -f "$tmp/key"
echo "me@example.com $(cat "$tmp/key.pub")" > "$tmp/allowed"
for r in plain signed; do
	git init -q "$tmp/$r"
	git -C "$tmp/$r" commit -q --allow-empty -m init
	git -C "$tmp/$r" config gpg.format ssh
	git -C "$tmp/$r" config gpg.ssh.allowedSignersFile "$tmp/allowed"
done
git -C "$tmp/signed" config user.signingKey "$tmp/key"

end_in() { git -C "$1" handoff end --owner me@example.com --next "go on" >/dev/null; }
start_in() { git -C "$1" "${@:3}" handoff start --owner me@example.com --session "$2" --json >/dev/null; }

declare -A T
for i in $(seq 0 "$runs"); do
	for r in plain signed; do
		e=$(time_ns end_in "$tmp/$r")
		s=$(time_ns start_in "$tmp/$r" "s-$r-$i")
		# verify only: a signed baton, read by a start that signs nothing
		end_in "$tmp/$r"
		v=$(time_ns start_in "$tmp/$r" "v-$r-$i" -c handoff.sign=false)
		[ "$i" = 0 ] && continue # warm-up
		T[end-$r]+="$e "
		T[start-$r]+="$s "
		T[verify-$r]+="$v "
	done
	[ "$i" = 0 ] && continue
	printf 'x' > "$tmp/data"
	T[keygen-sign]+="$(time_ns ssh-keygen -Y sign -n git-handoff -f "$tmp/key" "$tmp/data") "
	T[keygen-verify]+="$(time_ns sh -c "ssh-keygen -Y verify -f '$tmp/allowed' -I me@example.com -n git-handoff -s '$tmp/data.sig' < '$tmp/data'") "
	rm -f "$tmp/data.sig"
done
med() { printf '%s\n' ${T[$1]} | median; }
echo "# signing (median of $runs, ssh ed25519): signed vs unsigned"
for op in end start verify; do
	a=$(med "$op-signed") b=$(med "$op-plain")
	case $op in
	end) what="end (baton signed)            " ;;
	start) what="start (verify + sign claim)   " ;;
	verify) what="start (verify only)           " ;;
	esac
	printf '%s  signed %s  unsigned %s  ratio %s×  (+%s)\n' "$what" "$(ms "$a")" "$(ms "$b")" "$(ratio "$a" "$b")" "$(ms $((${a%.*} - ${b%.*})))"
done
printf 'ssh-keygen -Y sign alone %s, -Y verify alone %s\n' "$(ms "$(med keygen-sign)")" "$(ms "$(med keygen-verify)")"
