#!/bin/sh
# Signals and crashes (docs/hardening.md): SIGKILL to a job's process, SIGINT to a foreground
# job, SIGTERM/SIGHUP/SIGINT to a master with running jobs, SIGKILL to the master, a kernel
# that writes out of bounds, and jobs killed while they write an InOut file. Each time the
# shell goes on or exits cleanly, no segment stays in /dev/shm, buffers the failed job did
# not write keep their contents, and an InOut file holds its old or its new content, never
# part of one. (vbuf.sh covers the signals to an idle master; jobs.sh Ctrl-C at the prompt
# and a kernel writing through a null pointer.)
#
# Jobs that must stay running read their input from a FIFO the test holds open, and the
# test polls for the events it waits for: nothing depends on timing.
. "$TOP_SRCDIR/tests/shell/lib.sh"

# The child process $1 has exited (a zombie, or already waited for).
exited() {
	[ ! -e "/proc/$1" ] || [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -c1)" = Z ]
}

cd "$T" || exit 1
SINK="$DATA/fm/sink.xml"
OOB="$DATA/errors/oob.xml"
PAGE=$(getconf PAGESIZE 2>/dev/null || echo 4096)
NP=$((PAGE / 4)) # floats in one page: a vbuf of NP floats ends on a page boundary

if command -v process_executor >/dev/null 2>&1 && ! process_executor; then
	echo "skip: these are checks of process isolation (the process executor)"
	exit 0
fi

# The process of the job a carsh with pid $1 is running (its only child).
job_pid() {
	jobs_of "$1" | head -1
}

has_job() {
	[ -n "$(job_pid "$1")" ]
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

no_segments() { # LABEL
	if [ -z "$(segments_of "$CPID")" ]; then
		pass "$1: no segment left in /dev/shm"
	else
		fail "$1: segments left: $(segments_of "$CPID")"
	fi
}

# Buffers 'in' (1..4), 'other' (42) and 'out' (7) of the running carsh.
make_buffers() {
	send "virtbuf create in float 4"
	send "virtbuf fill in --value 3"
	send "virtbuf create other float 4"
	send "virtbuf fill other --value 42"
	send "virtbuf create out float 4"
	send "virtbuf fill out --value 7"
}

dump_buffers() {
	send "virtbuf dump in --columns 4"
	send "virtbuf dump other --columns 4"
}

buffers_intact() { # LABEL
	if grep -q '^3,3,3,3$' "$T/carsh.out" && grep -q '^42,42,42,42$' "$T/carsh.out"; then
		pass "$1: the buffers the job read or did not touch are intact"
	else
		fail "$1: buffers: $(cat "$T/carsh.out")"
	fi
}

# ---- SIGKILL to the process of a foreground job, at the prompt ----
rm -f feed
mkfifo feed
start_carsh -i
exec 8<>feed # after carsh started: it must not inherit the write end
make_buffers
send "run $SINK x=- y=buffer:out N=4 < feed"
wait_until "the job's process" has_job "$CPID"
job=$(job_pid "$CPID")
kill -KILL "$job"
send "echo alive"
wait_until "the shell to go on" grep -q '^alive$' "$T/carsh.out"
dump_buffers
exec 8>&-
stop_carsh
grep -q "killed by SIGKILL" "$T/carsh.err" && pass "SIGKILL of a job: the job is reported killed" ||
	fail "SIGKILL of a job: $(cat "$T/carsh.err")"
[ "$CSTATUS" = 0 ] && pass "SIGKILL of a job: the interactive shell went on and exited 0" ||
	fail "SIGKILL of a job: status $CSTATUS"
buffers_intact "SIGKILL of a job"
no_segments "SIGKILL of a job"

# ---- SIGKILL to a background job's process, in a script ----
# `sync` fails naming the job and the script stops with status 1; or, when the master saw the
# job end before it read `sync` (under valgrind, say), the job is reported in a notice,
# `sync` has nothing left to wait for, and the job's status (137) is the script's at its end.
start_carsh
exec 8<>feed
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:b < feed &"
wait_until "the background job's process" has_job "$CPID"
kill -KILL "$(job_pid "$CPID")"
send "sync"
send "echo after sync"
exec 8>&-
stop_carsh
if grep -q "sync: job \[1\] $SINK: .*SIGKILL" "$T/carsh.err"; then
	[ "$CSTATUS" = 1 ] && ! grep -q "after sync" "$T/carsh.out" &&
		pass "SIGKILL of a background job: sync reports it, the script stops with status 1" ||
		fail "SIGKILL of a background job: status $CSTATUS, out: $(cat "$T/carsh.out")"
elif grep -q "^\[1\]+ Killed by SIGKILL $SINK$" "$T/carsh.err"; then
	[ "$CSTATUS" = 137 ] && grep -q "^after sync$" "$T/carsh.out" &&
		pass "SIGKILL of a background job: reported before sync, which then succeeds" ||
		fail "SIGKILL of a background job: status $CSTATUS, out: $(cat "$T/carsh.out")"
else
	fail "SIGKILL of a background job: not reported: $(cat "$T/carsh.err")"
fi
no_segments "SIGKILL of a background job"

# ---- SIGKILL to a background job still waiting for another job's buffer ----
# The killed job never reads its go. The master used to die of SIGPIPE when it sent the go,
# leaving its segments behind; now the job is reported as killed and the master goes on.
# (Whether the report comes from `sync` (status 1) or as a notice before it (the job's status,
# 137, at the end of the script) depends on when the job's thread sees the first job end;
# both are right.)
start_carsh
exec 8<>feed
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:b < feed &"
send "run $SINK x=- y=buffer:b < feed &"
wait_until "the second job to wait for the first" grep -q '^\[2\] [0-9]*$' "$T/carsh.err"
second=$(sed -n 's/^\[2\] \([0-9]*\)$/\1/p' "$T/carsh.err")
kill -KILL "$second"
printf '1\n2\n3\n4\n' >&8
send "sync %1"
send "echo alive"
send "sync"
exec 8>&-
stop_carsh
case $CSTATUS in
1 | 137) grep -q '^alive$' "$T/carsh.out" &&
	pass "SIGKILL of a job waiting for its go: the master goes on (status $CSTATUS)" ||
	fail "SIGKILL of a job waiting for its go: out: $(cat "$T/carsh.out")" ;;
