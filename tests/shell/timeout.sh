#!/bin/sh
# A job's time limit (`set timeout=SECONDS`, docs/formats.md): a process-executor job past
# it is stopped and reported, in the foreground and in the background, with the server on
# and off, and the next job runs in a fresh worker; the thread executor refuses the setting.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
SPIN="$DATA/fm/spin.xml"

if ! process_executor; then
	expect 1 "carsh: set: timeout: the thread executor (-T, exec=thread) cannot stop a running kernel; run without -T for a time limit" \
		"$CARSH" -c 'set timeout=2'
	expect 0 "" "$CARSH" -c 'set timeout=0'
	finish
fi

expect 1 "carsh: set: timeout must be a whole number of seconds (0: no limit), not '1.5'" \
	"$CARSH" -c 'set timeout=1.5'
for server in on off; do
	export CARSH_SERVER=$server
	expect 1 "carsh: $SPIN: stopped after the time limit of 2 s (set timeout=SECONDS; 0: none)" \
		timeout 120 "$CARSH" -c "set timeout=2; run $SPIN x=fill:1 y=discard"
	# After it, the shell goes on (interactive), a background job past the limit is
	# reported by sync, and a job that ends in time gives its result.
	printf '%s\n' "set timeout=2" "run $SPIN x=fill:1 y=discard &" "sync" \
		"set timeout=60" "run $SPIN x=fill:-1 y=out.csv" >cmds
	expect 0 "carsh: sync: job [1] $SPIN: Exit 1: $SPIN: stopped after the time limit of 2 s" \
		timeout 180 "$CARSH" -i <cmds
	printf -- '-1\n-1\n-1\n-1\n' >want.csv
	same_file out.csv want.csv "a job in time after one past it (server $server)"
	rm -f out.csv
done
finish
