#!/usr/bin/env bash
# Issue 36's "repeated invocations warm": back-to-back whole carsh calls on a warm server,
# each call's wall time printed (not a median: the target is on every call).
#   a. the flagship (FFT filter, 128², picture.pgm) with -T          target: each <= 25 ms
#   b. `carsh run flowmodels/scale.xml`, 1000 values, default executor  target: each <= 10 ms
#   c. the flagship end to end with the default executor               target: each <= 30 ms
# One call of each first warms the server (device, programs); it is not counted.
#
#   bench/calls.sh [--device cpu|gpu] [CALLS]      (default 10 calls)
#
# $CARSH names the carsh measured. The server runs in a socket directory of the script's own
# and is stopped at the end.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
if [ "${1:-}" = --device ]; then
	export CARSH_DEVICE=$2 # every call's device (run takes no --device)
	shift 2
fi
calls=${1:-10}
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache" CARSH_SERVER_DIR="$work/srv"
unset CARSH_SERVER
trap '"$carsh" server stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cd "$work"
seq 1000 >x.csv
flag=("$top/batches/fft-filter/fft-filter.bat.xml" N=128 "IMAGE=$top/examples/fft-filter/picture.pgm"
	OUT=out.pgm)

ms_of() { # COMMAND...: the call's wall time in ms
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

series() { # LABEL TARGET COMMAND...
	local label=$1 target=$2 times=() worst=0 t
	shift 2
	"$@" >/dev/null # warms the server
	for _ in $(seq "$calls"); do
		t=$(ms_of "$@")
		times+=("$t")
		[ "$t" -gt "$worst" ] && worst=$t
	done
	printf '%-34s %s ms; worst %d ms (target each <= %d ms)\n' "$label" "${times[*]}" "$worst" "$target"
}

series "flagship -T (128²)" 25 "$carsh" -T "${flag[@]}"
series "run scale.xml (1000 values)" 10 "$carsh" run "$top/flowmodels/scale.xml" x=x.csv y=out.csv N=1000
series "flagship, default executor" 30 "$carsh" "${flag[@]}"
