#!/usr/bin/env bash
# The default executor's own cost per job (issue 36): the FFT filter's steps
# (batches/fft-filter/filter-steps.bat.xml) at N=16, where a job's kernel runs for
# microseconds, so that what is measured is the shell's and the worker's work around each job.
# One carsh runs the steps RUNS times on filled buffers, another once; the difference, divided
# by the jobs of RUNS-1 runs, is the cost of one job. Both carsh run with CARSH_SERVER=off, so
# that their workers are their children and counted in their CPU time.
#
#   bench/jobcost.sh [--device cpu|gpu] [RUNS]     (default: 201 runs)
#
# Prints, per job: the wall time, the CPU time of the shell's main thread and how often it
# was switched out (it waited: perf stat, where perf is installed), and the CPU time of the
# shell and its workers together (user + system).
# BEFORE=PATH measures another carsh build too, in the same rounds (ROUNDS, default 3; the
# medians are printed), first in every other round.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
before=${BEFORE:-}
device=
if [ "${1:-}" = --device ]; then
	device=$2
	shift 2
fi
runs=${1:-201}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" CARSH_SERVER=off
. "$top/bench/timing-lib.sh"

. "$top/bench/jobcost-lib.sh"
has_perf=0
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then has_perf=1; fi

one() { # CARSH SCRIPT: "wall_ms main_ms cpu_ms switches"
	local t0 t1 main=0 cpu sw=0
	TIMEFORMAT='%3U %3S'
	t0=$(now_ms)
	if [ $has_perf = 1 ]; then
		# shellcheck disable=SC2086
		{ time perf stat -x, -e task-clock,context-switches --no-inherit -o "$work/perf.txt" \
			"$1" ${device:+--device $device} "$2" >/dev/null; } 2>"$work/cpu.txt"
		main=$(awk -F, '/task-clock/ { print $1 }' "$work/perf.txt")
		sw=$(awk -F, '/context-switches/ { print $1 }' "$work/perf.txt")
	else
		# shellcheck disable=SC2086
		{ time "$1" ${device:+--device $device} "$2" >/dev/null; } 2>"$work/cpu.txt"
	fi
	t1=$(now_ms)
	cpu=$(awk '{ print ($1 + $2) * 1000 }' "$work/cpu.txt")
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $main $cpu $sw"
}

per_job() { # CARSH: one line "wall_us main_us cpu_us switches" per job
	local a b
	a=$(one "$1" "$work/one.csh")
	b=$(one "$1" "$work/many.csh")
	echo "$a $b" | awk -v j=$((jobs * (runs - 1))) '{ printf "%.1f %.1f %.1f %.2f\n",
		($5 - $1) * 1000 / j, ($6 - $2) * 1000 / j, ($7 - $3) * 1000 / j, ($8 - $4) / j }'
}

echo "carsh: $carsh${before:+; before: $before}; device: ${device:-the default}"
echo "per job (us), filter steps at N=16, $jobs jobs a run, $runs runs, median of ${ROUNDS:-3}"
: >"$work/now.txt"
: >"$work/before.txt"
# One untimed call of each build first: the first call in a fresh cache builds the kernels,
# which would make the first round's "once" the longer of its two calls.
one "$carsh" "$work/one.csh" >/dev/null
[ -z "$before" ] || one "$before" "$work/one.csh" >/dev/null
# With BEFORE, the build measured first changes from round to round: on the H200 the one a
# round measures second read about half of the first, whichever it was, so a fixed order
# would measure the order. An even ROUNDS gives each build each place equally often.
for ((r = 0; r < ${ROUNDS:-3}; r++)); do
	if [ -n "$before" ] && ((r % 2)); then
		per_job "$before" >>"$work/before.txt"
		per_job "$carsh" >>"$work/now.txt"
	else
		per_job "$carsh" >>"$work/now.txt"
		[ -z "$before" ] || per_job "$before" >>"$work/before.txt"
	fi
done
col() { awk -v c="$1" '{ print $c }' "$2" | median; }
row() { # NAME FILE
	printf '%-8s %10s %14s %18s %10s\n' "$1" "$(col 1 "$2")" "$(col 2 "$2")" "$(col 3 "$2")" \
		"$(col 4 "$2")"
}
printf '%-8s %10s %14s %18s %10s\n' build wall 'shell main' 'shell+workers cpu' waits
row now "$work/now.txt"
[ -z "$before" ] || row before "$work/before.txt"
