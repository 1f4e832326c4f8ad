#!/usr/bin/env bash
# Issue 37's data figures for two carsh builds in one run, their runs interleaved (each build
# first in every other run) so that a
# shared machine's load falls on both alike (medians of RUNS):
#
#   pgm fill / pgm dump   a 4096x4096 P5 picture into 16,777,216 floats and back
#   npy fill              64 MiB of floats from a .npy file
#   value                 virtbuf fill --value 0 of 64 MiB
#   csv fill              4,194,304 floats as CSV (awk's %.9g), and 10,000,000 integers (seq)
#   scale                 10,000,000 integers through flowmodels/scale.xml (x=- y=-), whole call
#   flagship              batches/fft-filter at N (default 2048), PGM in and out, default
#                         executor, each build on its own warm server, whole call
#
# The in-session figures are the builtin `time`'s wall times; the whole calls include the
# process start. Both builds' outputs are compared (scale against awk's).
#
#   bench/data-ab.sh OLD_CARSH NEW_CARSH [RUNS] [N]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
old=$1 new=$2 runs=${3:-5} n=${4:-2048}
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache"
unset CARSH_SERVER
trap 'for b in old new; do CARSH_SERVER_DIR="$work/srv-$b" "${!b}" server stop >/dev/null 2>&1 || true; done; rm -rf "$work"' EXIT
. "$top/bench/timing-lib.sh"
cd "$work"

seq 1 10000000 >seq.csv
awk 'BEGIN { srand(1); for (i = 0; i < 4194304; i++) printf "%.9g\n", rand() * 2000 - 1000 }' >f4m.csv
{ printf 'P5\n4096 4096\n255\n'; head -c 16777216 /dev/urandom; } >pic.pgm
{ printf 'P5\n%d %d\n255\n' "$n" "$n"; head -c $((n * n)) /dev/urandom; } >flag.pgm
{
	printf '\223NUMPY\001\000\166\000'
	printf "%-117s\n" "{'descr': '<f4', 'fortran_order': False, 'shape': (16777216,), }"
	head -c 67108864 /dev/zero
} >big.npy
awk '{ print $1 * 2 }' seq.csv >awk.csv
flag=("$top/batches/fft-filter/fft-filter.bat.xml" "N=$n" IMAGE=flag.pgm)

session() { # BUILD: one session's figures appended to BUILD.FIGURE
	"${!1}" -c "virtbuf create p float 16777216; virtbuf create v float 16777216
virtbuf create f float 4194304; virtbuf create s float 10000000
time virtbuf fill p pic.pgm; time virtbuf dump p out-$1.pgm --columns 4096
time virtbuf fill v big.npy; time virtbuf fill v --value 0
time virtbuf fill f f4m.csv; time virtbuf fill s seq.csv
virtbuf delete p v f s" 2>&1 | awk '$1 == "real" { print $2 }' >times
	local i=0
	for fig in pgmfill pgmdump npyfill value csvfill seqfill; do
		i=$((i + 1))
		sed -n "${i}p" times >>"$1.$fig"
	done
}

for b in old new; do # warm each server and cache
	CARSH_SERVER_DIR="$work/srv-$b" "${!b}" "${flag[@]}" OUT="flag-$b.pgm" >/dev/null
done
# The build measured first changes from run to run: on the H200 the one measured second in a
# round read faster, whichever it was (the page allocator's state after the other's session),
# so a fixed order would measure the order.
for r in $(seq "$runs"); do
	order="old new"
	[ $((r % 2)) = 1 ] || order="new old"
	for b in $order; do
		session "$b"
		timed "$b.scale" sh -c "CARSH_SERVER_DIR='$work/srv-$b' '${!b}' run '$top/flowmodels/scale.xml' x=- y=- N=10000000 <seq.csv >scale-$b.csv"
		cmp -s "scale-$b.csv" awk.csv || echo "data-ab.sh: $b: scale output differs from awk's" >&2
		timed "$b.flag" env CARSH_SERVER_DIR="$work/srv-$b" "${!b}" "${flag[@]}" OUT="flag-$b.pgm"
	done
	timed awk.scale sh -c "awk '{ print \$1 * 2 }' seq.csv >awk2.csv"
done
cmp -s out-old.pgm out-new.pgm || echo "data-ab.sh: the PGM dumps differ" >&2
cmp -s flag-old.pgm flag-new.pgm || echo "data-ab.sh: the flagship outputs differ" >&2

m() { median <"$1"; }
printf '%-26s %12s %12s %8s\n' figure old new new/old
for fig in pgmfill pgmdump npyfill value csvfill seqfill scale flag; do
	printf '%-26s %9s ms %9s ms %8s\n' "$fig" "$(m old.$fig)" "$(m new.$fig)" \
		"$(awk -v a="$(m old.$fig)" -v b="$(m new.$fig)" 'BEGIN { printf "%.2f", b / a }')"
done
printf '%-26s %9s ms\n' "awk (scale's reference)" "$(m awk.scale)"
