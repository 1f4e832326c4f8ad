#!/usr/bin/env bash
# What `auto` costs a carsh started from a script (docs/auto.md, "Where the choice is made"):
# the device list, which the shell learns once per process. With the server on it comes from
# a warm worker the server lends (a round trip); with CARSH_SERVER=off from a child that
# starts OpenCL from cold (about 0.3 s on NVIDIA). In one run, alternately, medians of RUNS:
# one `carsh --device SEL run flowmodels/scale.xml` per call (a new carsh each), SEL auto,
# gpu and cpu, with the server warm and with it off. Prints the medians and, per mode,
# auto's extra time over the faster fixed device: with the server on it should be a few ms
# (before the server answered the list it was the child's 0.3 s on NVIDIA); with it off, the
# child's start-up.
#
#   bench/auto-list.sh [RUNS]      (default 9)
#
# $CARSH (default: carsh/carsh beside this script) is the carsh measured. GPU_SEL and
# CPU_SEL name the fixed devices (default gpu and cpu; a smoke test on two PoCL devices:
# POCL_DEVICES="pthread basic" GPU_SEL=1 CPU_SEL=0). The server runs in a socket directory
# of the script's own and is stopped at the end; the profile history is the script's own.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
runs=${1:-9}
gpu=${GPU_SEL:-gpu}
cpu=${CPU_SEL:-cpu}
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache"
export CARSH_SERVER_DIR="$work/srv"
mkdir -p "$XDG_CACHE_HOME"
mkdir -m 700 "$CARSH_SERVER_DIR"
cleanup() {
	"$carsh" server stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

. "$top/bench/timing-lib.sh"

seq 1 1000 >"$work/x.csv"
one() { "$carsh" --device "$1" run "$top/flowmodels/scale.xml" x="$work/x.csv" y=discard N=1000; }

# Builds into the binary cache, auto's exploration of every device (a first run on each),
# and a warm server with workers on both devices.
for mode in off on; do
	for ((i = 0; i < 4; i++)); do CARSH_SERVER=$mode one auto >/dev/null; done
	CARSH_SERVER=$mode one "$gpu" >/dev/null
	CARSH_SERVER=$mode one "$cpu" >/dev/null
done
before=$("$carsh" server status | sed -n 's/^device lists //p')
for ((r = 0; r < runs; r++)); do
	for mode in on off; do
		for sel in auto "$gpu" "$cpu"; do
			CARSH_SERVER=$mode timed "$work/$sel-$mode" one "$sel"
		done
	done
done
after=$("$carsh" server status | sed -n 's/^device lists //p')
where=$("$carsh" --device auto -c "time run $top/flowmodels/scale.xml x=$work/x.csv y=discard N=1000" 2>&1 |
	sed -n 's/^place *//p')

printf '%-34s %10s %10s\n' "median of $runs calls (ms)" "server on" off
for sel in auto "$gpu" "$cpu"; do
	printf '%-34s %10.1f %10.1f\n' "carsh --device $sel run scale.xml" \
		"$(median <"$work/$sel-on")" "$(median <"$work/$sel-off")"
done
extra() { # MODE: auto's median less the faster fixed device's
	awk -v a="$(median <"$work/auto-$1")" -v g="$(median <"$work/$gpu-$1")" \
		-v c="$(median <"$work/$cpu-$1")" 'BEGIN { printf "%.1f", a - (g < c ? g : c) }'
}
printf '%-34s %10s %10s   target: on <= 10 ms (was ~300 on the H100)\n' \
	"auto - the faster fixed device" "$(extra on)" "$(extra off)"
echo "device lists served during the timed runs: $((after - before)) (expected $runs)"
echo "auto placed the last call: $where"
