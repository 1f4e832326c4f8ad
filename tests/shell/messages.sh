#!/bin/sh
# Messages that say a thing once: a background job killed by a signal is reported by sync
# as "killed by SIGSEGV (...)" after its name, not "Killed by SIGSEGV: killed by SIGSEGV".
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
CRASH="$DATA/fm/crash.xml"
seq 1 8 >x.csv

if process_executor; then
	expect 1 "carsh: sync: job [1] $CRASH: killed by SIGSEGV" \
		"$CARSH" -c "run $CRASH x=x.csv y=discard & sync"
	grep -q "Killed by SIGSEGV: killed" "$ERR" && fail "said twice: $(cat "$ERR")" ||
		pass "the signal said once: $(grep sync: "$ERR")"
fi

# SIGTERM's notice, written to a file, is its first line: no blank line before it (that one
# is for a terminal, after its "^C"). Under both executors.
for opt in "" -T; do
	rm -f started
	CARSH_SERVER=off "$CARSH" $opt -c "echo started; run $DATA/fm/spin.xml x=fill:1 y=discard" \
		>started 2>term.err &
	pid=$!
	wait_until "carsh $opt to start" grep -q started started
	kill -TERM "$pid"
	wait "$pid"
	status=$?
	[ "$status" = 143 ] &&
		[ "$(head -1 term.err)" = "carsh: SIGTERM: stopping jobs and removing virtual buffers" ] &&
		pass "carsh $opt on SIGTERM: the notice on the first line, status 143" ||
		fail "carsh $opt on SIGTERM: status $status, stderr: $(od -c term.err | head -3)"
done
finish
