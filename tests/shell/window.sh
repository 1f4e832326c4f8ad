#!/bin/sh
# A batch's jobs in flight (docs/executors.md "What moves when"): consecutive jobs for one
# warm worker are sent without waiting for each answer and collected where the batch needs
# them. A chain's results are those of jobs run one by one; a job that fails or crashes in
# the middle is the one named, the jobs after it do not run, and what the earlier ones left
# only on the dead worker is lost, its readers told; a host reader, a background job and an
# until= condition in the middle of a window see current data; a fill goes between its jobs
# and is undone with them; a reader of its output sees the end when its last job has ended;
# Ctrl-C stops the job that runs, and the ones after it do not run.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
if ! process_executor; then
	echo "skip: windows of jobs are the process executor's"
	exit 77
fi
# A copy: the batches' dumps go beside them.
mkdir data && cp -r "$DATA/window" "$DATA/fm" "$DATA/bad" data/ || exit 1
W="$T/data/window"
seq 1 8 >x.csv
MAKE="virtbuf create p float 8; virtbuf create q float 8; virtbuf create w float 8
virtbuf create v float 8; virtbuf create z float 8; virtbuf create u float 8
virtbuf create t float 8; virtbuf fill p x.csv; virtbuf fill z --value 0"
DUMPS="virtbuf dump p --columns 8; virtbuf dump q --columns 8; virtbuf dump w --columns 8
virtbuf dump v --columns 8; virtbuf dump z --columns 8"
# Every row of x = 1..8 through awk: the expected values, computed apart from carsh.
# row A:B is A*x + B.
row() {
	awk -v f="$1" 'BEGIN { split(f, c, ":")
		for (x = 1; x <= 8; x++) printf "%s%g", (x > 1 ? "," : ""), c[1] * x + c[2]
		print "" }'
}

# ---- a chain of six jobs: p = x + 6, z = sum of p over the passes = 6x + 15 ----
expect 0 "" "$CARSH" -c "$MAKE
run $W/chain.bat.xml
$DUMPS"
{ row 1:6; row 1:5; row 0:0; row 0:0; row 6:15; } >want
same_file "$OUT" want "a chain of six jobs in one window: p = x + 6, q = x + 5, z = 6x + 15"

# ---- a chain longer than a window: the oldest answers are read as it goes on ----
# (A worker whose answers fill its socket stops reading jobs: without that, a shell that
# only sent would wait for ever.)
expect 0 "" timeout 300 "$CARSH" -c "$MAKE
run $W/chain.bat.xml STEPS=100
$DUMPS"
{ row 1:100; row 1:99; row 0:0; row 0:0; row 100:4950; } >want
same_file "$OUT" want "a chain of a hundred jobs: p = x + 100, z = 100x + 4950"

# ---- the third job of five kills its worker ----
# Two documented forms (docs/executors.md): a CPU device's worker is killed in the crashing
# job, which is named and stops the batch; a GPU's fault comes back on the queue after the
# jobs answered (the two after it were queued too), fails the session's end or the reader
# that waits, and ends the worker: all it wrote, v too, is lost.
crash_form
if [ "$CRASH_FORM" = queue ]; then
	expect 1 "" "$CARSH" -c "$MAKE
run $W/crash.bat.xml"
	grep -q "^carsh: worker: the work an earlier job queued failed: ." "$ERR" &&
		pass "a fault in the middle of a window fails the session, and says so" ||
		fail "crash in a window: $(cat "$ERR")"
else
	expect 139 "" "$CARSH" -c "$MAKE
run $W/crash.bat.xml"
	crash="carsh: $W/crash.bat.xml:6: <Exec file=\"$W/crash.exe.xml\">: killed by SIGSEGV (kernel 'crash' on "
	[ "$(grep -c '' "$ERR")" = 1 ] && grep -qF "$crash" "$ERR" && grep -q '; buffers it wrote: v$' "$ERR" &&
		pass "a crash in the middle of a window names its own step, and only it" ||
		fail "crash in a window: $(cat "$ERR")"
