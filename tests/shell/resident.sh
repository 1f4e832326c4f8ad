#!/bin/sh
# Buffers resident in the default executor (docs/executors.md "What moves when"): a job's
# results stay on its warm worker's device; a host reader, a job on another device or in
# another worker, a background job all see current data; a fill from a file replaces the
# device copies; and a worker that dies with the only current copy of a buffer makes that
# buffer lost, which every reader is told, never given old data, until it is filled again.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
if ! process_executor; then
	echo "skip: residency in warm workers is the process executor's"
	exit 77
fi
ADD="$DATA/fm/addone.xml"   # y = x + 1; z += x
CRASH="$DATA/fm/crash.xml"  # reads x, then writes through a null pointer
seq 1 8 >x.csv
MAKE="virtbuf create x float 8; virtbuf create y float 8; virtbuf create w float 8
virtbuf create z float 8; virtbuf fill x x.csv"

# ---- a chain: the second job reads the first one's result where it is ----
expect 0 "" "$CARSH" -c "$MAKE
run $ADD x=buffer:x y=buffer:y z=buffer:z
run $ADD x=buffer:y y=buffer:w z=buffer:z
virtbuf dump w --columns 8; virtbuf dump z --columns 8; virtbuf dump y --columns 8"
printf '3,4,5,6,7,8,9,10\n3,5,7,9,11,13,15,17\n2,3,4,5,6,7,8,9\n' >want
same_file "$OUT" want "a chain on the device, dumped: w = x + 2, z = 2x + 1, y = x + 1"

# ---- the third job of a chain kills its worker: what only that worker held is lost ----
printf '%s\n' "$MAKE" "run $ADD x=buffer:x y=buffer:y z=buffer:z" \
	"run $ADD x=buffer:y y=buffer:w z=buffer:z" "run $CRASH x=buffer:x y=discard" \
	"virtbuf dump z --columns 8" "run $ADD x=buffer:w y=discard z=buffer:x" \
	"set exec=thread" "run $ADD x=buffer:w y=discard z=buffer:x" \
	"virtbuf dump x --columns 8" "virtbuf fill z --value 5" "virtbuf dump z --columns 8" |
	"$CARSH" -i >"$OUT" 2>"$ERR"
# Two documented forms (docs/executors.md): a CPU device's worker is killed in the crashing
# job, named; a GPU's fault comes back on the queue after the job answered, and fails the
# reader that waits (here the dump of z), which ends the worker.
crash_form
if [ "$CRASH_FORM" = queue ]; then
	lost="virtbuf dump z: virtual buffer 'z' was lost: a job that failed wrote the only current copy, on a device (worker: the work an earlier job queued failed: "
	grep -qF "$lost" "$ERR" && pass "the third job's fault failed the reader that waited" ||
		fail "crash: $(cat "$ERR")"
else
	grep -q "killed by SIGSEGV (kernel 'crash'" "$ERR" && pass "the third job crashed its worker" ||
		fail "crash: $(cat "$ERR")"
	lost="virtbuf dump z: virtual buffer 'z' was lost: its newest data was on the device of a worker that ended (killed by SIGSEGV (kernel 'crash' on "
fi
grep -qF "$lost" "$ERR" && grep -qF "); fill it ('virtbuf fill z FILE') or create it again" "$ERR" &&
	pass "a dump of a buffer lost with its worker says so" || fail "lost z: $(cat "$ERR")"
[ "$(grep -cF "addone.xml: stream 'x': virtual buffer 'w' was lost: its newest data was on the device of a worker that ended" "$ERR")" = 2 ] &&
	pass "a job that reads a lost buffer fails, naming it, under either executor" ||
	fail "lost w: $(cat "$ERR")"
# x was only read on the device: shared memory still has it, untouched by the refused job.
printf '1,2,3,4,5,6,7,8\n5,5,5,5,5,5,5,5\n' >want
grep -E '^[0-9,]+$' "$OUT" >got # without the prompts
same_file got want "a buffer only read is intact; a lost buffer filled again is whole"

