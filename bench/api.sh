#!/usr/bin/env bash
# Issue 22 (docs/api.md): saxpy fired FIRES times on the program's own arrays through
# libcarsh's embedding API, against a hand-written OpenCL loop doing the same
# (bench/api_hand.c; target: at most 1.2x), and against the same fires through the session
# API's carsh_run_string on the thread executor (reported). The three alternate, RUNS
# times, in one run; medians and ratios of the loops' own times (set-up and build left out).
# Beside them, two variants of the hand loop say what a fire pays for what it adds to that
# loop's OpenCL calls (docs/api.md, "What a fire costs"): the same loop on a queue made with
# CL_QUEUE_PROFILING_ENABLE, and with its three kernel arguments set before every launch
# (what the API did before it kept them; BREAKDOWN=no leaves the variants out).
# And the API on a machine of a carsh server (carsh_machine_open_at("server"): a round trip
# and the copies of x and y a fire; reported), on a server of its own in a private
# directory, stopped at the end; CARSH_EXE names the carsh (default: the build's);
# SERVER=no leaves it out.
# And a queue of fires (issue 40): the API's fires queued without a wait between, one
# carsh_flowmodel_wait at the end, against the same API one fire at a time (the ratio shows
# what queueing gains) and against the hand loop that synchronises only at the end
# (api_hand endsync: what it costs beyond OpenCL's own queue). QUEUE=no leaves it out.
#
#   bench/api.sh [RUNS [FIRES [N]]]       (defaults 3, 10000, 4096)
#
# Needs only the build tree: carsh/.libs/libcarsh.a (made by `make` when missing) and the
# compile and link flags configure found (read from its Makefile). BUILD=DIR for a VPATH
# build; API_HAND and API_LOOP name the two programs built elsewhere with
# `bench/api.sh --build DIR` (a GPU machine without the -dev packages); CARSH_DEVICE is not read by the API: both sides take the first GPU, else the CPU.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top}
runs=${1:-3}
fires=${2:-10000}
n=${3:-4096}
[ "$runs" = --build ] && fires=1 && n=1
work=$(mktemp -d)
export CARSH_EXE=${CARSH_EXE:-$build/carsh/carsh}
export CARSH_SERVER_DIR="$work/server"
stop_server() { [ -x "$CARSH_EXE" ] && "$CARSH_EXE" server stop >/dev/null 2>&1 || true; }
trap 'stop_server; rm -rf "$work"' EXIT
. "$top/bench/timing-lib.sh"

mkvar() { sed -n "s/^$1 = //p" "$build/Makefile"; }
if [ -n "${API_HAND:-}" ] && [ -n "${API_LOOP:-}" ]; then
	# built elsewhere (a machine without the -dev packages): bench/api.sh --build DIR there
	cp "$API_HAND" "$work/api_hand"
	cp "$API_LOOP" "$work/api_loop"
else
	[ -f "$build/carsh/.libs/libcarsh.a" ] || make -s -C "$build" carsh/libcarsh.la
	libs="$(mkvar OPENCL_LIBS) $(mkvar XML_LIBS) $(mkvar CSV_LIBS) $(mkvar MPI_LIBS) $(mkvar LIBS) -lstdc++ -lpthread -lm"
	san=$(mkvar SAN_CFLAGS)
	# shellcheck disable=SC2086
	"${CC:-$(mkvar CC)}" -O2 $san -o "$work/api_hand" "$top/bench/api_hand.c" $(mkvar OPENCL_LIBS) $(mkvar OPENCL_CFLAGS)
	# shellcheck disable=SC2086
	"${CC:-$(mkvar CC)}" -O2 $san -I"$top/carsh" -o "$work/api_loop" "$top/bench/api_loop.c" \
		"$build/carsh/.libs/libcarsh.a" $libs
fi
if [ "$runs" = --build ]; then
	# bench/api.sh --build DIR: the two programs into DIR, for API_HAND and API_LOOP
	mkdir -p "$2"
	cp "$work/api_hand" "$work/api_loop" "$2/"
	exit 0
