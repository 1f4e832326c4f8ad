#!/usr/bin/env bash
# Issue "Thread executor": the FFT image filter's processing (batches/fft-filter/
# filter-steps.bat.xml, buffers already filled) under the thread executor and the process
# executor, against bench/host_fft.c — the same kernels in a hand-written host program with
# one context, device-resident buffers and no per-step transfers. The three are measured
# alternately, in one run, on one device; then the whole flagship example end to end
# (carsh batches/fft-filter/fft-filter.bat.xml, process start to exit) against the 1.66 s
# of 004 Table 3 for 128².
#
#   bench/threads.sh [--device cpu|gpu] [RUNS [SIZES...]]   (defaults: 7 runs; 128 256 512 1024)
#
# The hand-written program and the thread executor run ROUNDS times (default 3) in turn, RUNS
# runs each time, and the medians are of all their runs; the process executor runs once.
#
# PROCESS=no leaves the process executor out (on the GPU machine it takes ~15 s a run);
# TABLE=FILE keeps the table (N jobs hand thread th/hand process pr/hand overhead);
#   bench/threads.sh --plot TABLE PNG "TITLE"   draws a kept table (where gnuplot is).
#
# $BUILDDIR (default: the source tree) holds carsh/carsh and tests/tools/fftref; $PLOT names
# a PNG to draw with gnuplot (default docs/img/threads-<device>.png when gnuplot exists).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

draw() { # TABLE PNG TITLE
	gnuplot <<GP
set terminal pngcairo size 800,500 noenhanced
set output "$2"
set title "FFT filter, buffers filled, on $3"
set xlabel "N (image N x N)"
set ylabel "ms per run (log)"
set logscale xy
set xrange [100:1300]
set xtics ("128" 128, "256" 256, "512" 512, "1024" 1024)
set key top left
set grid
set datafile missing "-"
plot "$1" using 1:3 with linespoints title "hand-written (bench/host_fft.c)", \\
     "" using 1:4 with linespoints title "carsh -T (thread executor)", \\
     "" using 1:6 with linespoints title "carsh (process executor)"
GP
}
if [ "${1:-}" = --plot ]; then
	draw "$2" "$3" "$4"
	exit
fi
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
device=
if [ "${1:-}" = --device ]; then
	device=$2
	shift 2
