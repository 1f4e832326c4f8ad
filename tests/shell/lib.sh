# Shared helpers for the shell-level tests; every tests/shell/*.sh sources this file.
# The test harness exports CARSH, TOP_SRCDIR, TOP_BUILDDIR and XDG_CACHE_HOME (Makefile.am).
set -u
: "${CARSH:?run me through make check}" "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"

REF="$TOP_BUILDDIR/tests/tools/ref"
DATA="$TOP_SRCDIR/tests/data"
FM="$TOP_SRCDIR/flowmodels"
# A test outside tests/shell is named with its directory too: tests/api/mpi.sh and
# tests/shell/mpi.sh shared tests/tmp/mpi and, run side by side (make -j2), wrote each
# other's outputs.
T="$TOP_BUILDDIR/tests/tmp/$(basename "$0" .sh)"
[ "$(basename "$(dirname "$0")")" = shell ] ||
	T="$TOP_BUILDDIR/tests/tmp/$(basename "$(dirname "$0")")-$(basename "$0" .sh)"
rm -rf "$T"
mkdir -p "$T"
FAILS=0
OUT="$T/stdout"
ERR="$T/stderr"

# The job processes of the carsh with pid $1: its children, and the workers the user's carsh
# server has lent it (docs/server.md), which are the server's children.
jobs_of() {
	pgrep -P "$1"
	"$CARSH" server status 2>/dev/null | awk -v c="$1" '$1 == "lent" && $4 == c { print $2 }'
}

has_jobs() { [ -n "$(jobs_of "$CPID")" ]; }
two_jobs() { [ "$(jobs_of "$CPID" | wc -l)" -eq 2 ]; }

# CARSH_EXEC=thread (set by the tests/thread/*.tsh wrappers) runs every carsh of the test
# under the thread executor; the integration tests run under both executors.
if [ "${CARSH_EXEC:-process}" = thread ]; then
	printf '#!/bin/sh\nexec "%s" -T "$@"\n' "$CARSH" >"$T/carsh-T"
	chmod +x "$T/carsh-T"
	CARSH="$T/carsh-T"
fi

# True under the process executor: for checks of what only process isolation gives (a
# crashing kernel takes only its job; Ctrl-C stops a running kernel).
process_executor() {
	[ "${CARSH_EXEC:-process}" != thread ]
}

fail() {
	echo "FAIL: $*" >&2
	FAILS=$((FAILS + 1))
}

pass() {
	echo "ok: $*"
}

# expect STATUS STDERR_SUBSTRING COMMAND...: run COMMAND; check its exit status and that its
# standard error contains the substring (an empty substring checks only the status).
# Standard output is left in $OUT and standard error in $ERR.
expect() {
	local want="$1" msg="$2" got
	shift 2
	"$@" >"$OUT" 2>"$ERR"
	got=$?
	if [ "$got" != "$want" ]; then
		fail "$*: exit status $got, expected $want; stderr: $(head -c 2000 "$ERR")"
		return 1
	fi
	if [ -n "$msg" ] && ! grep -qF -- "$msg" "$ERR"; then
		fail "$*: stderr lacks '$msg'; it was: $(head -c 2000 "$ERR")"
		return 1
	fi
	pass "$* -> $want"
}

# same_file GOT WANT LABEL: byte-identical files.
same_file() {
	if cmp -s "$1" "$2"; then
		pass "$3"
	else
		fail "$3: $1 differs from $2: $(diff "$1" "$2" | head -5)"
	fi
}

# same_items PREFIX_GOT PREFIX_WANT N LABEL: files PREFIX0.csv .. PREFIX(N-1).csv agree.
same_items() {
	i=0
	while [ $i -lt "$3" ]; do
		if ! cmp -s "$1$i.csv" "$2$i.csv"; then
			fail "$4: item $i: $1$i.csv differs from $2$i.csv: $(diff "$1$i.csv" "$2$i.csv" | head -4)"
			return 1
		fi
		i=$((i + 1))
	done
	pass "$4 ($3 items)"
}

# close_to GOT WANT TOL LABEL: numeric comparison (in float precision) through the
# independent reference tool; close_to_double compares in double precision.
close_to() {
	compare cmp "$@"
}

close_to_double() {
	compare cmpd "$@"
}

compare() {
	local how="$1"
	shift
	if "$REF" "$how" "$1" "$2" "$3" >"$T/cmp.out" 2>&1; then
		pass "$4 ($(cat "$T/cmp.out"))"
	else
		fail "$4: $(cat "$T/cmp.out")"
	fi
}

finish() {
	if [ "$FAILS" -ne 0 ]; then
		echo "$FAILS check(s) failed"
		exit 1
	fi
	exit 0
}

# ---- a carsh that keeps running while the test acts on it ----
# start_carsh [ARGS...]: carsh reads commands from the FIFO $T/cmds; its output goes to
# $T/carsh.out and $T/carsh.err; $CPID is its pid.
start_carsh() {
	rm -f "$T/cmds"
	mkfifo "$T/cmds"
	"$CARSH" "$@" <"$T/cmds" >"$T/carsh.out" 2>"$T/carsh.err" &
	CPID=$!
	exec 7>"$T/cmds"
}