fi
printf '%s\n' "$MAKE" "run $W/crash.bat.xml" "$DUMPS" | "$CARSH" -i >"$OUT" 2>"$ERR"
if [ "$CRASH_FORM" = queue ]; then
	for b in q w v z; do
		lost_in $b "$ERR" && pass "after the fault, $b (written on the worker only) is lost" ||
			fail "lost $b: $(cat "$ERR")"
	done
	grep -E '^[0-9,]+$' "$OUT" >got
	row 1:0 >want
	same_file got want "after the fault: p (only read) is whole, nothing stale is dumped"
else
	for b in q w z; do
		grep -qF "carsh: virtbuf dump $b: virtual buffer '$b' was lost: its newest data was on the device of a worker that ended (killed by SIGSEGV (kernel 'crash' on " "$ERR" &&
			pass "after the crash, $b (written by an earlier job of the window, on the worker only) is lost" ||
			fail "lost $b: $(cat "$ERR")"
	done
	grep -E '^[0-9,]+$' "$OUT" >got
	{ row 1:0; row 0:0; } >want
	same_file got want "after the crash: p (only read) is whole, v (the jobs after the crash) never written"
fi

# ---- the third job of five fails; its worker lives on ----
printf '%s\n' "$MAKE" "run $W/fail.bat.xml" 'echo status $?' "$DUMPS" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -qF "carsh: $W/fail.bat.xml:6: <Exec file=\"$W/bad.exe.xml\">: " "$ERR" &&
	grep -qF "build failed on " "$ERR" && ! grep -q "was lost" "$ERR" &&
	pass "a failed job in the middle of a window names its own step" || fail "failed job: $(cat "$ERR")"
grep -q '^status 1$' "$OUT" && pass "the batch fails with the job's status" ||
	fail "status: $(cat "$OUT")"
grep -E '^[0-9,]+$' "$OUT" >got
{ row 1:0; row 1:1; row 1:2; row 0:0; row 2:1; } >want
same_file got want "a failed job: the earlier jobs' results are kept, the later jobs did not run"

# The same with its second and third steps as <Command>s that run one executable each: they
# join the window as <Exec>s (runner/batchcmd.h), the third is named with its own step.
printf '%s\n' "$MAKE" "run $W/cmdfail.bat.xml" 'echo status $?' "$DUMPS" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -qF "carsh: $W/cmdfail.bat.xml:9: <Command>: $W/bad.exe.xml: " "$ERR" && grep -qF "build failed on " "$ERR" &&
	! grep -q "the command above failed" "$ERR" &&
	grep -q '^status 1$' "$OUT" && pass "a failed <Command> run in the window names its own step, status 1" ||
	fail "failed command: $(cat "$ERR" "$OUT")"
grep -E '^[0-9,]+$' "$OUT" >got
{ row 1:0; row 1:1; row 1:2; row 0:0; row 2:1; } >want
same_file got want "a failed <Command> in a window: the earlier results kept, the later jobs not run"

# ---- a fill between the jobs of a window ----
# z is on the worker's device only when the fill comes: it goes between the jobs in flight,
# and the job after it reads the filled value, not the device copy the jobs before it left.
expect 0 "" "$CARSH" -c "$MAKE
run $W/fill.bat.xml
$DUMPS"
{ row 1:0; row 1:1; row 1:2; row 1:3; row 1:102; } >want
same_file "$OUT" want "a fill between a window's jobs: the job after it reads z = 100 (z = x + 102)"
# A fill that nothing in the window reads: the table keeps z's value, shared memory gets it
# when a reader needs it. A dump reads 100; a job alone reads 100 (zq: q = z + 1, w += z);
# the thread executor, which reads shared memory, reads 100.
expect 0 "" "$CARSH" -c "$MAKE
run $W/filldump.bat.xml
$DUMPS"
{ row 1:0; row 1:1; row 0:0; row 0:0; row 0:100; } >want
same_file "$OUT" want "a fill that ends a window, then a dump: z = 100"
expect 0 "" "$CARSH" -c "$MAKE
run $W/filldump.bat.xml
run $W/zq.exe.xml
$DUMPS"
{ row 1:0; row 0:101; row 0:100; row 0:0; row 0:100; } >want
same_file "$OUT" want "a fill that ends a window, then a job: q = z + 1 = 101, w = z = 100"
expect 0 "" "$CARSH" -c "$MAKE
run $W/filldump.bat.xml
set exec=thread
run $W/zq.exe.xml
$DUMPS"
same_file "$OUT" want "a fill that ends a window, then the thread executor: q = 101, w = 100"
# The first job takes z from shared memory: the fill waits for it, and the next job reads 100.
expect 0 "" "$CARSH" -c "$MAKE
run $W/fillread.bat.xml
$DUMPS"
{ row 1:0; row 1:1; row 1:2; row 0:0; row 1:101; } >want
same_file "$OUT" want "a fill after a job that reads z from shared memory: z = 100 + q = x + 101"
# A job before the fill fails: the batch stops there, as if the fill had not come.
printf '%s\n' "$MAKE" "run $W/fillfail.bat.xml" 'echo status $?' "$DUMPS" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -qF "carsh: $W/fillfail.bat.xml:9: <Exec file=\"$W/bad.exe.xml\">: " "$ERR" &&
	grep -q '^status 1$' "$OUT" && pass "a job that fails before a fill in a window is the one named" ||
	fail "fill after a failed job: $(cat "$ERR" "$OUT")"
