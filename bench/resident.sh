#!/usr/bin/env bash
# Issue 36 (buffers resident in the default executor): the FFT image filter's processing
# (batches/fft-filter/filter-steps.bat.xml, buffers already filled, timed with `time --wall`
# inside one carsh) under the default (process) executor, against bench/host_fft.c — the same
# kernels in a hand-written host program with device-resident buffers. Both are measured in
# turn, ROUNDS times, in one run on one device; the ratio default/hand-written is the figure.
# BEFORE=PATH adds a column for another carsh build (the one before residency, say), measured
# in the same rounds.
#
#   bench/resident.sh [--device cpu|gpu] [RUNS [SIZES...]]   (defaults: 5 runs; 128 1024 4096)
#
# $BUILDDIR (default: the source tree) holds carsh/carsh and tests/tools/fftref; $CARSH names
# another carsh. TABLE=FILE keeps the table.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
before=${BEFORE:-}
device=
if [ "${1:-}" = --device ]; then
	device=$2
	shift 2
fi
runs=${1:-5}
shift || true
sizes=${*:-128 1024 4096}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
cc -O2 -o "$work/host_fft" "$top/bench/host_fft.c" ${OPENCL_LIBS:--lOpenCL}
dev_opt=${device:+--device $device}
# The steps, then a dump of the one-int buffer `stage`: its write-back waits for the device
# work the jobs left queued (docs/executors.md), as the hand-written program waits for its
# queue, so that both times end when the work does.
steps="$work/steps.bat.xml"
sed -e "s|file=\"|file=\"$top/batches/fft-filter/|" -e "s|\${BATCH_DIR}|$top/batches/fft-filter|g" \
	-e 's|</CarshBat>|  <Virtbuf op="dump" name="stage" file="/dev/null"/>\n</CarshBat>|' \
	"$top/batches/fft-filter/filter-steps.bat.xml" >"$steps"

. "$top/bench/timing-lib.sh"

# The buffers, filled once, then RUNS+1 timed runs of the steps (the first builds the
# programs and brings the buffers to the device).
steps_script() { # N RUNS
	local n=$1 cnt=$(($1 * $1))
	for b in re im re_next im_next result; do echo "virtbuf create $b float $cnt"; done
	echo "virtbuf create stage int 1"
	echo "virtbuf create stage_next int 1"
	echo "virtbuf fill re $work/pic$n.pgm"
	for ((i = 0; i <= $2; i++)); do echo "time --wall run $steps N=$n CUT=$(($n / 8))"; done
	echo "virtbuf dump result $work/result$n.csv"
}

carsh_steps() { # CARSH N
	steps_script "$2" "$runs" >"$work/steps.csh"
	# shellcheck disable=SC2086
	"$1" $dev_opt "$work/steps.csh" 2>"$work/time.txt" >/dev/null
	awk '/^real/ { if (n++) print $2 }' "$work/time.txt"
}

host_steps() { # N
	"$work/host_fft" "$1" $(($1 / 8)) $((runs + 1)) "$top/kernels/fft.cl" ${device:+$device} |
		awk '/^run/ { if (n++) print $2 }'
}

for n in $sizes; do "$fftref" picture "$n" "$work/pic$n.pgm"; done
echo "carsh: $carsh${before:+; before: $before}; device: ${device:-the default}"
echo "FFT filter processing, buffers filled (ms, median of ${ROUNDS:-3} x $runs runs, each after a warm-up)"
printf '%6s %10s %10s %10s' N hand default def/hand
[ -z "$before" ] || printf ' %10s %10s' before bef/hand
echo
: >"$work/table.txt"
for n in $sizes; do
	: >"$work/h.txt"
	: >"$work/d.txt"
	: >"$work/b.txt"
	for ((r = 0; r < ${ROUNDS:-3}; r++)); do
		host_steps "$n" >>"$work/h.txt"
		carsh_steps "$carsh" "$n" >>"$work/d.txt"
		[ -z "$before" ] || carsh_steps "$before" "$n" >>"$work/b.txt"
	done
	h=$(median <"$work/h.txt")
	d=$(median <"$work/d.txt")
	b=-1
	[ -z "$before" ] || b=$(median <"$work/b.txt")
	awk -v n="$n" -v h="$h" -v d="$d" -v b="$b" 'BEGIN {
		printf "%6d %10.2f %10.2f %10.2f", n, h, d, d / h
		if (b >= 0) printf " %10.2f %10.2f", b, b / h
		printf "\n" }' | tee -a "$work/table.txt"
done
[ -z "${TABLE:-}" ] || cp "$work/table.txt" "$TABLE"
