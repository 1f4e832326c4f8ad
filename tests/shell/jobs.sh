#!/bin/sh
# Background jobs, sync, job notices, buffer hazards, crashes and Ctrl-C (DESIGN §4, §5).
# Jobs that must stay running read their input from a FIFO the test holds open, so the
# test decides when they end: nothing here depends on timing. (The test opens a FIFO's write
# end after starting carsh: a carsh that inherited it would keep the job from seeing EOF.)
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
SINK="$DATA/fm/sink.xml"
ADD="$DATA/fm/addone.xml"
seq 1 8 >x.csv
seq 1 8 >z.csv

# & prints [N] PID, jobs lists, sync waits; a failed job makes sync fail with its message.
expect 0 "" "$CARSH" -c "run $ADD x=x.csv y=y.csv z=z.csv N=8 & jobs; sync; echo synced"
grep -q "^\[1\] [0-9]*$" "$ERR" && pass "& prints [1] PID" || fail "notice: $(cat "$ERR")"
grep -q "^\[1\]  *[0-9]*  *\(Running\|Done\)  *$ADD$" "$OUT" && pass "jobs lists the job" ||
	fail "jobs: $(cat "$OUT")"
expect 1 "sync: job [1] $DATA/bad/good.xml: Exit 1: $DATA/bad/good.xml: stream 'x': nowhere.csv: No such file or directory" \
	"$CARSH" -c "run $DATA/bad/good.xml x=nowhere.csv y=discard & sync"
expect 1 "sync: no such job %3 (see 'jobs')" "$CARSH" -c "sync %3"
expect 2 "sync: 'x': expected %N" "$CARSH" -c "sync x"
# sync %N waits for that job only, and a second sync finds nothing left to fail.
expect 1 "job [2]" "$CARSH" -c "run $ADD x=x.csv y=y.csv z=z.csv & run $DATA/bad/good.xml x=nowhere.csv y=discard & sync %1; sync %2"
printf 'run %s x=nowhere.csv y=discard &\nsync %%1\necho again\nsync\n' "$DATA/bad/good.xml" |
	"$CARSH" -i >"$OUT" 2>"$ERR"
[ $? -eq 0 ] && grep -q "^again$" "$OUT" && pass "a job already waited for is not waited for again" ||
	fail "sync twice: $(cat "$ERR")"

# A script reports a failed background job it never synced, and waits for it at the end:
# end of input is an implicit sync, so the job's failure is the script's status (as for a
# batch), from -c, a script file and standard input alike.
expect 1 "job [1] $DATA/bad/good.xml: Exit 1: $DATA/bad/good.xml: stream 'x': nowhere.csv" \
	"$CARSH" -c "run $DATA/bad/good.xml x=nowhere.csv y=discard &"
printf 'run %s x=nowhere.csv y=discard &\n' "$DATA/bad/good.xml" >bgfail.carsh
expect 1 "nowhere.csv: No such file or directory" "$CARSH" bgfail.carsh
printf 'run %s x=nowhere.csv y=discard &\necho after\n' "$DATA/bad/good.xml" |
	"$CARSH" >"$OUT" 2>"$ERR"
[ $? -eq 1 ] && grep -q "^after$" "$OUT" &&
	pass "standard input: a failed background job is the script's status" ||
	fail "standard input: a failed background job: $(cat "$ERR")"
# The same when its failure was reported before the end (the dump waits for the job that
# writes b), and with a successful job: status 0.
printf 'virtbuf create b float 8\nrun %s x=nowhere.csv y=buffer:b &\nvirtbuf dump b --columns 8\necho after\n' \
	"$DATA/bad/good.xml" | "$CARSH" >"$OUT" 2>"$ERR"
[ $? -eq 1 ] && grep -q "^after$" "$OUT" &&
	pass "a background failure reported before the end is still the script's status" ||
	fail "background failure reported early: $(cat "$ERR")"
expect 0 "" "$CARSH" -c "run $DATA/bad/good.xml x=x.csv y=discard &"
# `exit N` decides, as a failed foreground command does.
expect 0 "" "$CARSH" -c "run $DATA/bad/good.xml x=nowhere.csv y=discard & exit 0"
expect 2 "" "$CARSH" -c "run $DATA/bad/good.xml x=nowhere.csv y=discard & sync x"

# A closed output pipe (`... y=- | head -1`) is the reader's choice: the run ends quietly with
# bash's status for it, 141 (128 + SIGPIPE), and no message blames the kernel.
{
	"$CARSH" run "$SINK" x=fill:1.5 y=- N=300000 2>"$ERR"
	echo $? >status
} | head -1 >"$OUT"
[ "$(cat status)" = 141 ] && [ ! -s "$ERR" ] && [ "$(cat "$OUT")" = 1.5 ] &&
	pass "a closed output pipe: status 141, no message" ||
	fail "a closed output pipe: status $(cat status), stderr: $(cat "$ERR")"

# A failed job's message is the same whether a wait reports its end or the notice before the
# next prompt does (which comes first is a race where nothing orders them): here the dump of
# the buffer it was to write waits for it, so the notice reports it.
printf 'virtbuf create f float 8\nrun %s x=nowhere.csv y=buffer:f &\nvirtbuf dump f /dev/null\necho next\n' \
	"$DATA/bad/good.xml" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -q "^\[1\]+ Exit 1 *$DATA/bad/good.xml$" "$ERR" &&
	grep -q "^carsh: job \[1\] $DATA/bad/good.xml: Exit 1: $DATA/bad/good.xml: stream 'x': nowhere.csv" "$ERR" &&
	pass "a failed job's notice says what its wait would" ||
	fail "a failed job's notice: stderr: $(cat "$ERR")"

