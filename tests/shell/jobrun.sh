#!/bin/sh
# A window's jobs in runs (docs/executors.md "The wire"): several jobs go to the worker in
# one write, the first with the job's descriptors, the others marked as following it. The
# window's rules hold inside a run: a chain's values are those of jobs run one by one, a job
# that crashes in the middle of a run is the one named and what only its worker held is lost,
# a fill between the jobs of a run is seen by the job after it. CARSH_JOB_RUN=N makes every
# run N jobs long (or shorter where the shell waits for the worker), so that these are runs.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
if ! process_executor; then
	echo "skip: runs of jobs are the process executor's"
	exit 77
fi
mkdir data && cp -r "$DATA/window" "$DATA/fm" "$DATA/bad" data/ || exit 1
W="$T/data/window"
seq 1 8 >x.csv
MAKE="virtbuf create p float 8; virtbuf create q float 8; virtbuf create w float 8
virtbuf create v float 8; virtbuf create z float 8; virtbuf fill p x.csv; virtbuf fill z --value 0"
DUMPS="virtbuf dump p --columns 8; virtbuf dump q --columns 8; virtbuf dump w --columns 8
virtbuf dump v --columns 8; virtbuf dump z --columns 8"
# row A:B is A*x + B for x = 1..8, computed apart from carsh.
row() {
	awk -v f="$1" 'BEGIN { split(f, c, ":")
		for (x = 1; x <= 8; x++) printf "%s%g", (x > 1 ? "," : ""), c[1] * x + c[2]
		print "" }'
}

# ---- a chain of 100 jobs in runs of 8, and in runs of 3 with the launches queued ----
for how in "CARSH_JOB_RUN=8" "CARSH_JOB_RUN=3 CARSH_QUEUE_CPU=1"; do
	expect 0 "" env $how "$CARSH" -c "$MAKE
run $W/chain.bat.xml STEPS=100
$DUMPS"
	{ row 1:100; row 1:99; row 0:0; row 0:0; row 100:4950; } >want
	same_file "$OUT" want "$how: a chain of a hundred jobs: p = x + 100, z = 100x + 4950"
done

# ---- the runs are real: the shell sends the 100 jobs in at most 100/8 + a few writes ----
# Each job message starts with the frame's magic and WORKER_JOB (1): counted in the shell's
# sendmsg calls (its main thread sends them; its workers are not traced).
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	CARSH_JOB_RUN=8 strace -o trace.txt -e trace=sendmsg -s 8 "$CARSH" -c "$MAKE
run $W/chain.bat.xml STEPS=100" >"$OUT" 2>"$ERR"
	n=$(grep -c 'CSW1\\1\\0\\0\\0' trace.txt)
	[ "$n" -ge 13 ] && [ "$n" -le 16 ] && pass "100 jobs in runs of 8: $n writes" ||
		fail "100 jobs in runs of 8: $n writes of job messages (want 13-16)"
else
	echo "skip: no strace: the count of writes is not checked"
fi

# ---- the third job of a run kills its worker ----
# crash.bat.xml: q = p + 1, w = q + 1, the crash, then two jobs: with runs of 4 the first
# four go in one write. On a CPU device the crash kills the worker in its job, which is
# named; on a GPU the fault comes back on the queue at the next wait (crash_form, lib.sh):
# the first reader that waits is told, and every buffer the worker held alone is lost.
crash_form
printf '%s\n' "$MAKE" "run $W/crash.bat.xml" 'echo status $?' "$DUMPS" |
	CARSH_JOB_RUN=4 "$CARSH" -i >"$OUT" 2>"$ERR"
if [ "$CRASH_FORM" = queue ]; then
	for b in q w v z; do
		lost_in $b "$ERR" &&
			pass "after a queued crash in a run, $b (written on the worker only) is lost, never stale" ||
			fail "queued crash, lost $b: $(cat "$ERR")"
	done
	{ row 1:0; } >want
else
	grep -qF "carsh: $W/crash.bat.xml:6: <Exec file=\"$W/crash.exe.xml\">: killed by SIGSEGV (kernel 'crash' on " "$ERR" &&
		grep -q '^status 139$' "$OUT" &&
		pass "a crash in the third job of a run names that job's step, status 139" ||
		fail "crash in a run: $(cat "$ERR" "$OUT")"
	for b in q w z; do
		grep -qF "carsh: virtbuf dump $b: virtual buffer '$b' was lost: its newest data was on the device of a worker that ended (killed by SIGSEGV (kernel 'crash' on " "$ERR" &&
			pass "after the crash, $b (written by the run's first jobs, on the worker only) is lost, never stale" ||
			fail "lost $b: $(cat "$ERR")"
	done
	{ row 1:0; row 0:0; } >want
fi
grep -E '^[0-9,]+$' "$OUT" >got
same_file got want "after the crash: p (only read) is whole, v never written (a CPU) or lost (a GPU)"

# ---- a job of a run fails: the jobs after it in the run do not run ----
printf '%s\n' "$MAKE" "run $W/fail.bat.xml" 'echo status $?' "$DUMPS" |
	CARSH_JOB_RUN=5 "$CARSH" -i >"$OUT" 2>"$ERR"
grep -qF "carsh: $W/fail.bat.xml:6: <Exec file=\"$W/bad.exe.xml\">: " "$ERR" &&
	grep -q '^status 1$' "$OUT" && ! grep -q "was lost" "$ERR" &&
	pass "a failed job in a run names its own step, status 1" || fail "failed job: $(cat "$ERR" "$OUT")"