# ---- a queued job's fault: reported at the next wait, never old data ----
# A job whose outputs all stay on the device returns with its kernel queued (on a GPU; on
# a CPU device only with the test hook CARSH_QUEUE_CPU=1). The crash then comes in that job
# or after it: either way every buffer whose newest copy was on the worker is lost, and its
# reader told; a buffer only read is whole.
printf '%s\n' "$MAKE" "run $ADD x=buffer:x y=buffer:y z=buffer:z" \
	"run $CRASH x=buffer:x y=buffer:y" "virtbuf dump y --columns 8" \
	"virtbuf dump z --columns 8" "virtbuf dump x --columns 8" |
	CARSH_QUEUE_CPU=1 "$CARSH" -i >"$OUT" 2>"$ERR"
# On a GPU the fault comes back on the queue: the dump of y waits, fails, and ends the
# worker; z is lost with it.
for b in y z; do
	if [ "$CRASH_FORM" = queue ]; then lost_in $b "$ERR"; else
		grep -qF "virtbuf dump $b: virtual buffer '$b' was lost: its newest data was on the device of a worker that ended (" "$ERR"
	fi &&
		pass "a queued job's crash: $b, written on its worker, is lost and its reader told" ||
		fail "queued crash, $b: $(cat "$ERR")"
done
grep -E '^[0-9,]+$' "$OUT" >got
printf '1,2,3,4,5,6,7,8\n' >want
same_file got want "a queued job's crash: a buffer only read is whole, nothing stale is dumped"
# A queued job's crash that nothing reads after it is still the session's failure: its end
# waits for the queued work (server on and off). The crash comes in the job (139, the job's
# message) or, mostly, after its answer (1, the session's). On a GPU the fault comes back
# on the queue at the session's end (1, "the work an earlier job queued failed").
for srv in on off; do
	CARSH_SERVER=$srv CARSH_QUEUE_CPU=1 "$CARSH" -c "$MAKE
run $CRASH x=buffer:x y=buffer:y" >"$OUT" 2>"$ERR"
	st=$?
	if [ "$CRASH_FORM" = queue ]; then
		[ "$st" = 1 ] && grep -q -e "^carsh: worker: the work an earlier job queued failed: ." \
			-e "^carsh: worker [0-9]* ended (.*) while the device work its jobs queued ran: what they wrote there is lost" "$ERR"
	else
		{ [ "$st" = 1 ] && grep -q "^carsh: worker [0-9]* ended (killed by SIGSEGV) while the device work its jobs queued ran: what they wrote there is lost ('set stats=on' makes each job wait for its work, so that the one that fails is named)$" "$ERR"; } ||
			{ [ "$st" = 139 ] && grep -q "^carsh: .*killed by SIGSEGV (kernel 'crash'" "$ERR"; }
	fi &&
		pass "a queued job's crash at the session's end fails it, and says so (server $srv)" ||
		fail "queued crash at the end, server $srv: status $st, $(cat "$ERR")"
done

# ---- the worker that holds a buffer killed while idle ----
start_carsh -i
send "$MAKE"
send "run $ADD x=buffer:x y=buffer:y z=buffer:z"
send "echo ran"
wait_until "the first job" grep -q '^ran$' "$T/carsh.out"
held=$(jobs_of "$CPID")
[ "$(echo "$held" | wc -w)" = 1 ] && pass "the worker that holds y stays the shell's between jobs" ||
	fail "held workers: '$held'"
kill -KILL $held
send "virtbuf dump y --columns 8"
send "virtbuf dump x --columns 8"
stop_carsh
grep -qF "virtbuf dump y: virtual buffer 'y' was lost: its newest data was on the device of a worker that ended (worker $held ended while idle)" "$T/carsh.err" &&
	pass "a buffer held by a worker killed while idle is lost, and its reader told" ||
	fail "killed holder: $(cat "$T/carsh.err")"
grep -q '^1,2,3,4,5,6,7,8$' "$T/carsh.out" && pass "a buffer it only read is still whole" ||
	fail "killed holder, x: $(cat "$T/carsh.out")"

