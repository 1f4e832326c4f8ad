#!/bin/sh
# One shell, several engine runs (runner/engineproc.h): under -T the engine's process is
# kept from one run to the next (runner/enginekeep.h), yet each run sees the session as it
# is then: a buffer created since, a variable set since, a directory changed since. A
# failed run ends the kept process and the next run gets a fresh one; the session's end
# ends it, leaving no process behind (the server's session worker that ran the session
# stays). Under the process executor each run is a forked child: the same results.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

XDG_CACHE_HOME="$T/cache"
CARSH_SERVER_DIR="$T/srv"
export XDG_CACHE_HOME CARSH_SERVER_DIR
PR="$DATA/errors/partrows.xml"
mkdir -p sub
cp "$PR" sub/rows.xml
P="partition --no-progress --gpu none --threads 1 --sched cpu"
cat >keep.csh <<EOF
virtbuf create y float 256
$P $PR y=buffer:y > part1.txt
virtbuf create w float 128
set N=128
cd sub
$P rows.xml y=buffer:w > part2.txt
$P nowhere.xml y=buffer:w
$P rows.xml y=buffer:w > part3.txt
virtbuf dump y ../y.csv
virtbuf dump w ../w.csv
EOF
# Read as at a prompt, so that the failing run does not end the script.
keep() { "$CARSH" -i <keep.csh; }
expect 0 "carsh: partition: nowhere.xml: No such file or directory" keep
seq 0 255 >want_y
seq 0 127 >want_w
same_file y.csv want_y "the first run wrote y"
same_file w.csv want_w "a later run wrote w, created after the first run, with N set after it"
grep -q "^partition rows.xml: 128 items" sub/part2.txt &&
	pass "a later run ran in the directory changed after the first" ||
	fail "part2.txt: $(cat sub/part2.txt)"
grep -q "^partition rows.xml: 128 items" sub/part3.txt &&
	pass "the run after a failed one ran" || fail "part3.txt: $(cat sub/part3.txt)"

# A script through the server (under -T its session runs in a session worker, which stays
# for the next session): two runs, one process kept between them and ended with the
# session, though the worker goes on.
printf '%s\n' 'virtbuf create y float 256' "$P $PR y=buffer:y > two1.txt" \
	"$P $PR y=buffer:y > two2.txt" 'virtbuf dump y two.csv' >two.csh
expect 0 "" "$CARSH" two.csh
same_file two.csv want_y "two runs through the server"

# The engine's run claims the session's buffers as a job does: a background job that writes
# y (held open by a FIFO) makes it wait, said as for a job, and it writes y after that job
# (0..255 over the 9s), never beside it, under both executors.
mkfifo feed
printf '%s\n' 'virtbuf create y float 256' \
	"run $DATA/fm/sink.xml N=256 x=- y=buffer:y < feed &" \
	"$P $PR y=buffer:y > claim.txt" 'virtbuf dump y claim.csv' >claim.csh
"$CARSH" claim.csh >claim.out 2>claim.err &
cpid=$!
exec 8>feed
notice() { grep -q "^carsh: waiting for job \[1\] .*sink.xml, which writes 'y'$" claim.err; }
wait_until "the engine's run to wait for the job" notice && pass "the engine's run waits for the job"
seq 256 | sed 's/.*/9/' >&8
exec 8>&-
# (Before, the process executor's engine child waited for ever on its copy of the job's
# claim: bounded here, so that such a hang fails.)
script_done() {
	[ ! -e "/proc/$cpid" ] || [ "$(sed 's/^.*) //' "/proc/$cpid/stat" | cut -c1)" = Z ]
}
if wait_until "the script to end" script_done; then
	wait "$cpid" && pass "the script ended well" || fail "status $?: $(cat claim.err)"
else
	kill "$cpid"
	wait "$cpid"
fi
same_file claim.csv want_y "the engine wrote after the job"

# This test's engine processes: their cache in the environment names this test.
engine_procs() {
	for p in /proc/[0-9]*; do
		cat "$p/cmdline" 2>/dev/null | tr '\0' ' ' | grep -q -- '--engine-child' &&
			cat "$p/environ" 2>/dev/null | tr '\0' '\n' |
			grep -qx "XDG_CACHE_HOME=$XDG_CACHE_HOME" && echo "${p#/proc/}"
	done
	return 0
}
[ -z "$(engine_procs)" ] && pass "the session's end ended the engine's process" ||
	fail "engine processes left: $(engine_procs)"
"$CARSH" server stop >/dev/null 2>&1
finish
