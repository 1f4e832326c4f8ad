#!/bin/sh
# A job reading a terminal: `run f.xml x=- y=-` at an interactive carsh without a server
# reads the lines typed up to Ctrl-D and prints its result (the job's worker is in a session
# of its own, so it is not stopped by SIGTTIN as a background group of the terminal's
# session would be). The terminal is a tmux pane, as in tests/shell/interrupt.sh.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux is not installed: the terminal test did not run"
	exit 77
fi
SOCK="$T/tmux.sock"
tm() { tmux -S "$SOCK" -f /dev/null "$@" 2>/dev/null; }
trap 'tm kill-server' EXIT
screen_has() { tm capture-pane -p | grep -q -- "$1"; }
ended() { [ -s "$T/tty.status" ]; }
result_shown() { tm capture-pane -p | tr '\n' , | grep -q ',1,2,3,2,4,6,carsh>'; }

CARSH_SERVER=off CARSH_HISTFILE=/dev/null TERM=xterm tm new-session -d -x 200 -y 50 \
	sh -c 'trap : INT QUIT; "$0" -i; echo "$?" >"$1"' "$CARSH" "$T/tty.status"
wait_until "the prompt" screen_has '^carsh>$'
# The line was read in full (the cursor is below it), so that the values typed next go to
# the job, not to the prompt's line editor.
line_taken() {
	local n
	n=$(tm capture-pane -p | grep -n -x -F "carsh> $1" | tail -1 | cut -d: -f1)
	[ -n "$n" ] && [ "$(tm display -p '#{cursor_y}')" -ge "$n" ]
}
# The value was echoed on a line of its own, below the command.
echoed() { tm capture-pane -p | grep -q -x -- "$1"; }
cmd="run $FM/scale.xml x=- y=- N=3"
tm send-keys -l "$cmd"
tm send-keys Enter
wait_until "carsh to read the command" line_taken "$cmd"
for v in 1 2 3; do
	tm send-keys -l "$v"
	tm send-keys Enter
	wait_until "the terminal to echo $v" echoed "$v"
done
tm send-keys C-d
if wait_until "the job's result 2 4 6 on the terminal" result_shown; then
	pass "a job read its standard input from the terminal up to Ctrl-D"
else
	fail "screen: $(tm capture-pane -p | head -20); stopped: $(ps -eo stat,args | grep '^T' | head -3)"
fi
tm send-keys -l "exit 3"
tm send-keys Enter
wait_until "carsh to exit" ended
[ "$(cat "$T/tty.status" 2>/dev/null)" = 3 ] && pass "the shell went on after the job (exit 3)" ||
	fail "exit status $(cat "$T/tty.status" 2>/dev/null)"
finish
