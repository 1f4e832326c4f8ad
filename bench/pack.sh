#!/usr/bin/env bash
# Issue "pack" (004 §5.3.4, Figures 49-50): the FFT image filter packed into one kernel
# driven by a scenario, against the same batch unpacked, in the process executor, for
# N = 128 ... 1024. For each size: `pack` once, a warm-up run of each batch (it fills the
# binary caches), then RUNS runs of each, alternating; it prints the medians and the speedup
# unpacked / packed, which 004 Figure 50 reports as 15x (CPU) and 25x (GPU) at 128x128.
#
#   bench/pack.sh [RUNS [SIZES...]]          default 3 runs, sizes 128 256 512 1024
#
#   whole    the carsh process as the calling shell sees it (start, batch, exit)
#   real     the `time` builtin's wall time of the batch
#   kernel   the kernels' own time (profiling events), all launches of all jobs
#   jobs     forked flow-model jobs; launches: kernel launches
#
# Environment: BUILDDIR (default: the source tree) or CARSH and FFTREF for the binaries;
# DEVICE picks the OpenCL device as --device does (an index, cpu, gpu or a name: `carsh
# devices` lists them; default: carsh's own choice, the first GPU, else the CPU), e.g.
#   BUILDDIR=/tmp/build DEVICE=gpu bench/pack.sh
# CARSH_NO_PRELOAD=1 makes every job load the OpenCL runtime itself (runtime/preload.h), as
# 004's CarSh did; docs/pack.md has both.
# BATCH (default batches/fft-filter/fft-filter.bat.xml) and FILTER (default low) choose the
# flow. A full run with 3 runs took about 70 s on PoCL (2 cores) and 265 s on an H100, where
# every unpacked job pays the CUDA start-up (docs/pack.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
batch=${BATCH:-$top/batches/fft-filter/fft-filter.bat.xml}
filter=${FILTER:-low}
runs=${1:-3}
shift || true
sizes=${*:-128 256 512 1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
if [ -n "${DEVICE:-}" ]; then
	export CARSH_DEVICE="$DEVICE"
fi

. "$top/bench/timing-lib.sh"

# timed_run FILE ARGS...: "whole real kernel jobs launches" in ms, of `time run FILE ARGS`.
timed_run() {
	local t0 t1
	t0=$(now_ms)
	"$carsh" -c "time run $*" 2>"$work/time.txt" >/dev/null || {
		echo "pack.sh: failed: carsh -c 'time run $*':" >&2
		cat "$work/time.txt" >&2
		exit 1
	}
	t1=$(now_ms)
	awk -v whole="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
		/^real/ { real = $2 }
		/^jobs/ { jobs = $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); sub(/; [0-9.]+ ms inside them$/, "");
			  dev = $0 }
		/^h2d/ { kern = $5; launches = substr($7, 2) }
		END {
			if (jobs == "") { print "no statistics from time" > "/dev/stderr"; exit 1 }
			print whole, real, kern, jobs, launches
			print dev > "'"$work/device.txt"'"
		}' "$work/time.txt"
}

col() { cut -d' ' -f"$1" "$2" | median; }

printf '%6s | %9s %9s %9s %5s %6s | %9s %9s %9s %5s %6s | %8s %8s\n' N \
	"whole" "real" "kernel" "jobs" "launch" "whole" "real" "kernel" "jobs" "launch" \
	"speedup" "(real)"
printf '%6s | %-43s | %-43s | %17s\n' "" "unpacked batch (ms, median of $runs)" \
	"packed batch (ms, median of $runs)" "unpacked/packed"
for n in $sizes; do
	"$fftref" picture "$n" "$work/pic$n.pgm"
	args="N=$n CUT=$((n / 8)) FILTER=$filter IMAGE=$work/pic$n.pgm"
	"$carsh" pack "$batch" -o "$work/pk$n" $args OUT="$work/packed$n.csv" >/dev/null
	packed=$(ls "$work/pk$n"/*.packed.bat.xml)
	timed_run "$batch" $args OUT="$work/unpacked$n.csv" >/dev/null
	timed_run "$packed" >/dev/null
	"$fftref" cmp "$work/packed$n.csv" "$work/unpacked$n.csv" 1e-5 255 >/dev/null || {
		echo "pack.sh: N=$n: the packed result differs from the unpacked one:" >&2
		"$fftref" cmp "$work/packed$n.csv" "$work/unpacked$n.csv" 1e-5 255 >&2
		exit 1
	}
	: >"$work/u.txt"
	: >"$work/p.txt"
	for ((i = 0; i < runs; i++)); do
		timed_run "$batch" $args OUT="$work/unpacked$n.csv" >>"$work/u.txt"
		timed_run "$packed" >>"$work/p.txt"
	done
	uw=$(col 1 "$work/u.txt") ur=$(col 2 "$work/u.txt")
	pw=$(col 1 "$work/p.txt") pr=$(col 2 "$work/p.txt")
	printf '%6s | %9.1f %9.1f %9.1f %5s %6s | %9.1f %9.1f %9.1f %5s %6s | %7.1fx %7.1fx\n' \
		"$n" "$uw" "$ur" "$(col 3 "$work/u.txt")" "$(col 4 "$work/u.txt")" \
		"$(col 5 "$work/u.txt")" "$pw" "$pr" "$(col 3 "$work/p.txt")" \
		"$(col 4 "$work/p.txt")" "$(col 5 "$work/p.txt")" \
		"$(awk -v a="$uw" -v b="$pw" 'BEGIN { print a / b }')" \
		"$(awk -v a="$ur" -v b="$pr" 'BEGIN { print a / b }')"
done
echo "device: $(cat "$work/device.txt")"
echo "speedup: whole process time, unpacked / packed; (real): the batches' own wall time."
echo "Each packed result was checked against the unpacked one (fftref cmp, 1e-5 of 255)."