*) fail "SIGKILL of a job waiting for its go: the master ended with status $CSTATUS" ;;
esac
grep -q "sync: job \[2\] $SINK: .*SIGKILL\|^\[2\]+ Killed by SIGKILL $SINK$" "$T/carsh.err" &&
	pass "SIGKILL of a job waiting for its go: the job is reported killed by SIGKILL" ||
	fail "SIGKILL of a job waiting for its go: $(cat "$T/carsh.err")"
no_segments "SIGKILL of a job waiting for its go"

# ---- SIGINT to the foreground job's process only ----
start_carsh -i
exec 8<>feed
make_buffers
send "run $SINK x=- y=buffer:out N=4 < feed"
wait_until "the job's process" has_job "$CPID"
kill -INT "$(job_pid "$CPID")"
send "echo alive"
wait_until "the shell to go on" grep -q '^alive$' "$T/carsh.out"
dump_buffers
exec 8>&-
stop_carsh
grep -q "interrupted\|SIGINT" "$T/carsh.err" && pass "SIGINT to a job: the job is reported" ||
	fail "SIGINT to a job: $(cat "$T/carsh.err")"
buffers_intact "SIGINT to a job"
no_segments "SIGINT to a job"

# ---- SIGTERM, SIGHUP, SIGINT to a master with running jobs ----
# The master stops its jobs, removes its segments and exits 128+N.
for sig in TERM HUP INT; do
	start_carsh
	exec 8<>feed
	send "virtbuf create a float 4"
	send "virtbuf create b float 4"
	send "run $SINK x=- y=buffer:a < feed &"
	send "run $SINK x=- y=buffer:b < feed &"
	wait_until "two jobs" two_jobs
	jobs=$(jobs_of "$CPID" | xargs)
	kill -$sig "$CPID"
	# Until it ends by the signal: closing its input first could let it end by EOF (seen
	# under valgrind, which runs one thread at a time).
	wait_until "carsh to end on SIG$sig" exited "$CPID"
	stop_carsh
	exec 8>&-
	case $sig in TERM) want=143 ;; HUP) want=129 ;; INT) want=130 ;; esac
	[ "$CSTATUS" = "$want" ] && pass "SIG$sig to a master with jobs: exit status $want" ||
		fail "SIG$sig to a master with jobs: status $CSTATUS; stderr: $(cat "$T/carsh.err")"
	for j in $jobs; do
		wait_until "job process $j to end after SIG$sig" gone "$j"
	done
	pass "SIG$sig to a master with jobs: its jobs are stopped"
	no_segments "SIG$sig to a master with jobs"
done

