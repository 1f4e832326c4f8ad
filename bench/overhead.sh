#!/usr/bin/env bash
# Issue "Run a flow-model from carsh": whole-process time of `carsh run` of a tiny flow-model
# against the minimal hand-written host program (bench/host_minimal.c) running the same
# kernel on the same device, both with warm caches, measured alternately in one run.
# Also the first build against a cached build.
#
#   bench/overhead.sh [RUNS [N]]        (after `make`; CARSH= to use another binary)
#
# Prints medians and the ratio carsh/host (target: at most 1.25).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
runs=${1:-30}
n=${2:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc -O2 -o "$work/host_minimal" "$top/bench/host_minimal.c" ${OPENCL_LIBS:--lOpenCL}
seq 1 "$n" >"$work/in.csv"
export XDG_CACHE_HOME="$work/cache"
fm="$top/flowmodels/scale.xml"

. "$top/bench/timing-lib.sh"
run_ms() { # COMMAND...: wall time of one run in ms, output discarded
	local t0 t1
	t0=$(now_ms)
	"$@" >/dev/null
	t1=$(now_ms)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

# Cold: nothing cached (neither CarSh's binaries nor PoCL's own kernel cache).
cold=$(run_ms "$carsh" run "$fm" x="$work/in.csv" y=- N="$n")
# PoCL's cache is warm now; CarSh's binary cache off: what a source build costs with it.
nocache=$(run_ms env CARSH_NO_CACHE=1 "$carsh" run "$fm" x="$work/in.csv" y=- N="$n")
"$work/host_minimal" "$work/in.csv" "$top/kernels/scale.cl" >"$work/host.out"
"$carsh" run "$fm" x="$work/in.csv" y="$work/carsh.out" N="$n"
if ! awk 'NR == FNR { a[FNR] = $1; next } { if (a[FNR] + 0 != $1 + 0) bad = 1 } END { exit bad }' \
	"$work/host.out" "$work/carsh.out"; then
	echo "overhead.sh: carsh and host_minimal disagree" >&2
	exit 1
fi

: >"$work/host.ms"
: >"$work/carsh.ms"
for ((i = 0; i < runs; i++)); do
	run_ms "$work/host_minimal" "$work/in.csv" "$top/kernels/scale.cl" >>"$work/host.ms"
	run_ms "$carsh" run "$fm" x="$work/in.csv" y=- N="$n" >>"$work/carsh.ms"
done
host=$(median <"$work/host.ms")
cs=$(median <"$work/carsh.ms")
device=$("$carsh" -c "time run $fm x=$work/in.csv y=discard N=$n" 2>&1 >/dev/null | awk '/^jobs/ { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }')
echo "device:               $device"
echo "runs:                 $runs alternating, N=$n floats"
echo "host_minimal median:  $host ms"
echo "carsh run median:     $cs ms"
awk -v c="$cs" -v h="$host" 'BEGIN { printf "ratio carsh/host:     %.3f   (target <= 1.25)\n", c / h }'
echo "first run, all caches cold:            $cold ms"
echo "CarSh cache off, PoCL cache warm:      $nocache ms"
echo "CarSh binary cache warm (median):      $cs ms"
