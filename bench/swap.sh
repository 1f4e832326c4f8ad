#!/usr/bin/env bash
# Issue "Swap pairs": what the three swap methods of 004 §5.2 (Figure 35: copy host, copy
# device, swap) cost per iteration of a recursive kernel, for the IIR filter, Jacobi and
# LU examples (docs/swap.md), each at three sizes, all measured in one run on one device.
#
# For each example and size one carsh session loads the inputs into virtual buffers once
# and then runs, REPS times, interleaved: the executable with <Swap count="S"> for each
# method, and the same executable with S = 0 (one launch, no swap). Outputs are discarded,
# so nothing is read back. Each job runs under `time`, which reports, for that job:
#
#   kernel   the kernels' durations from OpenCL profiling events (S+1 launches)
#   swap     copy-device: the clEnqueueCopyBuffer commands' durations (events);
#            copy-host: the read and write commands' durations (events);
#            swap: the host time of the clSetKernelArg calls (there is no device command)
#   exec     the job's own wall time less device discovery, context creation and program
#            load (`time`'s "inside them" minus platform, context and build): buffers,
#            staging, the launch loop, release
#
# Columns, per iteration (medians over REPS):
#   kernel/it  = kernel / (S+1)        swap/it = swap / (S+1)      k+s/it = their sum
#   wall/it    = (exec(S) - exec(0)) / S: the marginal wall time of one more iteration,
#                launch and swap and every wait included; the fixed cost of a job cancels.
#                This is the figure that counts: on a GPU the device-side times miss the
#                host-side synchronisation that copy-host forces every iteration.
#   xswap      the method's k+s/it and wall/it divided by those of `swap` in the same run
#
# The bare reference, per example and size: bench/swap_bare.c, a hand-written host
# program, builds the same kernel with the same data and global size and times on the
# wall clock S+1 launches: with nothing between them ("bare": the cost of one launch of
# the kernel), with the pairs exchanged by clSetKernelArg ("rebind": a hand-written swap
# loop), and with that plus CarSh's timing of every launch ("events": an event per launch,
# its status and profiled start and end read every 256 launches). overhead = wall/it of
# CarSh's `swap` - bare: what a swap iteration in CarSh adds to a bare launch (target:
# within 10 us); rebind - bare is the swap's own share, events - rebind the timing's.
# Caveat: LU's bare loops never advance the step index (bare: no swap at all), so every
# launch does step 0, where the whole matrix is active; the kernel costs about the same
# at every step (kern/it against kernel/it shows it).
#
# The targets: swap <= copy-device <= copy-host (by wall/it) everywhere; on a GPU, IIR at
# the largest size: copy-host/swap >= 5 (wall/it); overhead <= 10 us.
#
#   bench/swap.sh                    (after `make` and `make check`, which builds swapref)
#
# Binaries: $CARSH (default carsh/carsh) and $SWAPREF (default tests/tools/swapref) under
# $BUILDDIR (default: the source tree) for out-of-tree builds; $CC, $OPENCL_CFLAGS and
# $OPENCL_LIBS (default -lOpenCL) compile swap_bare, or $SWAP_BARE names one already
# built. The device is carsh's default choice, the first GPU, else the first CPU
# (swap_bare picks the same; both names are printed).
# Environment: REPS (3), PREC (float or double), IIR_SIZES, JACOBI_SIZES, LU_SIZES, and the
# swap counts IIR_S and JACOBI_S (default: from OPS and MAXS, below). LU runs the larger
# of n-2 (the whole factorisation) and the count from OPS: at small n, n-2 iterations are
# too few to stand out of a job's fixed cost, and the steps past n-2 cost what a step
# costs (every work-item reads and writes its element; only the few arithmetic operations
# of the active sub-matrix are missing).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
swapref=${SWAPREF:-$build/tests/tools/swapref}
reps=${REPS:-3}
prec=${PREC:-float}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"

[ -x "$carsh" ] || { echo "swap.sh: no carsh at $carsh (set BUILDDIR or CARSH)" >&2; exit 1; }
[ -x "$swapref" ] || { echo "swap.sh: no swapref at $swapref (make check builds it)" >&2; exit 1; }
case $prec in
float) opts="" ;;
double) opts="-DUSE_DOUBLE" ;;
*) echo "swap.sh: PREC must be float or double" >&2; exit 1 ;;
esac
if [ -n "${SWAP_BARE:-}" ]; then
	cp "$SWAP_BARE" "$work/swap_bare"
else
	# shellcheck disable=SC2086 # OPENCL_CFLAGS and OPENCL_LIBS are word lists
	${CC:-cc} -O2 -o "$work/swap_bare" "$top/bench/swap_bare.c" ${OPENCL_CFLAGS:-} \
		${OPENCL_LIBS:--lOpenCL}
