#!/bin/sh
# The user's carsh server (docs/server.md): jobs of every carsh run in its warm workers; a
# second carsh finds its device open; `carsh server start|stop|status`; CARSH_SERVER=off
# runs without one; a crashing kernel takes only its worker; the server killed mid-job is
# reported in one line and the next carsh starts a new one; a client killed mid-job has its
# job stopped; a stale socket is replaced; two clients starting at once make one server;
# another user is refused; an unsafe server directory is refused. `carsh -T` runs its whole
# session in a session worker of the server (results, statuses, messages as without; a warm
# spare for the next; a killed session worker; Ctrl-C; the server killed mid-session).
#
# This test's servers live in a directory of its own, so that stopping and killing them
# leaves the server the other tests share alone. Nothing depends on timing: it polls.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

if ! process_executor; then
	echo "skip: the server serves the process executor"
	finish
fi

CARSH_SERVER_DIR="$T/srv"
export CARSH_SERVER_DIR
unset CARSH_SERVER
SCALE="$FM/scale.xml"
SINK="$DATA/fm/sink.xml"
seq 1 8 >x.csv
"$REF" scale 2 x.csv >want.csv

server_pid() { "$CARSH" server status 2>/dev/null | sed -n 's/^pid //p'; }
sock() { ls "$CARSH_SERVER_DIR"/server-*.sock 2>/dev/null; }
gone() { [ ! -e "/proc/$1" ] || [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -c1)" = Z ]; }
lent_to() { [ -n "$(jobs_of "$1")" ]; }
no_lent() { ! "$CARSH" server status | grep -q '^lent '; }
stop_all() { "$CARSH" server stop >/dev/null 2>&1; }
trap stop_all EXIT

# ---- jobs through the server; a second carsh finds its device open ----
expect 0 "" "$CARSH" run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "a job run by the server's worker"
[ -S "$(sock)" ] && pass "the first job started a server (socket $(basename "$(sock)"))" ||
	fail "no socket in $CARSH_SERVER_DIR: $(ls -la "$CARSH_SERVER_DIR")"
[ "$(stat -c %a "$CARSH_SERVER_DIR")" = 700 ] && pass "the server directory was made 0700" ||
	fail "server directory mode $(stat -c %a "$CARSH_SERVER_DIR")"
first=$(server_pid)
expect 0 "" "$CARSH" -c "time run $SCALE x=x.csv y=out.csv N=8"
grep '^platform' "$ERR" | grep -q '^platform  *0\.000 ms  context 0\.000 ms' &&
	pass "a second carsh runs in a warm worker of the server (platform and context 0 ms)" ||
	fail "second carsh not warm: $(cat "$ERR")"
same_file out.csv want.csv "the second carsh's result"
[ "$(server_pid)" = "$first" ] && pass "both carsh used one server (pid $first)" ||
	fail "server changed: $first, then $(server_pid)"
seq 1 8 | "$CARSH" run "$SCALE" x=- y=- N=8 >piped.csv
same_file piped.csv want.csv "standard input and output of the client reach the worker"

# ---- start, stop, status ----
expect 0 "" "$CARSH" server status
for f in pid uptime build workers jobs clients; do
	grep -q "^$f " "$OUT" || fail "server status lacks '$f': $(cat "$OUT")"
done
grep -q '^jobs 3$' "$OUT" && pass "server status counts the jobs served" || fail "status: $(cat "$OUT")"
expect 0 "" "$CARSH" server stop
grep -q "^carsh server (pid $first) stopped$" "$OUT" || fail "stop said: $(cat "$OUT")"
wait_until "the stopped server to end" gone "$first"
[ -z "$(sock)" ] && pass "a stopped server removes its socket" || fail "socket left: $(sock)"
expect 0 "" "$CARSH" server stop
grep -q '^no carsh server running for this build (' "$OUT" && pass "stop with none running says so, status 0" ||
	fail "stop without a server: $(cat "$OUT")"
expect 1 "carsh: server status: no carsh server running" "$CARSH" server status
expect 0 "" "$CARSH" server start
grep -q '^carsh server running, pid [0-9]*$' "$OUT" || fail "start said: $(cat "$OUT")"
started=$(sed 's/.*pid //' "$OUT")
[ "$(server_pid)" = "$started" ] && pass "server start starts one and prints its pid" ||
	fail "started $started, status says $(server_pid)"
expect 0 "" "$CARSH" server start
[ "$(sed 's/.*pid //' "$OUT")" = "$started" ] && pass "server start with one running keeps it" ||
	fail "a second start: $(cat "$OUT")"
expect 2 "expected start, stop, status or run" "$CARSH" server restart
stop_all
wait_until "the server to end" gone "$started"

# ---- the idle timer: a server without a client ends, and frees its devices ----
CARSH_SERVER_IDLE=1 "$CARSH" server start >/dev/null
idle=$(server_pid)
CARSH_SERVER_IDLE=1 "$CARSH" run "$SCALE" x=x.csv y=out.csv N=8
wait_until "an idle server to end" gone "$idle" &&
	pass "a server with no client ends after CARSH_SERVER_IDLE seconds"
[ -z "$(sock)" ] && pass "an idle server removes its socket" || fail "socket left: $(sock)"

# ---- CARSH_SERVER=off ----
CARSH_SERVER=off expect 0 "" "$CARSH" run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "CARSH_SERVER=off: the job's result"
[ -z "$(sock)" ] && pass "CARSH_SERVER=off starts no server" || fail "a socket appeared: $(sock)"

# ---- a kernel that crashes kills its worker only ----
"$CARSH" server start >/dev/null
pid=$(server_pid)
printf 'run %s x=x.csv y=discard\nrun %s x=x.csv y=out.csv N=8\necho still here\n' \
	"$DATA/fm/crash.xml" "$SCALE" | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -q "killed by SIGSEGV (kernel 'crash'" "$ERR" &&
	pass "a crash in a server's worker is reported as a job killed by SIGSEGV" ||
	fail "crash: $(cat "$ERR")"
grep -q '^still here$' "$OUT" && same_file out.csv want.csv "the job after a crash runs"
[ "$(server_pid)" = "$pid" ] && pass "the server survives a crashing kernel" ||
	fail "server after a crash: '$(server_pid)', was $pid"

# A job sent as the server's idle workers are killed runs: the server lends one only if it
# has not seen it die, and one lent as it dies never says it took the job, so the client
# runs the job in another (before, such a job was "killed by SIGKILL").
kill_server_idle() {
	idle=$(pgrep -P "$(server_pid)")
	[ -z "$idle" ] || kill -KILL $idle
}
jobs_after_kills "$SCALE" kill_server_idle "the server's idle workers were killed"

# ---- a client killed mid-job: its job stops ----
mkfifo feed
exec 8<>feed
start_carsh -i
send "run $SINK x=- y=discard N=4 < $T/feed"
wait_until "the job's worker" lent_to "$CPID"
worker=$(jobs_of "$CPID")
kill -KILL "$CPID"
wait "$CPID" 2>/dev/null
wait_until "the killed client's worker to end" gone "$worker" &&
	pass "a client killed mid-job: the server stopped its worker"
wait_until "the server to forget the worker" no_lent
exec 8>&-

# ---- the server killed mid-job ----
exec 8<>feed
start_carsh
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:b N=4 < $T/feed"
send "echo not reached"
wait_until "the job's worker" lent_to "$CPID"
pid=$(server_pid)
kill -KILL "$pid"
t0=$(date +%s%N)
stop_carsh
t1=$(date +%s%N)
exec 8>&-
[ "$CSTATUS" -ne 0 ] && pass "the client exits non-zero ($CSTATUS) when its server is killed" ||
	fail "status $CSTATUS after the server was killed"
[ "$(wc -l <"$T/carsh.err")" = 1 ] && grep -q "the carsh server (pid $pid) ended" "$T/carsh.err" &&
	pass "it says so in one line: $(cat "$T/carsh.err")" || fail "message: $(cat "$T/carsh.err")"
[ $(((t1 - t0) / 1000000)) -lt 1000 ] && pass "within a second ($(((t1 - t0) / 1000000)) ms)" ||
	fail "it took $(((t1 - t0) / 1000000)) ms"
[ -z "$(segments_of "$CPID")" ] && pass "no segment of the client is left" ||
	fail "segments left: $(segments_of "$CPID")"
expect 0 "" "$CARSH" run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "the next carsh runs"
new=$(server_pid)
[ -n "$new" ] && [ "$new" != "$pid" ] && pass "the next carsh started a new server ($new)" ||
	fail "server after the kill: '$new'"

# ---- carsh -T: the whole session in a session worker of the server ----
# counter WHICH: "sessions N, W warm, R in a worker that served one before" of `carsh server
# status` (WHICH: 1 for N, 2 for W, 4 for R).
counter() { "$CARSH" server status | awk -v f="$1" '$1 == "sessions" { gsub(",", ""); print $(f + 1) }'; }
stop_all
expect 0 "" "$CARSH" -T run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "-T through the server: the result"
[ "$(counter 1)" = 1 ] && pass "the -T session ran in a session worker of the server" ||
	fail "sessions: $("$CARSH" server status)"
warm=$(counter 2)
seq 1 8 | "$CARSH" -T run "$SCALE" x=- y=- N=8 >piped.csv
same_file piped.csv want.csv "-T through the server: the client's standard input and output"
[ "$(counter 1)" = 2 ] && [ "$(counter 2)" = $((warm + 1)) ] &&
	pass "the second -T session took the spare the first left waiting (warm)" ||
	fail "not a warm spare: $("$CARSH" server status)"
# Back to back: a session worker whose session succeeded serves the next one of its
# environment, its devices open; nothing of the last session's is seen in the next.
n=$(counter 1)
again=$(counter 4)
MYVAR=first expect 0 "" "$CARSH" -T -c "virtbuf create kept float 8; echo \${MYVAR}"
grep -qx first "$OUT" || fail "first session: $(cat "$OUT")"
expect 0 "" "$CARSH" -T -c 'virtbuf list'
grep -q kept "$OUT" && fail "the last session's buffer is seen: $(cat "$OUT")"
expect 0 "" "$CARSH" -T run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "a worker that served sessions before computes the same"
[ "$(counter 1)" = $((n + 3)) ] && [ "$(counter 4)" = $((again + 3)) ] &&
	pass "three -T sessions in a row ran in a worker that served one before" ||
	fail "not reused: $("$CARSH" server status)"
expect 2 "carsh: \${MYVAR}: variable not set (set it with 'set MYVAR=VALUE')" env -u MYVAR "$CARSH" -T -c 'echo ${MYVAR}'
# A flow-model edited between two sessions (to a text of the same length, which a freed
# copy's address may be taken again by): the next session in the same worker builds it anew.
sed 's/x\[i\] + 1.0f/x[i] + 5.0f/' "$DATA/fm/addone.xml" >edit.xml
expect 0 "" "$CARSH" -T run edit.xml x=x.csv y=- z=fill:0
sed -i 's/x\[i\] + 5.0f/x[i] + 7.0f/' edit.xml
expect 0 "" "$CARSH" -T run edit.xml x=x.csv y=- z=fill:0
seq 8 15 >want7
same_file "$OUT" want7 "a flow-model edited between two sessions of one worker: the new kernel runs"
# A failed session's worker ends: the next session runs in another.
expect 0 "" "$CARSH" -T run "$SCALE" x=x.csv y=out.csv N=8
again=$(counter 4)
expect 3 "" "$CARSH" -T -c 'exit 3'
expect 0 "" "$CARSH" -T run "$SCALE" x=x.csv y=out.csv N=8
[ "$(counter 4)" = $((again + 1)) ] && pass "a failed session's worker (reused) is not lent again" ||
	fail "after a failed session: $("$CARSH" server status)"
mkdir -p sub
(cd sub && "$CARSH" -T -c "virtbuf create b float 8; virtbuf fill b ../x.csv; run $SCALE x=buffer:b y=../vb.csv N=8; virtbuf dump b" >../dump.csv)
same_file vb.csv want.csv "-T through the server: relative paths are the client's, buffers live in the session"
same_file dump.csv x.csv "-T through the server: virtbuf dump"
MYVAR=from-the-client expect 0 "" "$CARSH" -T -c 'echo ${MYVAR}'
grep -qx from-the-client "$OUT" && pass "the client's environment reaches the session" ||
	fail "environment: $(cat "$OUT")"
for cmd in 'exit 3' "run $T/missing.xml" 'virtbuf dump nosuch' 'run'; do
	CARSH_SERVER=off "$CARSH" -T -c "$cmd" >off.out 2>off.err
	want_status=$?
	"$CARSH" -T -c "$cmd" >on.out 2>on.err
	got_status=$?
	[ "$got_status" = "$want_status" ] && cmp -s on.out off.out && cmp -s on.err off.err &&
		pass "-T '$cmd': status $got_status and messages as with CARSH_SERVER=off" ||
		fail "-T '$cmd': $got_status '$(cat on.err)', off: $want_status '$(cat off.err)'"
done
before=$(counter 1)
CARSH_SERVER=off "$CARSH" devices >devices.off
expect 0 "" "$CARSH" devices
same_file "$OUT" devices.off "carsh devices with the server lists what it lists without"
[ "$(counter 1)" = "$before" ] && pass "carsh devices alone is not served (docs/server.md)" ||
	fail "devices served: $("$CARSH" server status)"
before=$(counter 1)
CARSH_SERVER=off expect 0 "" "$CARSH" -T run "$SCALE" x=x.csv y=out.csv N=8
[ "$(counter 1)" = "$before" ] && pass "CARSH_SERVER=off -T runs in the carsh itself" ||
	fail "CARSH_SERVER=off went to the server"

# A killed session worker: one line, a non-zero status, no segment of the client's left.
exec 8<>feed
start_carsh -T
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:b N=4 < $T/feed"
send "echo not reached"
wait_until "the session's worker" lent_to "$CPID"
wait_until "the session's segment" sh -c "ls /dev/shm | grep -q '^carsh-$CPID-'"
worker=$(jobs_of "$CPID")
kill -KILL "$worker"
stop_carsh
[ "$CSTATUS" = 137 ] && pass "a killed session worker: the client exits 137" ||
	fail "status $CSTATUS after the session worker was killed"
[ "$(wc -l <"$T/carsh.err")" = 1 ] &&
	grep -qx "carsh: the carsh server's session worker (pid $worker) was killed by SIGKILL; the session did not finish" "$T/carsh.err" &&
	pass "it says so in one line" || fail "message: $(cat "$T/carsh.err")"
[ -z "$(segments_of "$CPID")" ] && pass "no segment of the client is left" ||
	fail "segments left: $(segments_of "$CPID")"

# Ctrl-C (SIGINT to the client) stops the session as it stops a carsh -T of its own, also
# while the session builds a kernel, when its standard error goes to the build's temporary
# file (the line was lost with it when the kernel was not in the cache). A cache of its own,
# empty, makes the session build; the test waits until the worker's descriptor 2 is that file.
cache="$XDG_CACHE_HOME"
XDG_CACHE_HOME="$T/cold-cache"
export XDG_CACHE_HOME
start_carsh -T
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:b N=4 < $T/feed"
wait_until "the session's worker" lent_to "$CPID"
wait_until "the session's segment" sh -c "ls /dev/shm | grep -q '^carsh-$CPID-'"
worker=$(jobs_of "$CPID")
wait_until "the session's kernel build" sh -c "readlink /proc/$worker/fd/2 | grep -q ' (deleted)\$'"
kill -INT "$CPID"
stop_carsh
XDG_CACHE_HOME="$cache"
[ "$CSTATUS" = 130 ] && grep -q "carsh: SIGINT: stopping jobs and removing virtual buffers" "$T/carsh.err" &&
	pass "Ctrl-C stops the session: status 130, the message of carsh -T" ||
	fail "Ctrl-C: status $CSTATUS, $(cat "$T/carsh.err")"
wait_until "the interrupted session's worker to end" gone "$worker"
[ -z "$(segments_of "$CPID")" ] && pass "Ctrl-C: no segment of the client is left" ||
	fail "segments left: $(segments_of "$CPID")"

# The server killed mid-session: a non-zero status, the server's line, no segment.
start_carsh -T
send "virtbuf create b float 4"
send "run $SINK x=- y=buffer:b N=4 < $T/feed"
wait_until "the session's worker" lent_to "$CPID"
wait_until "the session's segment" sh -c "ls /dev/shm | grep -q '^carsh-$CPID-'"
pid=$(server_pid)
kill -KILL "$pid"
stop_carsh
exec 8>&-
[ "$CSTATUS" -ne 0 ] && grep -q "the carsh server (pid $pid) ended" "$T/carsh.err" &&
	pass "the server killed mid-session: status $CSTATUS, $(tail -1 "$T/carsh.err")" ||
	fail "server killed mid-session: status $CSTATUS, $(cat "$T/carsh.err")"
[ -z "$(segments_of "$CPID")" ] && pass "the server killed mid-session: no segment left" ||
	fail "segments left: $(segments_of "$CPID")"
expect 0 "" "$CARSH" -T run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "the next -T session starts a new server"

# ---- a stale socket; two clients at once ----
new=$(server_pid)
kill -KILL "$new"
wait_until "the killed server to end" gone "$new"
[ -S "$(sock)" ] || fail "no stale socket to replace"
expect 0 "" "$CARSH" run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "a socket left by a dead server is replaced"
stop_all
wait_until "no socket" sh -c "! ls '$CARSH_SERVER_DIR'/server-*.sock >/dev/null 2>&1"
: >"$(ls "$CARSH_SERVER_DIR"/server-*.log)"
for i in 1 2 3; do
	"$CARSH" run "$SCALE" x=x.csv y=out$i.csv N=8 &
done
wait
n=$(grep -c 'listening at' "$CARSH_SERVER_DIR"/server-*.log)
[ "$n" = 1 ] && pass "three clients starting at once: one server" ||
	fail "$n servers started: $(cat "$CARSH_SERVER_DIR"/server-*.log)"
for i in 1 2 3; do same_file out$i.csv want.csv "client $i of three"; done

# ---- another user is refused (SO_PEERCRED) ----
# A test arrangement only: the server's socket is linked into a directory of nobody's with
# the socket opened to others, so that nobody's carsh passes its own directory checks and
# reaches this user's server, which must refuse it.
other_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
if [ "$(id -u)" = 0 ] && other_user true 2>/dev/null; then
	mkdir -p nob
	chown nobody nob && chmod 700 nob
	chmod o+x "$T"
	ln "$(sock)" nob/ && chmod o+rw "$(sock)"
	CARSH_SERVER_DIR="$T/nob" expect 1 \
		"carsh: server status: carsh server: refused: uid $(id -u nobody) is not the server's user 0" \
		other_user "$CARSH" server status
	rm -rf nob
else
	echo "SKIP: cannot run a client as another user (not root, or no setpriv)"
fi

# ---- unsafe server directories are refused ----
mkdir -p real && chmod 700 real
ln -s real link
expect 1 "is a symbolic link; refusing it" env CARSH_SERVER_DIR="$T/link" "$CARSH" server status
: >afile
expect 1 "is not a directory; refusing it" env CARSH_SERVER_DIR="$T/afile" "$CARSH" server status
mkdir -p open && chmod 755 open
expect 1 "is open to others (mode 755); refusing it" env CARSH_SERVER_DIR="$T/open" \
	"$CARSH" server status
CARSH_SERVER_DIR="$T/open" expect 0 \
	"carsh: no carsh server (server directory $T/open is open to others (mode 755); refusing it (chmod 700 it)); running jobs in this process's own workers" \
	"$CARSH" run "$SCALE" x=x.csv y=out.csv N=8
same_file out.csv want.csv "without a usable server directory the job runs in the carsh's own workers"
if [ "$(id -u)" = 0 ]; then
	mkdir -p theirs && chmod 700 theirs && chown nobody theirs
	expect 1 "belongs to uid $(id -u nobody), not to uid 0; refusing it" \
		env CARSH_SERVER_DIR="$T/theirs" "$CARSH" server status
fi

stop_all
finish
