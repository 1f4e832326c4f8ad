#!/bin/sh
# Warm workers (exec/workers.h, docs/executors.md): process-executor jobs run in worker
# processes that keep their OpenCL state from one job to the next. A second job in a shell
# finds its device open; a worker that a kernel kills is replaced and the next job runs; a
# worker killed while idle is not lent again; a job's output pipe ends with the job, not
# with the worker; no worker outlives its shell; CARSH_WORKERS=fresh forks a process per job
# as before. The test polls for what it waits for: nothing depends on timing.
. "$TOP_SRCDIR/tests/shell/lib.sh"
# These are checks of a shell's own pool (CARSH_SERVER=off): workers as the shell's children.
# The server's pool (its workers are the server's children) is tests/shell/server.sh's.
export CARSH_SERVER=off
cd "$T" || exit 1

if ! process_executor; then
	echo "skip: warm workers serve the process executor"
	finish
fi

SCALE="$FM/scale.xml"
seq 1 8 >x.csv
"$REF" scale 2 x.csv >want.csv

# ---- a second job finds its device open ----
# `time` reports discovery and context creation; a warm worker has done both already.
printf 'time run %s x=x.csv y=discard N=8\ntime run %s x=x.csv y=out.csv N=8\n' "$SCALE" "$SCALE" |
	"$CARSH" 2>time.txt
platform_lines() { grep '^platform' time.txt; }
[ "$(platform_lines | wc -l)" = 2 ] && platform_lines | tail -1 | grep -q '^platform  *0\.000 ms  context 0\.000 ms' &&
	pass "the second job of a shell runs in a worker whose device is open (platform and context 0 ms)" ||
	fail "warm: $(cat time.txt)"
same_file out.csv want.csv "the warm worker's output"
printf 'time run %s x=x.csv y=discard N=8\ntime run %s x=x.csv y=out.csv N=8\n' "$SCALE" "$SCALE" |
	CARSH_WORKERS=fresh "$CARSH" 2>time.txt
platform_lines | tail -1 | grep -q '^platform  *0\.000 ms  context 0\.000 ms' &&
	fail "CARSH_WORKERS=fresh: the second job did not start afresh: $(cat time.txt)" ||
	pass "CARSH_WORKERS=fresh: every job starts its own process"
same_file out.csv want.csv "a fresh process's output"
expect 0 "carsh: CARSH_WORKERS='lukewarm' is not warm or fresh; using warm" \
	env CARSH_WORKERS=lukewarm "$CARSH" run "$SCALE" x=x.csv y=discard N=8

# ---- a kernel that kills its worker ----
printf 'run %s x=x.csv y=discard\nrun %s x=x.csv y=out.csv N=8\necho still here\n' \
	"$DATA/fm/crash.xml" "$SCALE" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -q "killed by SIGSEGV (kernel 'crash'" "$ERR" &&
	pass "a crash in a worker is reported as a job killed by SIGSEGV" || fail "crash: $(cat "$ERR")"
grep -q '^still here$' "$OUT" && same_file out.csv want.csv "the job after a crash runs in a fresh worker"

# ---- workers, seen from outside ----
# The shell's children other than a job's: its workers.
workers_of() { pgrep -P "$1"; }
has_workers() { [ -n "$(workers_of "$CPID")" ]; }
# Gone, or a zombie not reaped yet (the shell reaps a dead worker when it next needs one).
# A zombie whose other threads still end: its leader shows Z before the process can be
# reaped and its descriptors close (under ASan a killed worker's threads took long enough
# for the shell to hand the next job to the dying worker's open socket: "killed by SIGKILL").
gone() {
	[ ! -e "/proc/$1" ] || { [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -c1)" = Z ] &&
		[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -le 1 ]; }
}
none_left() { for p in $1; do gone "$p" || return 1; done; return 0; }

# A worker killed while idle is not lent again: the next job gets a new one. Idle: the
# first job has ended (the shell has printed what follows it).
start_carsh -i
send "run $SCALE x=$T/x.csv y=discard N=8"
send "echo first ended"
first_ended() { grep -q '^first ended$' "$T/carsh.out"; }
wait_until "the first job to end" first_ended
wait_until "a worker to exist" has_workers
first=$(workers_of "$CPID")
kill -KILL $first
wait_until "the killed worker to end" none_left "$first"
send "run $SCALE x=$T/x.csv y=$T/out2.csv N=8"
send "echo done"
stop_carsh
if [ "$CSTATUS" = 0 ] && grep -q '^done$' "$T/carsh.out" && [ -f out2.csv ]; then
	same_file out2.csv want.csv "after its idle worker was killed, the next job ran in a new one"
else
	fail "after a killed idle worker ($first): status $CSTATUS, output $(cat "$T/carsh.out"), errors $(cat "$T/carsh.err")"
fi

# A job sent at once after its idle worker was killed runs: the shell either sees the worker
# gone, or hands the job to the dying worker, which never says it took it, and then runs it
# in a new one (a job lost that way had been reported "killed by SIGKILL").
kill_idle() {
	wait_until "a worker to exist" has_workers
	kill -KILL $(workers_of "$CPID")
}
jobs_after_kills "$SCALE" kill_idle "its idle worker was killed"

# No worker outlives its shell: neither one that ends normally nor one killed by SIGKILL.
start_carsh -i
send "run $SCALE x=$T/x.csv y=discard N=8"
wait_until "a worker to exist" has_workers
left=$(workers_of "$CPID")
stop_carsh
wait_until "the workers of a shell that exited to end" none_left "$left" &&
	pass "a shell's workers end with it"
start_carsh -i
send "run $SCALE x=$T/x.csv y=discard N=8"
wait_until "a worker to exist" has_workers
left=$(workers_of "$CPID")
kill -KILL "$CPID"
wait "$CPID" 2>/dev/null
wait_until "the workers of a shell killed by SIGKILL to end" none_left "$left" &&
	pass "a shell killed by SIGKILL leaves no worker behind"

# A worker forked for a background batch, whose thread ends with the batch, stays in the
# pool and serves the next job (PR_SET_PDEATHSIG follows the thread that forked).
printf '<CarshBat><Exec><CarshExe><FlowModel file="%s"/><Param name="N" value="8"/>
<Input name="x"><Fill value="1"/></Input><Output name="y"><Discard/></Output>
</CarshExe></Exec></CarshBat>\n' "$SCALE" >bg.bat.xml
start_carsh -i
send "run $T/bg.bat.xml &"
send "sync"
send "time run $SCALE x=$T/x.csv y=discard N=8"
send "echo done"
stop_carsh
grep -q '^done$' "$T/carsh.out" &&
	grep '^platform' "$T/carsh.err" | grep -q '^platform  *0\.000 ms  context 0\.000 ms' &&
	pass "a worker forked for a background batch serves the next job after the batch ended" ||
	fail "after a background batch: $(cat "$T/carsh.err")"

# A job's output pipe ends with the job, while the shell and its worker go on: a worker
# holds nothing of the job's between jobs.
mkfifo jobout
cat jobout >got.csv &
reader=$!
start_carsh -i
send "run $SCALE x=$T/x.csv y=- N=8 > $T/jobout"
if wait_until "the reader to see the end of the job's output" none_left "$reader"; then
	same_file got.csv want.csv "a reader of a job's output pipe sees its end when the job ends"
else
	kill "$reader" 2>/dev/null
fi
send "echo done"
stop_carsh

finish