# Interactive: "[N]+ Done  file" before the next prompt.
seq 1 4 >x4.csv
printf 'virtbuf create b float 4\nrun %s x=x4.csv y=buffer:b &\nvirtbuf dump b --columns 4\necho next\n' "$SINK" |
	"$CARSH" -i >"$OUT" 2>"$ERR"
grep -q "^\[1\]+ Done  *$SINK$" "$ERR" && pass "a finished job is reported before the next prompt" ||
	fail "no Done notice: $(cat "$ERR")"
grep -q "^1,2,3,4$" "$OUT" && pass "dump waited for the job writing the buffer" || fail "dump: $(cat "$OUT")"

# Hazards: the later job waits, says so once, and the result is the sequential one.
mkfifo feed
start_carsh
exec 8<>feed # after carsh started: it must not inherit the write end
send "virtbuf create a float 4"
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:a < feed &"
send "run $SINK x=buffer:a y=buffer:b"
wait_until "the hazard notice" grep -q "waiting for job \[1\] $SINK, which writes 'a'" "$T/carsh.err"
send "virtbuf delete a"
printf '5\n6\n7\n8\n' >&8
exec 8>&-
send "virtbuf dump b --columns 4"
stop_carsh
grep -q "^5,6,7,8$" "$T/carsh.out" && pass "the reader of 'a' ran after its writer" ||
	fail "hazard result: $(cat "$T/carsh.out")"
[ "$(grep -c 'waiting for' "$T/carsh.err")" -eq 1 ] && pass "one notice for one wait" ||
	fail "notices: $(cat "$T/carsh.err")"

# Deleting a buffer a running job uses is refused, naming the job.
mkfifo feed2
start_carsh -i
exec 8<>feed2
send "virtbuf create a float 4"
send "run $SINK x=- y=buffer:a < feed2 &"
send "virtbuf delete a"
wait_until "the refusal" grep -q "virtbuf delete a: in use by job \[1\] $SINK; run 'sync' first" "$T/carsh.err"
printf '1\n2\n3\n4\n' >&8
exec 8>&-
send "sync"
send "virtbuf delete a"
send "virtbuf list"
stop_carsh
pass "deleting a buffer in use is refused with the job named"
grep -q "^a " "$T/carsh.out" && fail "a was not deleted after sync" || pass "after sync the buffer can go"

# Process isolation: a kernel that kills its process, and Ctrl-C during a running kernel.
# (Under the thread executor the kernel runs in the shell's own process.)
if process_executor; then
# A kernel that kills its process: the job is reported, the shell and every buffer the job
# did not write stay as they were.
printf 'virtbuf create in float 8\nvirtbuf fill in x.csv\nvirtbuf create out float 8\nvirtbuf create other float 8\nvirtbuf fill other --value 42\nrun %s x=buffer:in y=buffer:out\necho still here\nvirtbuf dump in --columns 8\nvirtbuf dump other --columns 8\n' \
	"$DATA/fm/crash.xml" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -q "killed by SIGSEGV (kernel 'crash' on .*); buffers it wrote: out" "$ERR" &&
	pass "the crash is reported with kernel, device and buffers written" || fail "crash report: $(cat "$ERR")"
grep -q "^still here$" "$OUT" && pass "the shell survived" || fail "shell: $(cat "$OUT")"
grep -q "^1,2,3,4,5,6,7,8$" "$OUT" && grep -q "^42,42,42,42,42,42,42,42$" "$OUT" &&
	pass "buffers the job only read, or did not touch, are intact" || fail "buffers: $(cat "$OUT")"

# A background job killed by a signal is reported with the signal before the next prompt
# (the fill waits for the job, which reads 'in', so the job has ended by then).
printf 'virtbuf create in float 8\nrun %s x=buffer:in y=discard &\nvirtbuf fill in --value 1\necho next\n' \
	"$DATA/fm/crash.xml" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -q "^\[1\]+ Killed by SIGSEGV $DATA/fm/crash.xml$" "$ERR" &&
	pass "a background crash is reported as Killed by SIGSEGV" || fail "crash notice: $(cat "$ERR")"

# Ctrl-C stops the foreground job, not the interactive shell. A terminal sends SIGINT to its
# foreground process group: the shell and its foreground child; so does this test.
mkfifo feed3
start_carsh -i
exec 8<>feed3
# N given: the job reads its 4 values itself (without it, the shell counts the input first).
send "run $SINK x=- y=discard N=4 < feed3"
wait_until "the job's process" has_jobs
kill -INT "$CPID" $(jobs_of "$CPID")
send "echo alive"
wait_until "the shell to answer" grep -q "^alive$" "$T/carsh.out"
exec 8>&-
stop_carsh
grep -q "interrupted" "$T/carsh.err" && pass "Ctrl-C stopped the foreground job" ||
	fail "no interruption: $(cat "$T/carsh.err")"

# Without N the shell counts standard input before the job starts (docs/formats.md, "Lengths
# from the data"): Ctrl-C stops that too, and the shell answers.
mkfifo feed4
start_carsh -i
exec 8<>feed4
send "run $SINK x=- y=discard < feed4"
counting() { ls -l "/proc/$CPID/fd" 2>/dev/null | grep -q carsh-stdin-; }
wait_until "the shell to count its input" counting
kill -INT "$CPID"
send "echo alive"
wait_until "the shell to answer" grep -q "^alive$" "$T/carsh.out"
exec 8>&-
stop_carsh
grep -q "interrupted while counting its values" "$T/carsh.err" &&
	pass "Ctrl-C stopped the count of standard input" ||
	fail "no interruption of the count: $(cat "$T/carsh.err")"
fi
finish