fi
read -r devtype devname < <("$work/swap_bare" --which)
# Swap counts for IIR and Jacobi: enough iterations that the loop, not the variation of a
# job's fixed cost, dominates: S = OPS / (operations per iteration), between 20 and MAXS,
# with OPS about what the device does in a few tenths of a second.
if [ "$devtype" = gpu ]; then
	ops=${OPS:-3e10} maxs=${MAXS:-10000}
else
	ops=${OPS:-3e8} maxs=${MAXS:-2000}
fi
swaps() { # OPERATIONS_PER_ITERATION
	awk -v o="$ops" -v w="$1" -v m="$maxs" \
		'BEGIN { s = int(o / w); print (s < 20 ? 20 : (s > m ? m : s)) }'
}
iir_sizes=${IIR_SIZES:-16384 131072 1048576}
jacobi_sizes=${JACOBI_SIZES:-256 1024 2048}
lu_sizes=${LU_SIZES:-128 512 1024}
methods="swap copy-device copy-host"
. "$top/bench/timing-lib.sh"

# exe FILE FLOWMODEL METHOD COUNT BINDINGS PAIRS
exe() {
	cat >"$1" <<EOF
<CarshExe>
  <FlowModel file="$top/flowmodels/$2"/>
$5
  <Swap count="$4" method="$3">
$6
  </Swap>
</CarshExe>
EOF
}

# measure EXAMPLE SIZE S SETUP BINDINGS PAIRS BARE_ARGS...: one session, REPS rounds, then
# the bare reference; appends rows to $work/rows.
measure() {
	local ex=$1 n=$2 s=$3 setup=$4 binds=$5 pairs=$6 script="" m r
	shift 6
	for m in $methods; do
		exe "$work/$m.exe.xml" "${ex}_$prec.xml" "$m" "$s" "$binds" "$pairs"
	done
	exe "$work/base.exe.xml" "${ex}_$prec.xml" swap 0 "$binds" "$pairs"
	: >"$work/labels"
	# A first job builds the program (binary cache) and lets PoCL compile for this work
	# size; it is not counted.
	script="$setup"$'\n'"time run $work/base.exe.xml"
	echo warmup >>"$work/labels"
	for ((r = 0; r < reps; r++)); do
		for m in $methods base; do
			script+=$'\n'"time run $work/$m.exe.xml"
			echo "$m" >>"$work/labels"
		done
	done
	if ! "$carsh" -c "$script" >/dev/null 2>"$work/time.txt"; then
		echo "swap.sh: $ex N=$n failed:" >&2
		cat "$work/time.txt" >&2
		exit 1
	fi
	# label exec kernel swap launches, one line per job; exec is the job's own time less
	# device discovery, context and program (whose variation would swamp a slope)
	awk '/^jobs/ { inside = $(NF - 3); $1 = $2 = $3 = ""; sub(/^ +/, "");
			sub(/; [0-9.]+ ms inside them$/, ""); dev = $0 }
	     /^platform/ { setup = $2 + $5 + $8 }
	     /^h2d/ { print inside - setup, $5, $10, substr($7, 2) }
	     END { print dev > "'"$work/device.txt"'" }' "$work/time.txt" |
		paste -d' ' "$work/labels" - >"$work/jobs"
	local base_exec
	base_exec=$(awk '$1 == "base" { print $2 }' "$work/jobs" | median)
	for m in $methods; do
		local exec kern swap
		exec=$(awk -v m="$m" '$1 == m { print $2 }' "$work/jobs" | median)
		kern=$(awk -v m="$m" '$1 == m { print $3 }' "$work/jobs" | median)
		swap=$(awk -v m="$m" '$1 == m { print $4 }' "$work/jobs" | median)
		awk -v ex="$ex" -v n="$n" -v s="$s" -v m="$m" -v i="$exec" -v b="$base_exec" \
			-v k="$kern" -v w="$swap" 'BEGIN {
			print ex, n, s, m, k * 1000 / (s + 1), w * 1000 / (s + 1),
			      (i - b) * 1000 / s }' >>"$work/rows"
	done
	"$work/swap_bare" "$top/kernels/$ex.cl" "$kernel" "$opts" "$global" $((s + 1)) "$@" |
		awk -v ex="$ex" -v n="$n" '{ print ex, n, $2, $4, $6, $8 }' >>"$work/bare"
}

t_start=$SECONDS
: >"$work/rows"
: >"$work/bare"
for n in $iir_sizes; do
	"$swapref" iir-gen "$n" 1 "$work/x.csv" "$work/a.csv" "$work/b.csv"
	kernel=iir global=$n
	measure iir "$n" "${IIR_S:-$(swaps $((32 * n)))}" \
		"virtbuf create x $prec $n; virtbuf fill x $work/x.csv
