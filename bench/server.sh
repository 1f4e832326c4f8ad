#!/usr/bin/env bash
# Issue "Warm devices": the per-user carsh server (docs/server.md) against CARSH_SERVER=off,
# in one run, alternately, medians of RUNS:
#   1. 20 piped `carsh run` of flowmodels/scale.xml in a shell loop (each a new carsh
#      process), server warm against off;
#   2. the flagship example end to end (process executor), server warm against off;
#   3. the flagship with -T (the thread executor), its session in a spare session worker of
#      the server that opened its devices ahead, against off (the carsh's own OpenCL);
#      and five such calls back to back, which a spare's start (about 0.3 s on NVIDIA) may
#      not keep up with; and ten calls back to back, each call's time;
#   4. the first call: one `carsh run` that starts the server itself, against the same call
#      with the server off, each with no server running before it.
# Prints the medians and the ratios off/on (above 1: the server is faster), with the issue's
# targets.
#
#   bench/server.sh [--device cpu|gpu] [RUNS]      (default 5 runs)
#
# $CARSH (default: carsh/carsh of the source tree) is the carsh measured. The server runs in
# a socket directory of the script's own (CARSH_SERVER_DIR) and is stopped at the end.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
dev=()
if [ "${1:-}" = --device ]; then
	dev=(--device "$2")
	shift 2
fi
runs=${1:-5}
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache"
export CARSH_SERVER_DIR="$work/srv"
mkdir -m 700 "$CARSH_SERVER_DIR"
cleanup() {
	"$carsh" server stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

. "$top/bench/timing-lib.sh"

seq 1 1000 >"$work/x.csv"
piped20() {
	for ((i = 0; i < 20; i++)); do
		seq 1 1000 | "$carsh" "${dev[@]}" run "$top/flowmodels/scale.xml" x=- y=- N=1000
	done
}
flagship() { "$carsh" "${dev[@]}" "$top/batches/fft-filter/fft-filter.bat.xml" OUT="$work/out.pgm"; }
flagship_t() { "$carsh" "${dev[@]}" -T "$top/batches/fft-filter/fft-filter.bat.xml" OUT="$work/out.pgm"; }
flagship_t5() { for ((i = 0; i < 5; i++)); do flagship_t; done; }
one_run() { "$carsh" "${dev[@]}" run "$top/flowmodels/scale.xml" x="$work/x.csv" y=discard N=1000; }

# Builds into the binary cache, and a warm server.
CARSH_SERVER=off flagship >/dev/null
flagship >/dev/null
flagship_t >/dev/null
piped20 >/dev/null
for ((r = 0; r < runs; r++)); do
	for mode in on off; do
		CARSH_SERVER=$mode timed "$work/piped-$mode" piped20
		CARSH_SERVER=$mode timed "$work/flag-$mode" flagship
		# A second for the spare the last -T call left to open its devices: the figure is
		# that of a warm server (the back-to-back row shows the other case).
		sleep 1
		CARSH_SERVER=$mode timed "$work/flagt-$mode" flagship_t
		sleep 1
		CARSH_SERVER=$mode timed "$work/flagt5-$mode" flagship_t5
	done
done
# Ten -T calls back to back on the warm server, each call's time (a worker that served a
# session serves the next: none but the first should pay a device start-up).
sleep 1
ten=()
for ((i = 0; i < 10; i++)); do
	t0=$(now_ms)
	flagship_t >/dev/null
	ten+=("$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { printf "%.1f", b - a }')")
done
# The first calls last (they stop the server the runs above keep warm). Each starts with no
# process of ours holding a device, a second after the last one let go of it (a server's
# idle worker keeps the GPU's driver initialized, and its driver's teardown slows the next
# start), in turns, so that neither always comes first.
first_call() { # MODE
	"$carsh" server stop >/dev/null
	sleep 1
	if [ "$1" = on ]; then
		timed "$work/first-on" one_run
	else
		CARSH_SERVER=off timed "$work/first-off" one_run
	fi
}
for ((r = 0; r < runs; r++)); do
	if ((r % 2)); then
		first_call on
		first_call off
	else
		first_call off
		first_call on
	fi
done
row() { # LABEL ON OFF TARGET: the ratio off/on (above 1: the server is faster)
	local on off
	on=$(median <"$work/$2")
	off=$(median <"$work/$3")
	printf '%-40s %10.1f %10.1f %8.2f   %s\n' "$1" "$on" "$off" \
		"$(awk -v a="$off" -v b="$on" 'BEGIN { print a / b }')" "$4"
}
printf '%-40s %10s %10s %8s   %s\n' "median of $runs runs (ms)" "server on" off off/on target
row "20 piped carsh run of scale.xml" piped-on piped-off "off/on >= 20 (GPU), >= 5 (dev PoCL)"
row "flagship end to end (process executor)" flag-on flag-off "on <= 83 ms (H100)"
row "flagship end to end, -T" flagt-on flagt-off "on <= 60 ms (H100)"
row "5 x flagship -T back to back" flagt5-on flagt5-off "(spares' start)"
row "first call, the server started by it" first-on first-off "off/on >= 0.87 (on/off <= 1.15)"
echo "10 x flagship -T back to back, each (ms): ${ten[*]}   (target: each <= 25 ms on the GPU)"
