#!/usr/bin/env bash
# Issue 37's flagship end to end (PGM in, PGM out), default executor, warm server:
#
#   carsh batches/fft-filter/fft-filter.bat.xml N=4096 CUT=512 IMAGE=pic.pgm OUT=out.pgm
#
# a. RUNS whole calls after one warm-up call (each call's wall time, and their median);
# b. where a call's time goes: the batch's steps, each timed with `time --wall` in one carsh
#    script (the five 64 MiB creations, the PGM fill, the value fill, the first run of the
#    steps in the session, the same steps again, the dump), RUNS times, medians;
# c. a reference in the same run: CuPy (cuFFT) in one warm python process when python3
#    imports cupy (read the PGM with numpy, fft2, the circular low-pass mask of radius CUT on
#    fftfreq*N, ifft2, real part, rint, clip, write the PGM), timed per call after a warm-up;
#    else the hand-written bench/host_fft.c's processing alone (kernels, buffers on the
#    device), the floor below which no end-to-end figure can go.
# Every output picture is compared with the reference's (CuPy's, else tests/tools/fftref's)
# pixel by pixel (at most 1 apart: rounding of float sums).
#
#   bench/flagship.sh [--device cpu|gpu] [RUNS [N]]     (defaults: 5 runs, N=4096)
#
# BEFORE=PATH measures another carsh build too, in the same rounds (its own server).
# $CARSH names the carsh measured; $BUILDDIR (default: the source tree) holds tests/tools/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
before=${BEFORE:-}
device=
if [ "${1:-}" = --device ]; then
	device=$2
	export CARSH_DEVICE=$2 # every call's device (the batch takes no --device)
	shift 2
fi
runs=${1:-5}
n=${2:-4096}
cut=$((n / 8))
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache"
unset CARSH_SERVER
stop_servers() {
	CARSH_SERVER_DIR="$work/srv" "$carsh" server stop >/dev/null 2>&1 || true
	[ -z "$before" ] || CARSH_SERVER_DIR="$work/srv-before" "$before" server stop >/dev/null 2>&1 || true
}
trap 'stop_servers; rm -rf "$work"' EXIT
cd "$work"
. "$top/bench/timing-lib.sh"

"$fftref" picture "$n" pic.pgm
flag=("$top/batches/fft-filter/fft-filter.bat.xml" "N=$n" "CUT=$cut" IMAGE=pic.pgm OUT=out.pgm)

# ---- a. whole calls ----
call() { # LABEL CARSH SERVER_DIR: one call, its time appended to calls-LABEL.txt
	CARSH_SERVER_DIR=$3 timed "calls-$1.txt" "$2" "${flag[@]}"
	cp out.pgm "out-$1.pgm"
}

# ---- b. the steps of a call, each timed ----
steps_script() {
	local cnt=$((n * n)) steps="$top/batches/fft-filter/filter-steps.bat.xml"
	for b in re im re_next im_next result; do echo "time --wall virtbuf create $b float $cnt"; done
	echo "virtbuf create stage int 1"
	echo "virtbuf create stage_next int 1"
	echo "time --wall virtbuf fill re pic.pgm"
	echo "time --wall virtbuf fill im --value 0"
	echo "time --wall run $steps N=$n CUT=$cut"
	echo "time --wall virtbuf dump result steps.pgm --columns $n"
	echo "time --wall run $steps N=$n CUT=$cut"
	echo "time --wall virtbuf dump result steps.pgm --columns $n"
}
step_names=("create x5" "fill re pic.pgm" "fill im --value 0" "steps, first run" "dump result .pgm"
	"steps, again" "dump again")
steps() { # LABEL CARSH SERVER_DIR
	local label=$1 c=$2
	export CARSH_SERVER_DIR=$3
	steps_script >steps.csh
	"$c" steps.csh 2>time.txt >/dev/null
	# The five creations add up to one figure; the others are one line each.
	awk '/^real/ { v[++k] = $2 } END {
		printf "%.3f\n", v[1] + v[2] + v[3] + v[4] + v[5]
		for (i = 6; i <= k; i++) print v[i] }' time.txt >"one.txt"
	for i in "${!step_names[@]}"; do sed -n "$((i + 1))p" one.txt >>"step-$label-$i.txt"; done
}