# ---- the server killed mid-chain: what was written back stays, the rest is lost ----
# A server of this test's own: killing the shared one would fail other tests.
[ "${CARSH_SERVER:-}" = off ] || (
	FAILS=0
	CARSH_SERVER_DIR="$T/srv"
	export CARSH_SERVER_DIR
	start_carsh -i
	send "$MAKE; virtbuf create z2 float 8"
	send "run $ADD x=buffer:x y=buffer:y z=buffer:z"
	send "virtbuf dump z --columns 8"
	send "run $ADD x=buffer:y y=buffer:w z=buffer:z2"
	send "echo ran"
	wait_until "the chain's second job" grep -q '^ran$' "$T/carsh.out"
	srv=$("$CARSH" server status 2>/dev/null | sed -n 's/^pid //p')
	[ -n "$srv" ] && kill -KILL "$srv"
	send "virtbuf dump z --columns 8"
	send "virtbuf dump w --columns 8"
	stop_carsh
	"$CARSH" server stop >/dev/null 2>&1
	grep -c '^1,2,3,4,5,6,7,8$' "$T/carsh.out" >count
	[ "$(cat count)" = 2 ] && pass "the server killed: a buffer written back before is intact" ||
		fail "server killed, z: $(cat "$T/carsh.out") $(cat "$T/carsh.err")"
	grep -qF "virtbuf dump w: virtual buffer 'w' was lost: its newest data was on the device of a worker that ended (worker " "$T/carsh.err" &&
		pass "the server killed: a buffer only its worker held is lost, and its reader told" ||
		fail "server killed, w: $(cat "$T/carsh.err")"
	exit "$FAILS"
) || FAILS=$((FAILS + $?))

# ---- a host reader after jobs elsewhere; a job on another device ----
POCL_DEVICES="pthread basic" "$CARSH" -c devices >devs.txt 2>&1
if [ "$(grep -c ' cpu ' devs.txt)" -ge 2 ]; then
	expect 0 "" env POCL_DEVICES="pthread basic" "$CARSH" -c "$MAKE
set device=0; run $ADD x=buffer:x y=buffer:y z=buffer:z
set device=1; run $ADD x=buffer:y y=buffer:w z=buffer:z
set device=0; run $ADD x=buffer:w y=buffer:y z=buffer:z
virtbuf dump y --columns 8; virtbuf dump z --columns 8"
	# y = (x + 2) + 1; z = x + (x + 1) + (x + 2)
	printf '4,5,6,7,8,9,10,11\n6,9,12,15,18,21,24,27\n' >want
	same_file "$OUT" want "jobs on two devices in turn see each other's results"
else
	echo "POCL_DEVICES='pthread basic' gives no two devices here: the two-device check skipped"
fi

# ---- a fill from a file after a device job: the job after it reads the file ----
seq 11 18 >y.csv
expect 0 "" "$CARSH" -c "$MAKE
run $ADD x=buffer:x y=buffer:y z=buffer:z
virtbuf fill y y.csv
run $ADD x=buffer:y y=buffer:w z=buffer:z
virtbuf dump w --columns 8"
printf '12,13,14,15,16,17,18,19\n' >want
same_file "$OUT" want "a buffer filled from a file after a device job has the file's values"

# The same with a value fill: each
# host write path must make the device copy stale (a value fill is written straight into
# shared memory over the cores).
expect 0 "" "$CARSH" -c "$MAKE
run $ADD x=buffer:x y=buffer:y z=buffer:z
virtbuf fill y --value 40
run $ADD x=buffer:y y=buffer:w z=buffer:z
virtbuf dump w --columns 8"
printf '41,41,41,41,41,41,41,41\n' >want
same_file "$OUT" want "a buffer filled with a value after a device job has the value"

