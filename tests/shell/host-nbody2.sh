#!/bin/sh
# bench/host_nbody2.c, the hand-written N-body over two devices (bench/twogpu.sh's
# reference): on two PoCL devices (POCL_DEVICES="basic basic") its positions after 3 steps,
# each device computing its half, equal the C reference's exactly; it prints both times and
# their ratio; its errors.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
H="$TOP_BUILDDIR/bench/host_nbody2"
POCL_DEVICES="basic basic"
export POCL_DEVICES
if [ "$("$CARSH" -c devices | grep -c ' cpu ')" -ne 2 ]; then
	echo "POCL_DEVICES='$POCL_DEVICES' gives no two devices here: skipped"
	exit 77
fi

mkdir -p data ref
"$TOP_BUILDDIR/tests/tools/partref" nbody-gen 300 5 data
cp data/pos.csv data/vel.csv ref/
"$TOP_BUILDDIR/tests/tools/partref" nbody 300 3 0.001 0.0001 ref
K="$TOP_SRCDIR/kernels/part_nbody.cl"
# grep_out PATTERN LABEL: standard output has a line matching the pattern.
grep_out() {
	if grep -q -- "$1" "$OUT"; then pass "$2"; else fail "$2: no line '$1' in $(cat "$OUT")"; fi
}
expect 0 "" "$H" 300 3 3 "$K" 0,1 data
close_to data/pos_out.csv ref/pos_ref.csv 0 "both halves' positions equal the C reference's"
grep_out '^1 device: [0-9.]* ms per step (median of 3 runs of 3 steps, N 300)$' "1 device timed"
grep_out '^2 devices: [0-9.]* ms per step (median of 3 runs of 3 steps, N 300)$' "2 devices timed"
grep_out '^ratio 1 device / 2 devices: [0-9.]*$' "their ratio"

expect 1 "host_nbody2: two different device indices wanted, not 0,0" "$H" 300 3 1 "$K" 0,0
expect 2 "usage: host_nbody2 N STEPS RUNS KERNEL.cl [DEV0,DEV1] [DIR]" "$H" 300 3
finish
