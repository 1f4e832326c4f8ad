#!/usr/bin/env bash
# Serialized vs PEA-ST pipelined execution of the FFT filter graph (004 §4.3.7, Table 5):
# batches/graphs/fft-filter.xml, 13 flow-models, over a stream of ITEMS pictures, for
# N = 128 ... 1024. Both runs use the same executables, buffers and data; --serial runs
# them one after another, item after item, the default runs PEA-ST's startup once and its
# repeat batch per item, the flow-models of a stage at once (docs/graphs.md).
#
#   bench/graph.sh [--device cpu|gpu] [--items M] [--runs R] [--threads] [SIZES...]
#
#   --device   carsh's device choice (CARSH_DEVICE); default: carsh's own (first GPU, else
#              the CPU)
#   --items    pictures per run (default 8; at least 7, so that the last repeat stage runs
#              all seven of its flow-models)
#   --runs     timed runs per size and mode after a warm-up run (default 1; medians)
#   --threads  the thread executor (carsh -T) instead of a process per flow-model
#
# Binaries: $CARSH (default carsh/carsh) and $FFTREF (default tests/tools/fftref) under
# $BUILDDIR (default: the source tree). With the defaults a run took 2.8 minutes on the
# H100 machine's 16-core CPU, 4.4 on its GPU, and about 6 on the 2-core development VM.
#
# Columns, per size (ms, medians):
#
#   serial/item   --serial: the 13 flow-models of one picture one after another
#   repeat        pipelined: one pass of the repeat batch while the pipeline is full, which
#                 is the time per result (004: "the actual execution time per final result
#                 equals the elapsed time of the repeat batch")
#   startup       pipelined: the startup batch, once
#   serial, pipelined   the whole run of ITEMS pictures, start-up and drain included
#   speedup/result  serial/item / repeat (what 004 Table 5 calls the speedup)
#   speedup/run     serial / pipelined, for the whole stream
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
items=8
runs=1
exec_opt=()
sizes=()
while [ $# -gt 0 ]; do
	case $1 in
	--device) export CARSH_DEVICE=$2; shift 2 ;;
	--device=*) export CARSH_DEVICE=${1#*=}; shift ;;
	--items) items=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--threads) exec_opt=(-T); shift ;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	-*) echo "graph.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) sizes+=("$1"); shift ;;
	esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(128 256 512 1024)
if [ "$items" -lt 7 ]; then
	echo "graph.sh: --items $items: at least 7, or the pipeline is never full" >&2
	exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
graph=$top/batches/graphs/fft-filter.xml

. "$top/bench/timing-lib.sh"

# run N ITEMS MODE...: one run; prints the runner's --report line.
run() {
	local n=$1 count=$2
	shift 2
	"$carsh" "${exec_opt[@]}" "$graph" --items "$count" --report "$@" N="$n" CUT=$((n / 8)) \
		re="$work/pic$n-{i}.pgm" re_next=discard im_next=discard 2>"$work/err" >/dev/null || {
		echo "graph.sh: the graph failed for N=$n $*:" >&2
		cat "$work/err" >&2
		exit 1
	}
	grep '^graph fft-filter:' "$work/err"
}

# field TEXT REGEX: the number the regex's group catches ("startup [0-9]+ steps ([0-9.]+) ms").
field() { sed -E -n "s/.*$2.*/\1/p" <<<"$1"; }

"$carsh" -c devices >"$work/devices.txt" 2>&1 || true
printf '%6s %12s %9s %9s %10s %10s %15s %12s   (ms, median of %d runs, %d pictures)\n' \
	N serial/item repeat startup serial pipelined speedup/result speedup/run "$runs" "$items"
for n in "${sizes[@]}"; do
	"$fftref" picture "$n" "$work/pic$n.pgm"
	for ((i = 0; i < items; i++)); do
		ln -sf "$work/pic$n.pgm" "$work/pic$n-$i.pgm"
	done
	run "$n" 1 >/dev/null # the warm-up: program binaries and PoCL's kernels for this size
	: >"$work/s.txt"
	: >"$work/p.txt"
	for ((r = 0; r < runs; r++)); do
		s=$(run "$n" "$items" --serial)
		p=$(run "$n" "$items")
		echo "$(field "$s" '; ([0-9.]+) ms per item') $(field "$s" 'total ([0-9.]+) ms')" >>"$work/s.txt"
		echo "$(field "$p" 'passes ([0-9.]+) ms each') $(field "$p" 'startup [0-9]+ steps ([0-9.]+) ms')" \
			"$(field "$p" 'total ([0-9.]+) ms')" >>"$work/p.txt"
	done
	per_item=$(cut -d' ' -f1 "$work/s.txt" | median)
	s_total=$(cut -d' ' -f2 "$work/s.txt" | median)
	repeat=$(cut -d' ' -f1 "$work/p.txt" | median)
	startup=$(cut -d' ' -f2 "$work/p.txt" | median)
	p_total=$(cut -d' ' -f3 "$work/p.txt" | median)
	printf '%6s %12.1f %9.1f %9.1f %10.1f %10.1f %15.2f %12.2f\n' "$n" "$per_item" "$repeat" \
		"$startup" "$s_total" "$p_total" "$(awk -v a="$per_item" -v b="$repeat" 'BEGIN { print a / b }')" \
		"$(awk -v a="$s_total" -v b="$p_total" 'BEGIN { print a / b }')"
done
echo "carsh ${exec_opt[*]:-(process executor)}, CARSH_DEVICE=${CARSH_DEVICE:-unset}; $(nproc) CPUs"
echo "devices ('carsh -c devices'):"
sed 's/^/  /' "$work/devices.txt"