virtbuf create a $prec 16; virtbuf fill a $work/a.csv
virtbuf create b $prec 16; virtbuf fill b $work/b.csv" \
		"  <Param name=\"N\" value=\"$n\"/>
  <Input name=\"x\"><Buffer>x</Buffer></Input>
  <Input name=\"a\"><Buffer>a</Buffer></Input>
  <Input name=\"b\"><Buffer>b</Buffer></Input>
  <Input name=\"y\"><Fill value=\"0\"/></Input>
  <Output name=\"y_next\"><Discard/></Output>" \
		'    <SwapPair input="y" output="y_next"/>' \
		"file:$prec:$work/x.csv" "file:$prec:$work/a.csv" "file:$prec:$work/b.csv" \
		"fill:$prec:$n:0" "fill:$prec:$n:0" pair:3:4
done
for n in $jacobi_sizes; do
	"$swapref" jacobi-gen "$n" 1 "$work/A.csv" "$work/b.csv" "$work/xt.csv"
	kernel=jacobi global=$n
	measure jacobi "$n" "${JACOBI_S:-$(swaps $((n * n)))}" \
		"virtbuf create A $prec $((n * n)); virtbuf fill A $work/A.csv
virtbuf create b $prec $n; virtbuf fill b $work/b.csv" \
		"  <Param name=\"N\" value=\"$n\"/>
  <Input name=\"A\"><Buffer>A</Buffer></Input>
  <Input name=\"b\"><Buffer>b</Buffer></Input>
  <Input name=\"x\"><Fill value=\"0\"/></Input>
  <Input name=\"k\"><Fill value=\"0\"/></Input>
  <Output name=\"x_next\"><Discard/></Output>
  <Output name=\"k_next\"><Discard/></Output>
  <Output name=\"r\"><Discard/></Output>" \
		'    <SwapPair input="x" output="x_next"/>
    <SwapPair input="k" output="k_next"/>' \
		"file:$prec:$work/A.csv" "file:$prec:$work/b.csv" "fill:$prec:$n:0" "fill:int:1:0" \
		"fill:$prec:$n:0" "fill:int:1:0" "fill:$prec:$n:0" pair:2:4 pair:3:5
done
for n in $lu_sizes; do
	"$swapref" lu-gen "$n" 1 "$work/A.csv"
	kernel=lu_step global=$n,$n
	s=$(swaps $((n * n)))
	measure lu "$n" $((s > n - 2 ? s : n - 2)) \
		"virtbuf create A $prec $((n * n)); virtbuf fill A $work/A.csv" \
		"  <Param name=\"N\" value=\"$n\"/>
  <Input name=\"a\"><Buffer>A</Buffer></Input>
  <Input name=\"step\"><Fill value=\"0\"/></Input>
  <Output name=\"a_next\"><Discard/></Output>
  <Output name=\"step_next\"><Discard/></Output>" \
		'    <SwapPair input="a" output="a_next"/>
    <SwapPair input="step" output="step_next"/>' \
		"file:$prec:$work/A.csv" "fill:int:1:0" "fill:$prec:$((n * n)):0" "fill:int:1:0" \
		pair:0:2 pair:1:3
done

echo "device: $(cat "$work/device.txt") (swap_bare: $devname, $devtype)"
echo "precision $prec, medians of $reps runs; times per iteration in microseconds"
echo
printf '%-7s %8s %5s %-12s %10s %10s %10s %10s %7s %7s\n' example size S method kernel/it \
	swap/it k+s/it wall/it xswap xswap
printf '%-7s %8s %5s %-12s %10s %10s %10s %10s %7s %7s\n' "" "" "" "" "" "" "" "" "(k+s)" "(wall)"
awk '{ key = $1 " " $2; if ($4 == "swap") { ks[key] = $5 + $6; wl[key] = $7 }
       printf "%-7s %8s %5s %-12s %10.2f %10.2f %10.2f %10.2f %7.2f %7.2f\n", $1, $2, $3, $4,
	      $5, $6, $5 + $6, $7, ($5 + $6) / ks[key], $7 / wl[key] }' "$work/rows"
echo
echo "bare reference (bench/swap_bare.c, same kernel, data and launches) and the targets"
printf '%-7s %8s %9s %9s %9s %9s %9s %9s  %s\n' example size bare/it rebind/it events/it \
	kern/it overhead host/swap "swap <= copy-device <= copy-host (wall/it)"
awk 'NR == FNR { key = $1 " " $2; w[key, $4] = $7; next }
     { key = $1 " " $2; ovh = w[key, "swap"] - $3
       ok = (w[key, "swap"] <= w[key, "copy-device"] && w[key, "copy-device"] <= w[key, "copy-host"])
       printf "%-7s %8s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f  %s\n", $1, $2, $3, $4, $5, $6,
	      ovh, w[key, "copy-host"] / w[key, "swap"], ok ? "yes" : "NO" }' "$work/rows" "$work/bare"
echo
echo "overhead = wall/it(swap) - bare/it: target <= 10 us; host/swap = wall/it copy-host /"
echo "wall/it swap: target >= 5 for IIR at the largest size on a GPU."
echo "whole run: $((SECONDS - t_start)) s"