fi
runs=${1:-7}
shift || true
sizes=${*:-128 256 512 1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
cc -O2 -o "$work/host_fft" "$top/bench/host_fft.c" ${OPENCL_LIBS:--lOpenCL}
dev_opt=${device:+--device $device}
steps="$top/batches/fft-filter/filter-steps.bat.xml"

. "$top/bench/timing-lib.sh"

# A carsh script: the buffers, filled once, then RUNS+1 timed runs of the steps. `time --wall`
# takes no profiling events, so the jobs run as they do untimed (the hand-written program
# takes none either).
steps_script() { # N RUNS
	local n=$1 cnt=$(($1 * $1))
	for b in re im re_next im_next result; do echo "virtbuf create $b float $cnt"; done
	echo "virtbuf create stage int 1"
	echo "virtbuf create stage_next int 1"
	echo "virtbuf fill re $work/pic$n.pgm"
	for ((i = 0; i <= $2; i++)); do echo "time --wall run $steps N=$n CUT=$(($n / 8))"; done
}

# The "real" of the timed runs after the first (which builds the programs), one per line.
carsh_steps() { # MODE-OPTION N
	steps_script "$2" "$runs" >"$work/steps.csh"
	# shellcheck disable=SC2086
	"$carsh" $1 $dev_opt "$work/steps.csh" 2>"$work/time.txt" >/dev/null
	awk '/^real/ { if (n++) print $2 }' "$work/time.txt"
}

jobs_of() { awk '/^jobs/ { print $2; exit }' "$work/time.txt"; }

host_steps() { # N
	"$work/host_fft" "$1" $(($1 / 8)) $((runs + 1)) "$top/kernels/fft.cl" ${device:+$device} |
		awk '/^run/ { if (n++) print $2 }'
}

# ROUNDS rounds of RUNS runs of each, one after the other, so that a slow spell of the
# machine falls on all of them alike; the medians of all the runs.
measure() { # N
	local r
	: >"$work/h.txt"
	: >"$work/t.txt"
	: >"$work/p.txt"
	for ((r = 0; r < ${ROUNDS:-3}; r++)); do
		host_steps "$1" >>"$work/h.txt"
		carsh_steps -T "$1" >>"$work/t.txt"
		[ "${PROCESS:-yes}" = no ] || [ "$r" -gt 0 ] || carsh_steps "" "$1" >>"$work/p.txt"
	done
}

# The flagship example from process start to exit, median of RUNS.
end_to_end() { # MODE-OPTION N
	local t0 i
	: >"$work/e2e.txt"
	for ((i = 0; i < runs; i++)); do
		t0=$(now_ms)
		# shellcheck disable=SC2086
		"$carsh" $1 $dev_opt "$top/batches/fft-filter/fft-filter.bat.xml" N="$2" \
			IMAGE="$work/pic$2.pgm" OUT="$work/out.pgm" >/dev/null
		awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { print b - a }' >>"$work/e2e.txt"
	done
	median <"$work/e2e.txt"
}

for n in $sizes; do "$fftref" picture "$n" "$work/pic$n.pgm"; done
dev_name=$("$carsh" $dev_opt -c "run $top/flowmodels/scale.xml x=fill:1 y=discard N=4; time run $top/flowmodels/scale.xml x=fill:1 y=discard N=4" 2>&1 >/dev/null |
	awk '/^jobs/ { $1 = $2 = $3 = ""; sub(/^ +/, ""); sub(/; [0-9.]+ ms inside them$/, ""); print }')
echo "device: $dev_name"
echo "FFT filter processing, buffers filled (ms, median of ${ROUNDS:-3} x $runs runs, each after a warm-up)"
printf '%6s %5s %9s %9s %9s %9s %9s %14s\n' N jobs host thread th/host process pr/host "pr overhead/job"
: >"$work/table.txt"
for n in $sizes; do
	measure "$n"
	h=$(median <"$work/h.txt")
	t=$(median <"$work/t.txt")
	j=$(jobs_of)
	p=-1
	[ ! -s "$work/p.txt" ] || p=$(median <"$work/p.txt")
	awk -v n="$n" -v j="$j" -v h="$h" -v t="$t" -v p="$p" 'BEGIN {
		printf "%6d %5d %9.2f %9.2f %9.2f", n, j, h, t, t / h
		if (p < 0) printf " %9s %9s %14s\n", "-", "-", "-"
		else printf " %9.1f %9.1f %11.2f ms\n", p, p / h, (p - h) / j }' |
		tee -a "$work/table.txt"
done
echo
echo "flagship example end to end (carsh batches/fft-filter/fft-filter.bat.xml), ms, median of $runs"
printf '%6s %9s %9s %12s\n' N thread process "1660/thread"
for n in $sizes; do
	t=$(end_to_end -T "$n")
	p=-1
	[ "${PROCESS:-yes}" = no ] || p=$(end_to_end "" "$n")
	awk -v n="$n" -v t="$t" -v p="$p" 'BEGIN {
		printf "%6d %9.1f %9s %11.1fx\n", n, t, p < 0 ? "-" : sprintf("%.1f", p), 1660 / t }'
done

[ -z "${TABLE:-}" ] || cp "$work/table.txt" "$TABLE"
plot=${PLOT:-$top/docs/img/threads-${device:-default}.png}
if command -v gnuplot >/dev/null; then
	draw "$work/table.txt" "$plot" "$dev_name"
	echo "plot: $plot"
fi