# Where the first run's time goes inside its jobs: the same script once more, the first run
# under `time` with `set stats=on` (each job then waits for its work, so this run is slower
# than the timed ones; it is printed, not counted).
first_stats() { # CARSH SERVER_DIR
	export CARSH_SERVER_DIR=$2
	steps_script | sed -e '0,/time --wall run/s//set stats=on\ntime run/' >stats.csh
	"$1" stats.csh 2>&1 >/dev/null |
		awk '/^real/ && seen { exit } /^real/ { r = $0 } /^jobs / { seen = 1; print r } seen'
}

# ---- c. the reference ----
cupy_ref() { # bench/flagship_cupy.py: one warm-up call, then each call's ms
	python3 "$top/bench/flagship_cupy.py" pic.pgm out-cupy.pgm "$cut" "$runs"
}

host_floor() {
	cc -O2 -o host_fft "$top/bench/host_fft.c" ${OPENCL_LIBS:--lOpenCL}
	./host_fft "$n" "$cut" $((runs + 1)) "$top/kernels/fft.cl" ${device:+$device} |
		awk '/^run/ { if (k++) print $2 }'
}

echo "carsh: $carsh${before:+; before: $before}; device: ${device:-the default}; N=$n CUT=$cut; $runs runs"
labels=(now)
[ -z "$before" ] || labels+=(before)
# The warm-up calls start each server; then the builds alternate, call by call and step
# script by step script, so that a machine's changing load falls on both alike.
CARSH_SERVER_DIR="$work/srv" "$carsh" "${flag[@]}" >/dev/null
[ -z "$before" ] || CARSH_SERVER_DIR="$work/srv-before" "$before" "${flag[@]}" >/dev/null
for _ in $(seq "$runs"); do
	call now "$carsh" "$work/srv"
	[ -z "$before" ] || call before "$before" "$work/srv-before"
done
for l in "${labels[@]}"; do printf '%-28s %s ms\n' "$l, each call" "$(tr '\n' ' ' <"calls-$l.txt")"; done
for _ in $(seq "$runs"); do
	steps now "$carsh" "$work/srv"
	[ -z "$before" ] || steps before "$before" "$work/srv-before"
done
echo "the first run of the steps in a session, inside its jobs (set stats=on):"
first_stats "$carsh" "$work/srv" | sed 's/^/  /'

ref=cupy
if python3 -c 'import cupy' 2>/dev/null; then
	cupy_ref >ref.txt
	ref_label="CuPy in a warm python process, each call"
	want=out-cupy.pgm
else
	ref=host
	host_floor >ref.txt
	ref_label="host_fft.c, processing only"
	"$fftref" filter low "$cut" pic.pgm --pgm want.pgm >/dev/null
	want=want.pgm
fi
printf '%-28s %s ms\n' "$ref_label" "$(tr '\n' ' ' <ref.txt)"

echo
echo "medians (ms)"
printf '%-22s' step
for l in "${labels[@]}"; do printf ' %10s' "$l"; done
echo
for i in "${!step_names[@]}"; do
	printf '%-22s' "${step_names[$i]}"
	for l in "${labels[@]}"; do printf ' %10.2f' "$(median <"step-$l-$i.txt")"; done
	echo
done
printf '%-22s' "whole call"
for l in "${labels[@]}"; do printf ' %10.2f' "$(median <"calls-$l.txt")"; done
echo
r=$(median <ref.txt)
printf '%-22s %10.2f\n' "$ref" "$r"
awk -v c="$(median <calls-now.txt)" -v r="$r" -v ref="$ref" \
	'BEGIN { printf "whole call / %s: %.2f (target: the call <= 60 ms on the GPU)\n", ref, c / r }'
for l in "${labels[@]}"; do
	if "$fftref" pgmcmp "out-$l.pgm" "$want" 1 >/dev/null; then
		echo "output ($l): equal to the reference's within 1"
	else
		echo "output ($l): DIFFERS from the reference's" >&2
		exit 1
	fi
done