grep -E '^[0-9,]+$' "$OUT" >got
{ row 1:0; row 1:1; row 0:0; row 0:0; row 1:0; } >want
same_file got want "a fill after a job that failed is not done: z = x, as the first job left it"
# A job before the fill kills its worker: z, on that worker only, is lost, never 100.
# On a GPU the fault comes back on the queue: the reader of z is told it was lost instead.
printf '%s\n' "$MAKE" "run $W/fillcrash.bat.xml" "virtbuf dump z" | "$CARSH" -i >"$OUT" 2>"$ERR"
if [ "$CRASH_FORM" = queue ]; then
	lost_in z "$ERR" && ! grep -q '^100' "$OUT" &&
		pass "a fill after a fault in a window: z, on the dead worker only, is lost, never 100" ||
		fail "fill after a crash: $(cat "$ERR" "$OUT")"
else
	grep -qF "carsh: $W/fillcrash.bat.xml:7: <Exec file=\"$W/crash.exe.xml\">: killed by SIGSEGV" "$ERR" &&
		grep -qF "carsh: virtbuf dump z: virtual buffer 'z' was lost: its newest data was on the device of a worker that ended (killed by SIGSEGV (kernel 'crash' on " "$ERR" &&
		! grep -q '^100' "$OUT" &&
		pass "a fill after a crash in a window is not done: z, on the dead worker only, is lost" ||
		fail "fill after a crash: $(cat "$ERR" "$OUT")"
fi

# ---- readers in the middle of a window ----
expect 0 "" "$CARSH" -c "$MAKE
run $W/readers.bat.xml
virtbuf dump u --columns 8; virtbuf dump t --columns 8
$DUMPS"
tr '\n' , <"$W/mid.csv" | sed 's/,$/\n/' >got
row 1:2 >want
same_file got want "a dump between two jobs of a window sees the first job's result (w = x + 2)"
tr '\n' , <"$W/bg.csv" | sed 's/,$/\n/' >got
row 1:4 >want
same_file got want "a background job after a window's job reads its result (u = v + 1 = x + 4)"
{ row 1:4; row 1:3; row 1:9; row 1:8; row 1:2; row 1:3; row 12:39; } >want
same_file "$OUT" want "until= reads each pass's result: nine passes, p = x + 9, z = 12x + 39"

# ---- a background job's claim between two jobs of a batch orders them ----
# The background job writes w until its input ends; the batch's second job writes w too: the
# window is collected and that job waits for the background one, then runs.
rm -f feed
mkfifo feed
start_carsh -i
exec 8<>feed
send "$MAKE"
send "run $DATA/fm/sink.xml x=- y=buffer:w N=8 < feed &"
send "run $W/hazard.bat.xml"
wait_until "the second job to wait for the background one" \
	grep -q "waiting for job \[1\] .*sink.xml, which writes 'w'" "$T/carsh.err"
seq 101 108 >&8
exec 8>&-
send "$DUMPS"
stop_carsh
grep -E '^[0-9,]+$' "$T/carsh.out" >got
{ row 1:0; row 1:1; row 1:2; row 1:3; row 3:3; } >want
same_file got want "the batch's job that writes w ran after the background job that did"

