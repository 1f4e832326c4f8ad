#!/usr/bin/env bash
# Issue "FFT image filter": where the time of the FFT filter batch (004 §3.6, Table 3) goes,
# for N = 128, 256, 512, 1024. Each size runs the whole batch under the `time` builtin
# several times after a warm-up run (which fills the binary cache), and prints the medians
# of what `time` reports, summed over the batch's jobs (one forked job per step). Then the
# same for fft-filter-swap.bat.xml, which runs each pass of log2(N) butterfly stages as one
# job with <Swap> (004 §5.3.2) instead of log2(N) jobs.
#
#   whole     the carsh process as the calling shell sees it (start, batch, exit)
#   real      `time`'s wall time of the batch
#   platform  OpenCL platform and device discovery in each job
#   context   context and queue creation
#   build     program load from CarSh's binary cache (or the build, on the cold run)
#   transfer  host-to-device + device-to-host (profiling events) + swaps
#   kernel    the kernels (profiling events)
#   in-job    the rest of the jobs' own time (`time`'s "inside them" minus the five above):
#             staging between virtual buffers and host memory, buffer allocation, the
#             process's own start-up after fork
#   shell     real minus the jobs' own time: forking and reaping the jobs, reading the XML,
#             virtbuf steps and <Command> lines in the master
#
#   bench/fft-batch.sh [RUNS [SIZES...]]   default 5 runs, sizes 128 256 512 1024
#
# Binaries: $CARSH (default carsh/carsh) and $FFTREF (default tests/tools/fftref), under
# $BUILDDIR (default: the source tree) for out-of-tree builds. The device is carsh's usual
# choice (--device / CARSH_DEVICE to pick another).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
runs=${1:-5}
shift || true
sizes=${*:-128 256 512 1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"

. "$top/bench/timing-lib.sh"

# One timed run: "whole real jobs platform context build transfer kernel inside launches",
# in ms.
timed_run() { # BATCH N
	local t0 t1 bat="$top/batches/fft-filter/$1"
	shift
	t0=$(now_ms)
	"$carsh" -c "time run $bat N=$1 CUT=$(($1 / 8)) IMAGE=$work/pic$1.pgm OUT=$work/out$1.pgm" \
		2>"$work/time.txt" >/dev/null || {
		echo "fft-batch.sh: the batch failed for N=$1:" >&2
		cat "$work/time.txt" >&2
		exit 1
	}
	t1=$(now_ms)
	awk -v whole="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
		/^real/ { real = $2 }
		/^jobs/ { jobs = $2; inside = $(NF - 3); $1 = $2 = $3 = ""; sub(/^ +/, "");
			  sub(/; [0-9.]+ ms inside them$/, ""); dev = $0 }
		/^platform/ { plat = $2; ctx = $5; build = $8 }
		/^h2d/ { h2d = $2; kern = $5; launches = substr($7, 2); swap = $10; d2h = $13 }
		END {
			if (jobs == "") { print "no statistics from time" > "/dev/stderr"; exit 1 }
			print whole, real, jobs, plat, ctx, build, h2d + d2h + swap, kern, inside, launches
			print dev > "'"$work/device.txt"'"
		}' "$work/time.txt"
}

for n in $sizes; do
	"$fftref" picture "$n" "$work/pic$n.pgm"
done
for batch in fft-filter.bat.xml fft-filter-swap.bat.xml; do
echo "$batch"
printf '%6s %5s %9s %9s %9s %9s %9s %9s %9s %9s %9s   (ms, median of %d runs)\n' \
	N jobs whole real platform context build transfer kernel in-job shell "$runs"
for n in $sizes; do
	cold=$(timed_run "$batch" "$n")
	: >"$work/runs.txt"
	for ((i = 0; i < runs; i++)); do
		timed_run "$batch" "$n" >>"$work/runs.txt"
	done
	cols=()
	for c in 1 2 3 4 5 6 7 8 9; do
		cols+=("$(cut -d' ' -f"$c" "$work/runs.txt" | median)")
	done
	# in-job = inside - (platform + context + build + transfer + kernel); shell = real - inside
	injob=$(awk -v i="${cols[8]}" -v p="${cols[3]}" -v c="${cols[4]}" -v b="${cols[5]}" \
		-v t="${cols[6]}" -v k="${cols[7]}" 'BEGIN { printf "%.1f", i - p - c - b - t - k }')
	shell=$(awk -v r="${cols[1]}" -v i="${cols[8]}" 'BEGIN { printf "%.1f", r - i }')
	printf '%6s %5s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9s %9s\n' "$n" "${cols[2]}" \
		"${cols[0]}" "${cols[1]}" "${cols[3]}" "${cols[4]}" "${cols[5]}" "${cols[6]}" \
		"${cols[7]}" "$injob" "$shell"
	echo "${batch%.bat.xml} $n $cold" >>"$work/cold.txt"
done
echo
done
echo "device: $(cat "$work/device.txt")"
echo "warm-up runs, in the order above (CarSh's binary cache and PoCL's kernel cache"
echo "are cold before the very first run only; PoCL compiles each kernel again for each new"
echo "work-group size, which shows in the first run of each size):"
awk '{ printf "  %-15s N=%-5s whole %7.1f  real %7.1f  platform %7.1f  build %7.1f  kernel %7.1f ms\n",
	$1, $2, $3, $4, $6, $8, $10 }' "$work/cold.txt"
