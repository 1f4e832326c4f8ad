#!/bin/sh
# A window's jobs queued as on a GPU (CARSH_QUEUE_CPU=1 lets a job on the CPU device return
# with its kernel queued; CARSH_FEEDER=on would hand launches to the device's feeder, which
# a worker does not use: docs/executors.md, "The wire"): a value argument changed between
# two jobs of the same kernel, a buffer bound in another place, and a kernel edited between
# two batches in one session are each seen.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
if ! process_executor; then
	echo "skip: windows of jobs are the process executor's"
	exit 77
fi
CARSH_QUEUE_CPU=1 CARSH_FEEDER=on
export CARSH_QUEUE_CPU CARSH_FEEDER
# y = a * x + b, a a Constant (a value argument), b written in the kernel's text.
kernel() { # B
	cat >axb.xml <<EOF
<?xml version="1.0"?>
<FlowModel name="axb">
  <Param name="N" value="8"/>
  <Param name="A" value="1"/>
  <Program>
    <Source><![CDATA[
      __kernel void axb(const float a, __global const float *x, __global float *y)
      {
              size_t i = get_global_id(0);
              y[i] = a * x[i] + $1.0f;
      }
    ]]></Source>
    <Kernel name="axb"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Constant name="a" type="float" value="A"/>
    <Input  name="x" type="float" count="N"/>
    <Output name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
EOF
}
kernel 0
# Four jobs of one kernel in one batch: the value a changes from job to job, and the
# buffers move: x -> p (a = 2), p -> q (a = 3), q -> r (a = 3 again), x -> s (a = 5).
cat >steps.bat.xml <<EOF
<?xml version="1.0"?>
<CarshBat>
  <Command>run $T/axb.xml x=buffer:x y=buffer:p A=2</Command>
  <Command>run $T/axb.xml x=buffer:p y=buffer:q A=3</Command>
  <Command>run $T/axb.xml x=buffer:q y=buffer:r A=3</Command>
  <Command>run $T/axb.xml x=buffer:x y=buffer:s A=5</Command>
</CarshBat>
EOF
seq 1 8 >x.csv
MAKE="virtbuf create x float 8; virtbuf create p float 8; virtbuf create q float 8
virtbuf create r float 8; virtbuf create s float 8; virtbuf fill x x.csv"
DUMPS="virtbuf dump p --columns 8; virtbuf dump q --columns 8; virtbuf dump r --columns 8
virtbuf dump s --columns 8"
# The expected rows, computed apart from carsh: row A:B is A*x + B for x = 1..8.
row() {
	awk -v f="$1" 'BEGIN { split(f, c, ":")
		for (x = 1; x <= 8; x++) printf "%s%g", (x > 1 ? "," : ""), c[1] * x + c[2]
		print "" }'
}
# p = 2x, q = 3p = 6x, r = 3q = 18x, s = 5x; after the edit (+ 100 in the kernel):
# p = 2x + 100, q = 3p + 100 = 6x + 400, r = 3q + 100 = 18x + 1300, s = 5x + 100.
printf '%s\n' "$MAKE" "run $T/steps.bat.xml" "$DUMPS" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -E '^[0-9,]+$' "$OUT" >got
{ row 2:0; row 6:0; row 18:0; row 5:0; } >want
same_file got want "a value argument changed and buffers rebound between a window's jobs of one kernel are seen"
[ ! -s "$ERR" ] || fail "stderr: $(cat "$ERR")"

# One session: the batch, then the kernel edited on disk, then the batch again.
start_carsh -i
send "$(echo "$MAKE" | tr '\n' ';')"
send "run $T/steps.bat.xml"
send "$(echo "$DUMPS" | tr '\n' ';')"
send "echo first done"
wait_until "the first batch" grep -q '^first done$' "$T/carsh.out"
kernel 100
send "run $T/steps.bat.xml"
send "$(echo "$DUMPS" | tr '\n' ';')"
stop_carsh
grep -E '^[0-9,]+$' "$T/carsh.out" >got
{ row 2:0; row 6:0; row 18:0; row 5:0; row 2:100; row 6:400; row 18:1300; row 5:100; } >want
same_file got want "a kernel edited between two batches of one session is the one that runs"
[ "$CSTATUS" = 0 ] && [ ! -s "$T/carsh.err" ] && pass "both batches succeed" ||
	fail "status $CSTATUS: $(cat "$T/carsh.err")"
finish
