#!/usr/bin/env bash
# Warm workers (exec/workers.h) against a fresh process per job (CARSH_WORKERS=fresh), under
# the process executor, in one run, alternately:
#   1. the flagship example end to end (carsh batches/fft-filter/fft-filter.bat.xml, 38 jobs),
#   2. JOBS small jobs in one shell (scale.xml on a virtual buffer).
# Prints the medians of RUNS runs and the ratios fresh/warm (above 1: warm is faster).
#
#   bench/warm.sh [--device cpu|gpu] [RUNS]      (default 5 runs; JOBS=20)
#
# $CARSH (default: carsh/carsh of the source tree) is the carsh measured.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
dev=()
if [ "${1:-}" = --device ]; then
	dev=(--device "$2")
	shift 2
fi
runs=${1:-5}
jobs=${JOBS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
# The shell's own workers: a server (docs/server.md) would lend its own instead.
export CARSH_SERVER=off

. "$top/bench/timing-lib.sh"


{
	echo "virtbuf create x float 1000"
	echo "virtbuf fill x --value 1"
	for ((i = 0; i < jobs; i++)); do echo "run $top/flowmodels/scale.xml x=buffer:x y=buffer:x A=1"; done
} >"$work/jobs.csh"

flagship() { "$carsh" "${dev[@]}" "$top/batches/fft-filter/fft-filter.bat.xml" OUT="$work/out.pgm"; }
small() { "$carsh" "${dev[@]}" "$work/jobs.csh"; }

# One untimed run each builds the programs into the binary cache.
CARSH_WORKERS=warm flagship >/dev/null
CARSH_WORKERS=warm small >/dev/null
for ((r = 0; r < runs; r++)); do
	for mode in warm fresh; do
		CARSH_WORKERS=$mode timed "$work/flag-$mode" flagship
		CARSH_WORKERS=$mode timed "$work/small-$mode" small
	done
done
fw=$(median <"$work/flag-warm")
ff=$(median <"$work/flag-fresh")
sw=$(median <"$work/small-warm")
sf=$(median <"$work/small-fresh")
printf '%-32s %10s %10s %8s\n' "median of $runs runs (ms)" warm fresh fresh/warm
printf '%-32s %10.1f %10.1f %8.2f\n' "flagship end to end (38 jobs)" "$fw" "$ff" \
	"$(awk -v a="$ff" -v b="$fw" 'BEGIN { print a / b }')"
printf '%-32s %10.1f %10.1f %8.2f\n' "$jobs small jobs in one shell" "$sw" "$sf" \
	"$(awk -v a="$sf" -v b="$sw" 'BEGIN { print a / b }')"