# send LINE: one command line to the running carsh. A carsh that already ended (a script
# stops at its first failure) must not take the test down with SIGPIPE: the line is dropped.
send() {
	(
		trap '' PIPE
		printf '%s\n' "$1" >&7
	) 2>/dev/null || true
}

# stop_carsh: end its input and wait; $CSTATUS is its exit status.
stop_carsh() {
	exec 7>&-
	wait "$CPID"
	CSTATUS=$?
}

# wait_until DESCRIPTION COMMAND...: poll until COMMAND succeeds (at most 60 s). This waits
# for an event; it asserts nothing about how long the event took.
wait_until() {
	local what="$1" i
	shift
	for i in $(seq 1 600); do
		"$@" && return 0
		sleep 0.1
	done
	fail "timed out waiting for: $what"
	return 1
}

# jobs_after_kills FLOWMODEL KILL WHAT: three rounds, in one interactive carsh, of a job of
# the scale FLOWMODEL (x.csv, N=8), then the shell command KILL (it kills idle workers, with
# $CPID the carsh), then at once the same job writing $T/after-kill-ROUND.csv. Every output
# must be want.csv and no job reported killed: a job handed to a worker as it dies runs in
# another (docs/executors.md, Warm workers). Three rounds, so that the case of a dying
# worker is likely to come up: one with PoCL's threads takes a while to die.
jobs_after_kills() {
	local fm="$1" kill="$2" what="$3" round
	start_carsh -i
	for round in 1 2 3; do
		send "run $fm x=$T/x.csv y=discard N=8"
		send "echo ended $round"
		wait_until "job $round to end" grep -q "^ended $round\$" "$T/carsh.out"
		eval "$kill"
		send "run $fm x=$T/x.csv y=$T/after-kill-$round.csv N=8"
	done
	send "echo done"
	stop_carsh
	if [ "$CSTATUS" = 0 ] && ! grep -q 'killed by' "$T/carsh.err" &&
		same_file "$T/after-kill-1.csv" want.csv "a job sent as $what (round 1)" &&
		same_file "$T/after-kill-2.csv" want.csv "a job sent as $what (round 2)" &&
		same_file "$T/after-kill-3.csv" want.csv "a job sent as $what (round 3)"; then
		pass "no job was lost: $what"
	else
		fail "jobs sent as $what: status $CSTATUS, errors $(cat "$T/carsh.err")"
	fi
}

# Shared-memory segments of the carsh with pid $1.# Shared-memory segments of the carsh with pid $1.
segments_of() {
	ls /dev/shm 2>/dev/null | grep "^carsh-$1-" || true
}

# MPI (docs/scale-out.md). mpi_ready: this carsh was built with MPI and the launcher
# ($MPIRUN, else mpirun) is there. mpi_run N COMMAND...: COMMAND on N ranks, bounded in time
# (tests/tools/mpi-run).
mpi_ready() {
	grep -q '^#define HAVE_MPI 1' "$TOP_BUILDDIR/config.h" 2>/dev/null &&
		command -v "${MPIRUN:-mpirun}" >/dev/null 2>&1
}
mpi_run() {
	sh "$TOP_SRCDIR/tests/tools/mpi-run" "$@"
}

# How a crashing kernel shows on the device under test (docs/executors.md, the crashing
# kernel): `signal` where the worker waits for every job and the fault kills it (a CPU
# device: the job is named, status 139), `queue` where the fault comes back on the queue
# after the job answered (a GPU: the next job or reader that waits fails, and the worker
# ends). crash_form sets $CRASH_FORM to one or the other, found once per test by a
# throw-away session that runs the crash kernel; anything else fails the test, says what
# came, and leaves `signal` (the checks of that form then fail too).
CRASH_FORM=
crash_form() {
	local st
	[ -n "$CRASH_FORM" ] && return 0
	env -u CARSH_QUEUE_CPU "$CARSH" -c "virtbuf create x float 8; virtbuf create y float 8
run $DATA/fm/crash.xml x=buffer:x y=buffer:y" >"$T/crash.out" 2>"$T/crash.err"
	st=$?
	CRASH_FORM=signal
	if [ "$st" = 1 ] && grep -q "^carsh: worker: the work an earlier job queued failed: " "$T/crash.err"; then
		CRASH_FORM=queue
	elif [ "$st" != 139 ] || ! grep -q "killed by SIGSEGV (kernel 'crash'" "$T/crash.err"; then
		fail "the crash kernel: status $st, $(cat "$T/crash.err")"
	fi
	echo "crash form: $CRASH_FORM"
}

# lost_in B FILE: FILE tells a reader of buffer B that it was lost with the worker whose
# queue failed: the reader that waited ("a job that failed wrote the only current copy") or
# one after it (the worker had ended).
lost_in() {
	grep -qF -e "virtbuf dump $1: virtual buffer '$1' was lost: a job that failed wrote the only current copy, on a device (worker: the work an earlier job queued failed: " \
		-e "virtbuf dump $1: virtual buffer '$1' was lost: its newest data was on the device of a worker that ended (" "$2"
}
