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
finish
