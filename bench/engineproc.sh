#!/usr/bin/env bash
# The cost of the engine's own process under -T (runner/engineproc.h, runner/enginekeep.h):
# a small partition run (tests/data/errors/partrows.xml, 256 items, the cores alone) in the
# carsh the shell starts afresh and keeps for the session's next engine run, against a
# BEFORE build whose engine ran in the shell's process. Alternately in one run, medians of
# RUNS each:
#   - one `carsh -T partition ...` process, start to exit (the engine's process starts);
#   - K partitions in one `carsh -T` script (the whole script's wall time / K): the first
#     starts the engine's process, the others find it kept.
#
#   BEFORE=/path/to/old/carsh bench/engineproc.sh [RUNS [K]]   (after `make`; CARSH= for
#   another binary; CARSH_SERVER=on: each build's server, in a directory of the run's own,
#   stopped at the end; off unless set)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
before=${BEFORE:?BEFORE=/path/to/the carsh to compare with}
runs=${1:-9}
k=${2:-10}
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache" CARSH_SERVER=${CARSH_SERVER:-off}
export CARSH_SERVER_DIR="$work/srv"
trap '"$carsh" server stop >/dev/null 2>&1; "$before" server stop >/dev/null 2>&1; rm -rf "$work"' EXIT

. "$top/bench/timing-lib.sh"
run_ms() { # COMMAND...: wall time of one run in ms, output discarded
	local t0 t1
	t0=$(now_ms)
	"$@" >/dev/null
	t1=$(now_ms)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

line="partition --no-progress --gpu none --threads 1 --sched cpu $top/tests/data/errors/partrows.xml y=discard"
for ((i = 0; i < k; i++)); do echo "$line"; done >"$work/k.csh"
# Warm PoCL's kernel cache and CarSh's, for both builds.
"$carsh" -T $line >/dev/null
"$before" -T $line >/dev/null
for b in new old; do : >"$work/$b.one"; : >"$work/$b.k"; done
for ((i = 0; i < runs; i++)); do
	# shellcheck disable=SC2086
	run_ms "$before" -T $line >>"$work/old.one"
	# shellcheck disable=SC2086
	run_ms "$carsh" -T $line >>"$work/new.one"
	run_ms "$before" -T "$work/k.csh" >>"$work/old.k"
	run_ms "$carsh" -T "$work/k.csh" >>"$work/new.k"
done
per() { awk -v t="$1" -v k="$k" 'BEGIN { printf "%.2f", t / k }'; }
echo "runs: $runs alternating; server: $CARSH_SERVER"
echo "one process:        before $(median <"$work/old.one") ms, now $(median <"$work/new.one") ms"
echo "$k in one shell, a run: before $(per "$(median <"$work/old.k")") ms, now $(per "$(median <"$work/new.k")") ms"