# ---- SIGKILL to the master while two jobs run ----
# Nothing can clean up after SIGKILL, but the jobs end with their shell (the kernel sends
# them SIGTERM), though their input stays open; the next carsh removes the dead master's
# segments. (Orphaned jobs used to run on for as long as their input did.)
start_carsh
exec 8<>feed
send "virtbuf create a float 4"
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:a < feed &"
send "run $SINK x=- y=buffer:b < feed &"
wait_until "two jobs" two_jobs
jobs=$(jobs_of "$CPID" | xargs)
kill -KILL "$CPID"
stop_carsh
[ "$CSTATUS" = 137 ] && pass "SIGKILL to the master: it is gone" || fail "SIGKILL: status $CSTATUS"
for j in $jobs; do
	wait_until "job process $j to end with its master" exited "$j" &&
		pass "SIGKILL to the master: its job $j ends, its input still open"
done
exec 8>&- # (a job left running by a failure above ends here)
expect 0 "" "$CARSH" -c "echo next"
no_segments "SIGKILL to the master, then another carsh"

# ---- a kernel that writes out of bounds (not through a null pointer) ----
# Each virtual buffer is mapped between two inaccessible pages, so a write just past or
# just before it kills the job; the shell and the other buffers are unharmed.
for off in 1 -1; do
	start_carsh -i
	make_buffers
	send "virtbuf create y float $NP"
	send "virtbuf create x float $NP"
	send "run $OOB x=buffer:x y=buffer:y N=$NP OFF=$off"
	send "echo alive"
	dump_buffers
	stop_carsh
	grep -q "killed by SIGSEGV (kernel 'oob' on " "$T/carsh.err" &&
		pass "a kernel writing at y[$off past the end]: the job is killed by SIGSEGV" ||
		fail "out-of-bounds write $off: $(cat "$T/carsh.err")"
	grep -q '^alive$' "$T/carsh.out" && pass "out-of-bounds write $off: the shell went on" ||
		fail "out-of-bounds write $off: shell: $(cat "$T/carsh.out")"
	buffers_intact "out-of-bounds write $off"
	no_segments "out-of-bounds write $off"
done
# The same kernel with its InOut bound to a file: the file keeps its content.
seq 1 8 >x8.csv
seq 11 18 >io.csv
cp io.csv io.before
expect 139 "killed by SIGSEGV" "$CARSH" run "$OOB" x=x8.csv y=io.csv N=8 OFF=1099511627776
same_file io.csv io.before "a job killed by its kernel leaves its InOut file untouched"
expect 0 "" "$CARSH" run "$OOB" x=x8.csv y=io.csv N=8 OFF=0
printf '12\n14\n16\n18\n20\n22\n24\n26\n' >want
same_file io.csv want "the same kernel without the bad write updates the file"

# ---- an InOut file is never half-written ----
# A job killed while it writes: the file is the old content or the new one, never a part.
# The writer fills a temporary file and renames it over the target; the test stops the job
# as soon as the temporary file appears (or, if the job is faster, finds the new content).
N=400000
seq 1 $N >xb.csv
seq 1 $N >yb.csv
cp yb.csv yb.before
"$CARSH" run "$FM/saxpy.xml" x=xb.csv y=yb.csv N=$N A=0.5 && mv yb.csv yb.after
cp yb.before yb.csv
"$CARSH" run "$FM/saxpy.xml" x=xb.csv y=yb.csv N=$N A=0.5 &
pid=$!
while ! ls yb.csv.?????? >/dev/null 2>&1 && kill -0 "$pid" 2>/dev/null; do :; done
job=$(job_pid "$pid")
[ -n "$job" ] && kill -KILL "$job"
wait "$pid"
status=$?
if cmp -s yb.csv yb.before; then
	pass "a job killed while writing its InOut file (status $status) left the old content"
elif cmp -s yb.csv yb.after; then
	pass "the job finished before it could be killed: its InOut file has the new content"
else
	fail "InOut file half-written: $(wc -l <yb.csv) lines"
fi
rm -f yb.csv.??????

# A file system that fills up while the InOut file is written: the run fails, the file is
# untouched and no temporary file is left.
if unshare -m --propagation private true 2>/dev/null; then
	mkdir -p small
	seq 1 4000 >xs.csv
	yes 1 | head -n 4000 >ys.before
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=16k carsh-test small || exit 77
		cp ys.before small/ys.csv
		"$1" run "$2" x=xs.csv y=small/ys.csv N=4000 A=0.1 2>err.txt
		echo "status=$?" >>err.txt
		cmp -s small/ys.csv ys.before && echo same >>err.txt
		ls small >>err.txt' sh "$CARSH" "$FM/saxpy.xml"
	if grep -q "No space left on device" err.txt && grep -q "^status=1$" err.txt &&
		grep -q "^same$" err.txt && [ "$(grep -c '^ys.csv' err.txt)" = 1 ]; then
		pass "a full disk while writing an InOut file: status 1, file untouched, no temporary left"
	else
		fail "full disk: $(cat err.txt)"
	fi
else
	echo "skip: unshare cannot mount a small file system here"
fi
finish