fi
export XDG_CACHE_HOME="$work/cache"
fm="$top/flowmodels/saxpy.xml"
: >"$work/hand.ms"
: >"$work/api.ms"
: >"$work/session.ms"
: >"$work/profq.ms"
: >"$work/setargs.ms"
: >"$work/server.ms"
: >"$work/queue.ms"
: >"$work/endsync.ms"
for ((r = 0; r < runs; r++)); do
	"$work/api_hand" "$top/kernels/saxpy.cl" "$n" "$fires" >>"$work/hand.ms"
	"$work/api_loop" api "$fm" "$n" "$fires" >"$work/api.out"
	cut -f1 "$work/api.out" >>"$work/api.ms"
	"$work/api_loop" session "$fm" "$n" "$fires" >>"$work/session.ms"
	if [ "${SERVER:-yes}" != no ]; then
		"$work/api_loop" server "$fm" "$n" "$fires" >"$work/server.out"
		cut -f1 "$work/server.out" >>"$work/server.ms"
	fi
	if [ "${QUEUE:-yes}" != no ]; then
		"$work/api_loop" queue "$fm" "$n" "$fires" | cut -f1 >>"$work/queue.ms"
		"$work/api_hand" "$top/kernels/saxpy.cl" "$n" "$fires" endsync >>"$work/endsync.ms"
	fi
	[ "${BREAKDOWN:-yes}" = no ] && continue
	"$work/api_hand" "$top/kernels/saxpy.cl" "$n" "$fires" profq >>"$work/profq.ms"
	"$work/api_hand" "$top/kernels/saxpy.cl" "$n" "$fires" setargs >>"$work/setargs.ms"
done
hand=$(median <"$work/hand.ms")
api=$(median <"$work/api.ms")
ses=$(median <"$work/session.ms")
profq=$( [ -s "$work/profq.ms" ] && median <"$work/profq.ms" || echo 0)
setargs=$( [ -s "$work/setargs.ms" ] && median <"$work/setargs.ms" || echo 0)
server=$( [ -s "$work/server.ms" ] && median <"$work/server.ms" || echo 0)
queue=$( [ -s "$work/queue.ms" ] && median <"$work/queue.ms" || echo 0)
endsync=$( [ -s "$work/endsync.ms" ] && median <"$work/endsync.ms" || echo 0)
echo "device:                 $(cut -f2 "$work/api.out")"
echo "fires:                  $fires of saxpy on $n floats, $runs runs alternating (medians)"
awk -v h="$hand" -v a="$api" -v s="$ses" -v f="$fires" -v pq="$profq" -v sa="$setargs" -v sv="$server" -v qu="$queue" -v es="$endsync" 'BEGIN {
	printf "hand-written OpenCL:    %.1f ms (%.1f us a fire)\n", h, h * 1000 / f
	printf "carsh API:              %.1f ms (%.1f us a fire)\n", a, a * 1000 / f
	printf "carsh_run_string:       %.1f ms (%.1f us a fire)\n", s, s * 1000 / f
	printf "ratio API/hand:         %.3f   (target <= 1.2)\n", a / h
	printf "ratio run_string/API:   %.3f   (reported)\n", s / a
	if (sv > 0) {
		printf "API on a server machine, per fire: %.1f ms (%.1f us a fire)\n", sv, sv * 1000 / f
		printf "ratio server/API:       %.3f   (reported)\n", sv / a
	}
	if (qu > 0) {
		printf "carsh API, fires queued, one wait at the end: %.1f ms (%.1f us a fire)\n", qu, qu * 1000 / f
		printf "hand-written OpenCL, synchronised at the end: %.1f ms (%.1f us a fire)\n", es, es * 1000 / f
		printf "ratio one-at-a-time/queued (API):  %.3f   (what the queue gains)\n", a / qu
		printf "ratio queued API/hand at the end:  %.3f   (reported)\n", qu / es
	}
	if (pq > 0) {
		print "the hand loop with one thing more (what a fire would pay for it):"
		printf "  a profiling queue:    %.1f ms (%+.1f us a fire, %.3f of hand)\n", pq, (pq - h) * 1000 / f, pq / h
		printf "  3 args every fire:    %.1f ms (%+.1f us a fire, %.3f of hand)\n", sa, (sa - h) * 1000 / f, sa / h
	}
}'
