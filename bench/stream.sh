#!/usr/bin/env bash
# Issue 37, streams of any length: VALUES CSV values (100,000,000 by default) piped through
# flowmodels/scale.xml in chunks (x=- y=-, no N), against awk '{print $1*2}' on the same
# stream. Prints, for each executor: whether the run completed, its wall time, its peak
# memory, and whether its output equals awk's (compared by checksum, so that neither output
# is kept on disk).
#
# The input is 1,000,000 distinct lines repeated: values (i mod 200000)/4 - 25000, exact in a
# float, whose doubles awk prints as carsh prints the floats (at most 6 digits). Peak memory
# is measured twice: /usr/bin/time's maximum resident set of the carsh and each process it
# waited for (the largest one), and the largest sum of the resident sets of carsh and all
# its descendants, read from /proc every 0.1 s. CARSH_SERVER=off keeps the job processes
# carsh's own children (a server's workers are not); past 64 MiB (four chunks) the stream runs
# in chunks by default.
#
#   bench/stream.sh [VALUES]      ($CARSH names the carsh, default the build's;
#                                  EXECS="process thread" the executors run)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
values=${1:-100000000}
execs=${EXECS:-process thread}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/timing-lib.sh"
cd "$work"

awk 'BEGIN { for (i = 1; i <= 1000000; i++) printf "%.10g\n", (i % 200000) / 4 - 25000 }' >base.csv
reps=$((values / 1000000))
[ "$reps" -ge 1 ] || { echo "stream.sh: VALUES must be at least 1000000" >&2; exit 2; }
feed() { for ((r = 0; r < reps; r++)); do cat base.csv; done; }
bytes=$(($(wc -c <base.csv) * reps))
echo "stream.sh: $((reps * 1000000)) values, $bytes bytes of CSV; $(nproc) cores"

# The largest sum of the resident sets (KiB) of pid $1 and its descendants, until it ends.
peak_tree() {
	local root=$1 peak=0 sum
	while kill -0 "$root" 2>/dev/null; do
		sum=$(ps -e -o pid=,ppid=,rss= | awk -v r="$root" '
			{ parent[$1] = $2; rss[$1] = $3 }
			END { for (p in rss) { q = p; while (q != "" && q != r && q in parent && q != 1) q = parent[q]
			      if (q == r) s += rss[p] } print s + 0 }')
		[ "$sum" -gt "$peak" ] && peak=$sum
		sleep 0.1
	done
	echo "$peak"
}

t0=$(now_ms)
want=$(feed | awk '{print $1*2}' | md5sum | cut -d' ' -f1)
awk_ms=$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { printf "%.0f", b - a }')
echo "awk '{print \$1*2}': $awk_ms ms, md5 $want"

for ex in $execs; do
	flag=
	[ "$ex" = thread ] && flag=-T
	rm -f got.md5 time.txt
	t0=$(now_ms)
	feed | CARSH_SERVER=off /usr/bin/time -v -o time.txt \
		"$carsh" $flag run "$top/flowmodels/scale.xml" x=- y=- | md5sum | cut -d' ' -f1 >got.md5 &
	job=$!
	# The carsh under /usr/bin/time, once it started.
	pid=
	while [ -z "$pid" ] && kill -0 "$job" 2>/dev/null; do
		pid=$(pgrep -n -f "^$carsh ${flag:+$flag }run $top/flowmodels/scale.xml x=- y=-" || true)
		[ -n "$pid" ] || sleep 0.05
	done
	tree=0
	[ -n "$pid" ] && tree=$(peak_tree "$pid")
	status=0
	wait "$job" || status=$?
	ms=$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { printf "%.0f", b - a }')
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' time.txt)
	exit_status=$(awk -F': ' '/Exit status/ { print $2 }' time.txt)
	got=$(cat got.md5)
	printf '%-8s completed: %s (exit %s)  wall %s ms (awk %s ms, carsh/awk %.2f)  peak RSS %s MiB (one process), %s MiB (carsh and its children together)  output equal to awk: %s\n' \
		"$ex" "$([ "$exit_status" = 0 ] && echo yes || echo no)" "$exit_status" "$ms" "$awk_ms" \
		"$(awk -v a="$ms" -v b="$awk_ms" 'BEGIN { print a / b }')" \
		"$((rss / 1024))" "$((tree / 1024))" "$([ "$got" = "$want" ] && echo yes || echo "no ($got)")"
	[ "$status" = 0 ] || echo "$ex: the pipeline's status $status"
done