# ---- a window's output: its reader sees the end when the window's last job has ended ----
# The worker keeps a window job's standard input, output and error for the next job only
# while that job is already waiting: after the last one nothing of the batch's stays open
# there, while the shell and its worker go on.
gone() { ! kill -0 "$1" 2>/dev/null; }
mkfifo winout
cat winout >winout.txt &
reader=$!
start_carsh -i
send "$(echo "$MAKE" | tr '\n' ';')"
send "run $W/chain.bat.xml STEPS=40 > $T/winout"
if wait_until "the reader to see the end of the window's output" gone "$reader"; then
	pass "a reader of a window's output sees its end when the window's last job has ended"
else
	kill "$reader" 2>/dev/null
fi
send "$(echo "$DUMPS" | tr '\n' ';')"
stop_carsh
grep -E '^[0-9,]+$' carsh.out >got
{ row 1:40; row 1:39; row 0:0; row 0:0; row 40:780; } >want
same_file got want "the window's chain of forty jobs, its output redirected: p = x + 40, z = 40x + 780"

# ---- Ctrl-C while the second job of a window runs ----
# The terminal is a tmux pane, as in interrupt.sh: Ctrl-C goes through its line discipline.
if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux is not installed: Ctrl-C in a window was not tried"
	finish
fi
# The wait below counts the workers' CPU time, which a kernel on a GPU does not use: there
# nothing outside the device shows that the spinning kernel runs.
if [ "$CRASH_FORM" = queue ]; then
	echo "SKIP: the kernels run on a GPU (crash form queue): Ctrl-C in a window was not tried"
	finish
fi
SOCK="$T/tmux.sock"
tm() { tmux -S "$SOCK" -f /dev/null "$@" 2>/dev/null; }
trap 'tm kill-server' EXIT
screen_has() { tm capture-pane -p -S -100 | grep -q -- "$1"; }
type_line() {
	tm send-keys -l "$1"
	tm send-keys Enter
}
# The workers of the shell (its own: CARSH_SERVER=off) have used 3 s of CPU: the spinning
# kernel runs (the other jobs and the program builds take a small part of that).
spun() {
	for pid in $(pgrep -P "$TPID"); do
		awk '{ print $14 + $15 }' "/proc/$pid/stat"
	done | awk -v hz="$(getconf CLK_TCK)" '{ s += $1 } END { exit !(s >= 3 * hz) }'
}
CARSH_SERVER=off CARSH_HISTFILE=/dev/null TERM=xterm tm new-session -d -x 250 -y 50 \
	sh -c 'trap : INT; "$0" -i; echo "$?" >"$1"' "$CARSH" "$T/tty.status"
wait_until "the prompt" screen_has '^carsh>$'
TPID=$(pgrep -P "$(tm display -p '#{pane_pid}')" | head -1)
type_line "$(echo "$MAKE" | tr '\n' ';')"
type_line "run $W/spin.bat.xml"
wait_until "the spinning kernel" spun
tm send-keys C-c
type_line 'echo status $?'
wait_until "the batch to end" screen_has '^status '
type_line "$(echo "$DUMPS" | tr '\n' ';')"
# z too was written on the interrupted worker alone: its message is the last line.
wait_until "the dumps" screen_has "^carsh: virtbuf dump z: "
tm capture-pane -p -J -S -100 >screen.txt
type_line exit
wait_until "the shell to exit" test -s "$T/tty.status"
grep -qF "carsh: $W/spin.bat.xml:5: <Exec file=\"$W/spin.exe.xml\">: $W/spin.exe.xml: interrupted" screen.txt &&
	pass "Ctrl-C in a window interrupts the job that runs, named with its step" ||
	fail "Ctrl-C in a window: $(cat screen.txt)"
grep -q '^status 130$' screen.txt && pass "the batch ends with status 130" ||
	fail "Ctrl-C status: $(cat screen.txt)"
grep -qF "virtbuf dump q: virtual buffer 'q' was lost: its newest data was on the device of a worker that ended (" screen.txt &&
	pass "what the interrupted worker held alone is lost, and its reader told" ||
	fail "Ctrl-C, q: $(cat screen.txt)"
grep -E '^[0-9,]+$' screen.txt >got
{ row 1:0; row 0:0; row 0:0; } >want
same_file got want "after Ctrl-C: p whole; w (the interrupted job's) and v (the job after it) never written"
tm kill-server

finish