# ---- background jobs: two at once read one buffer held by a worker ----
expect 0 "" "$CARSH" -c "$MAKE
virtbuf create a float 8; virtbuf create b float 8; virtbuf create za float 8
virtbuf create zb float 8
run $ADD x=buffer:x y=buffer:y z=buffer:z
run $ADD x=buffer:y y=buffer:a z=buffer:za &
run $ADD x=buffer:y y=buffer:b z=buffer:zb &
sync
virtbuf dump a --columns 8; virtbuf dump b --columns 8; virtbuf dump zb --columns 8"
printf '3,4,5,6,7,8,9,10\n3,4,5,6,7,8,9,10\n2,3,4,5,6,7,8,9\n' >want
same_file "$OUT" want "two background jobs read a buffer held on a device"

# ---- time says what moved ----
# The second job's Output is x, current on the device since the first job read it: an Output
# starts as its buffer's contents, so one bound to a buffer held only on the host is copied.
# x comes from a file: the first job copies it; y and z are a new buffer's zeros, made on the
# device by a fill (nothing moves for them).
N=262144
seq 1 $N >big.csv
expect 0 "" "$CARSH" -c "virtbuf create x float $N; virtbuf create y float $N
virtbuf create z float $N; virtbuf fill x big.csv
time run $ADD x=buffer:x y=buffer:y z=buffer:z N=$N
time run $ADD x=buffer:y y=buffer:x z=buffer:z N=$N"
grep '^h2d ' "$ERR" >h2d.txt
[ "$(wc -l <h2d.txt)" = 2 ] || fail "time: $(cat "$ERR")"
sed -n 2p h2d.txt | grep -q '^h2d  *0\.000 ms .* d2h 0\.000 ms$' &&
	pass "time: the second job of a chain moved nothing" || fail "time, second: $(cat h2d.txt)"
sed -n 1p h2d.txt | grep -q '^h2d  *0\.000 ms' &&
	fail "time, first: the copy to the device is not counted: $(cat h2d.txt)" ||
	pass "time: the first job copied its inputs to the device"
[ "$(grep -c '^files  *0\.000 ms in  0\.000 ms out$' "$ERR")" = 2 ] &&
	pass "time: jobs on buffers read and wrote no files" || fail "time, files: $(cat "$ERR")"

# Buffers that hold one value (a value fill, a new buffer's zeros) are filled on the device:
# the job moves nothing to it, and its results are those of the copied values.
expect 0 "" "$CARSH" -c "virtbuf create x float $N; virtbuf create y float $N
virtbuf create z float $N; virtbuf fill x --value 1.5; virtbuf fill z --value 2
time run $ADD x=buffer:x y=buffer:y z=buffer:z N=$N
virtbuf dump y --columns $N; virtbuf dump z --columns $N"
grep '^h2d ' "$ERR" >h2d.txt
grep -q '^h2d  *0\.000 ms' h2d.txt &&
	pass "time: value-filled and new buffers moved nothing to the device" ||
	fail "time, filled on the device: $(cat h2d.txt)"
tr ',' '\n' <"$OUT" | sort | uniq -c | awk '{ print $1, $2 }' >got
printf '%d 2.5\n%d 3.5\n' $N $N >want
same_file got want "values filled on the device, then computed there"

# ---- time says how long a job's files took ----
seq 1 $N >big.csv
cp big.csv sum.csv
expect 0 "" "$CARSH" -c "time run $ADD x=big.csv y=y.csv z=sum.csv N=$N"
grep '^files ' "$ERR" | grep -q '^files  *0\.000 ms in' &&
	fail "time: the job's CSV input not counted: $(cat "$ERR")" ||
	pass "time: a job's input files are counted"
grep '^files ' "$ERR" | grep -q ' 0\.000 ms out$' &&
	fail "time: the job's CSV output not counted: $(cat "$ERR")" ||
	pass "time: a job's output files are counted"
expect 0 "" "$CARSH" -c "time --json run $ADD x=big.csv y=y.csv z=sum.csv N=$N"
grep -q '"in_ms": [0-9.]*, "out_ms": [0-9.]*' "$ERR" && pass "time --json: in_ms and out_ms" ||
	fail "time --json: $(cat "$ERR")"
finish