grep -E '^[0-9,]+$' "$OUT" >got
{ row 1:0; row 1:1; row 1:2; row 0:0; row 2:1; } >want
same_file got want "a failed job in a run: the earlier jobs' results are kept, the later jobs did not run"

# ---- a value fill of a buffer that jobs in flight take by its value ----
# z is 7 repeated when the first job is sent: it is filled on the worker's device from the
# value in its message, so the fill of 100 goes between the jobs without waiting for it, and
# each job sees its own value: q = 8, v = 101, w = 7 + 100 (docs/executors.md "The wire").
for how in "CARSH_JOB_RUN=1" "CARSH_JOB_RUN=4 CARSH_QUEUE_CPU=1"; do
	expect 0 "" env $how "$CARSH" -c "$MAKE
run $W/fillvalue.bat.xml
$DUMPS"
	{ row 1:0; row 0:8; row 0:107; row 0:101; row 0:100; } >want
	same_file "$OUT" want "$how: a value fill between jobs that read the value: q = 8, v = 101, w = 107"
done

# ---- a fill between the jobs of a run, the launches queued ----
# z is on the worker's device only; the fill goes between the jobs not yet sent, and the
# job after it reads the filled 100, never the device copy (a fill overtaken by, or
# overtaking, queued launches would give z = w or z = 100 + q).
expect 0 "" env CARSH_JOB_RUN=8 CARSH_QUEUE_CPU=1 "$CARSH" -c "$MAKE
run $W/fill.bat.xml
$DUMPS"
{ row 1:0; row 1:1; row 1:2; row 1:3; row 1:102; } >want
same_file "$OUT" want "a fill between a run's jobs, launches queued: z = 100 + w = x + 102"
# ---- plans kept, never stale: the shell's (runner/plancache.h, lent to a window's jobs)
# and the worker's decoded ones (exec/planmemo.h, kept by their bytes) ----
# One interactive carsh, one warm worker: a chain y = x + k (swapping p and q), run again
# with another K, with the kernel edited, and with another buffer bound. Each run must give
# what its own plan says. From x = 1..8: K=1, two passes: p = x + 2, z = x + (x + 1) = 2x + 1;
# K=5: p = x + 12, z += (x + 2) + (x + 7): 4x + 10; kernel y = x + 2k, K=5: p = x + 32,
# z += (x + 12) + (x + 22): 6x + 44; then w bound instead of z, one pass: w = p = x + 32
# (p = x + 42 after it). Then z and w swapped, and the same step (its plan and the shell's
# encoding of it kept, exec/planenc.h) run again: it must add into the object z names now
# (w's, x + 32): z = x + 32 + (x + 42) + (x + 52) = 3x + 126, w (z's before) stays 6x + 44.
cat >addk.xml <<'XML'
<?xml version="1.0"?>
<FlowModel name="addk">
  <Param name="N" value="8"/>
  <Param name="K" value="1"/>
  <Program>
    <Source><![CDATA[
      __kernel void addk(__global const float *x, __global float *y, __global float *z,
                         float k)
      {
              size_t i = get_global_id(0);
              y[i] = x[i] + k;
              z[i] = z[i] + x[i];
      }
    ]]></Source>
    <Kernel name="addk"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="x" type="float" count="N"/>
    <Output name="y" type="float" count="N"/>
    <InOut  name="z" type="float" count="N"/>
    <Constant name="k" type="float" value="K"/>
  </Arguments>
</FlowModel>
XML
for acc in z w; do
	cat >"k$acc.exe.xml" <<XML
<?xml version="1.0"?>
<CarshExe>
  <FlowModel file="addk.xml"/>
  <Input name="x"><Buffer>p</Buffer></Input>
  <Output name="y"><Buffer>q</Buffer></Output>
  <InOut name="z"><Buffer>$acc</Buffer></InOut>
</CarshExe>
XML
	cat >"k$acc.bat.xml" <<XML
<?xml version="1.0"?>
<CarshBat>
  <Param name="STEPS" value="2"/>
  <Repeat count="STEPS">
    <Exec file="$T/k$acc.exe.xml"/>
    <Virtbuf op="swap" name="p" with="q"/>
  </Repeat>
</CarshBat>
XML
done
start_carsh -i
send "$MAKE"
send "run $T/kz.bat.xml K=1"
send "virtbuf dump p --columns 8; virtbuf dump z --columns 8"
send "run $T/kz.bat.xml K=5"
send "virtbuf dump p --columns 8; virtbuf dump z --columns 8; echo edit"
wait_until "the second run" grep -q '^edit$' "$T/carsh.out"
sed -i 's|y\[i\] = x\[i\] + k;|y[i] = x[i] + 2.0f * k;|' addk.xml
send "run $T/kz.bat.xml K=5"
send "virtbuf dump p --columns 8; virtbuf dump z --columns 8"
send "run $T/kw.bat.xml K=5 STEPS=1"
send "virtbuf dump w --columns 8"
send "virtbuf swap z w"
send "run $T/kz.bat.xml K=5"
send "virtbuf dump z --columns 8; virtbuf dump w --columns 8"
stop_carsh
grep -E '^[0-9,]+$' "$T/carsh.out" >got
{ row 1:2; row 2:1; row 1:12; row 4:10; row 1:32; row 6:44; row 1:32; row 3:126; row 6:44; } >want
[ "$CSTATUS" = 0 ] && same_file got want "kept plans: a new K, an edited kernel, another buffer bound, a swapped buffer are each seen" ||
	fail "kept plans: status $CSTATUS, $(cat "$T/carsh.err")"

finish
