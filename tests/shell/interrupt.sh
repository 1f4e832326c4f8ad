#!/bin/sh
# Ctrl-C and Ctrl-\ typed at an interactive carsh on a real terminal (docs/architecture.md
# "Signals"): Ctrl-C stops `sync` and the jobs it waits for (sync returns 130, as bash's
# `wait` does); Ctrl-C while the shell waits for its jobs before exiting stops them and the
# shell exits 130, leaving no segment; Ctrl-C in `partition` stops the engine's process (under
# both executors) and the prompt comes back; Ctrl-\ at the prompt is ignored, as in bash.
#
# The terminal is a tmux pane: the keys go through its line discipline, which sends SIGINT
# or SIGQUIT to the foreground process group, exactly as a user's terminal does. The test
# waits for what the screen shows (bounded polling), never for a length of time. Jobs that
# must keep running read a FIFO the test holds open.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
SINK="$DATA/fm/sink.xml"

if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux is not installed: the terminal tests of Ctrl-C and Ctrl-\\ did not run"
	exit 77
fi

# The server's socket lives in the test's directory, so that nothing stays in /tmp.
SOCK="$T/tmux.sock"
tm() {
	# Once the shell has ended, its terminal and the tmux server are gone, which tmux
	# would say on standard error at every look.
	tmux -S "$SOCK" -f /dev/null "$@" 2>/dev/null
}
# Whatever happens, no tmux server, carsh or job of this test stays behind.
trap 'tm kill-server' EXIT

# tty_start [NAME=VALUE...]: carsh -i in a new terminal, in $T, with these variables set
# too; its exit status goes to $T/tty.status, $TPID is its pid. The wrapping sh traps (not
# ignores) INT and QUIT: it must outlive the keys sent to the terminal's process group, while
# carsh starts with the default dispositions.
tty_start() {
	rm -f "$T/tty.status"
	CARSH_HISTFILE=/dev/null TERM=xterm tm new-session -d -x 200 -y 50 -c "$T" \
		env "$@" sh -c 'trap : INT QUIT; "$0" -i; echo "$?" >"$1"' "$CARSH" "$T/tty.status"
	wait_until "the prompt" screen_has '^carsh>$'
	TPID=$(pgrep -P "$(tm display -p '#{pane_pid}')" | head -1)
}

# The visible screen: line N+1 is row N of the cursor's coordinates.
screen() {
	tm capture-pane -p
}

screen_has() {
	screen | grep -q -- "$1"
}

ended() {
	[ -s "$T/tty.status" ]
}

# Process $1 has exited (gone, or a zombie: an orphan's new parent may never reap it).
exited() {
	[ ! -e "/proc/$1" ] || [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -c1)" = Z ]
}

# The line "carsh> $1" was read in full: readline has echoed it and, at its end, moved the
# cursor below it (so that a Ctrl-C now reaches the command, and the terminal cannot flush
# the line as unread input).
line_taken() {
	local n
	n=$(screen | grep -n -x -F "carsh> $1" | tail -1 | cut -d: -f1)
	[ -n "$n" ] && [ "$(tm display -p '#{cursor_y}')" -ge "$n" ]
}

taken_or_ended() {
	line_taken "$1" || ended
}

# type LINE: type a command and wait until carsh has read it (or has ended).
type_line() {
	tm send-keys -l "$1"
	tm send-keys Enter
	wait_until "carsh to read '$1'" taken_or_ended "$1"
}

# A prompt after the line "carsh> $1", or the shell ended.
prompt_after_or_ended() {
	screen | sed -n "/^carsh> $1\$/,\$p" | tail -n +2 | grep -q '^carsh>' || ended
}

# The pid a background job's "[N] PID" line showed.
job_pid_shown() {
	screen | sed -n "s/^\[$1\] \([0-9]*\)$/\1/p" | tail -1
}

rm -f feed
mkfifo feed

# ---- Ctrl-C in sync ----
tty_start
exec 8<>feed
type_line "virtbuf create b float 4"
type_line "run $SINK x=- y=buffer:b < feed &"
wait_until "the job's [1] PID line" screen_has '^\[1\] [0-9]*$'
job=$(job_pid_shown 1)
type_line "sync"
tm send-keys C-c
if wait_until "sync to end on Ctrl-C (or the shell to end)" prompt_after_or_ended sync; then
	if ended; then
		fail "Ctrl-C in sync ended the shell (status $(cat "$T/tty.status"))"
	else
		pass "Ctrl-C in sync: the prompt is back"
	fi
fi
if process_executor; then
	wait_until "the waited job (pid $job) to be stopped" exited "$job" &&
		pass "Ctrl-C in sync stopped the job it waited for"
fi
# (Under the thread executor the job is a thread of the shell, which Ctrl-C cannot stop: it
# ends when its input does.)
type_line "exit"
exec 8>&-
wait_until "the shell to exit" ended
[ "$(cat "$T/tty.status")" = 130 ] && pass "sync interrupted by Ctrl-C returns 130" ||
	fail "after Ctrl-C in sync, exit gave $(cat "$T/tty.status"); screen: $(screen)"
[ -z "$(segments_of "$TPID")" ] && pass "Ctrl-C in sync: no segment left" ||
	fail "Ctrl-C in sync: segments left: $(segments_of "$TPID")"
tm kill-server

# ---- Ctrl-C while the shell waits for its jobs before exiting ----
tty_start
exec 8<>feed
type_line "virtbuf create b float 4"
type_line "run $SINK x=- y=buffer:b < feed &"
wait_until "the job's [1] PID line" screen_has '^\[1\] [0-9]*$'
job=$(job_pid_shown 1)
tm send-keys C-d
wait_until "the exit notice" screen_has "waiting for 1 background job(s) before exiting"
tm send-keys C-c
wait_until "the shell to end on Ctrl-C" ended
[ "$(cat "$T/tty.status")" = 130 ] && pass "Ctrl-C during the final wait: the shell exits 130" ||
	fail "Ctrl-C during the final wait: status $(cat "$T/tty.status")"
wait_until "the job (pid $job) to be stopped" exited "$job" &&
	pass "Ctrl-C during the final wait stopped the job"
exec 8>&-
[ -z "$(segments_of "$TPID")" ] && pass "Ctrl-C during the final wait: no segment left" ||
	fail "Ctrl-C during the final wait: segments left: $(segments_of "$TPID")"
tm kill-server

# ---- Ctrl-C in an engine's run (partition): it runs in a process of its own under both
# executors (runner/engineproc.h), which Ctrl-C stops; the shell keeps its prompt ----
PR="$DATA/errors/partrows.xml"
engine_running() {
	[ -n "$(pgrep -P "$TPID")" ]
}
tty_start
type_line "partition --no-progress --gpu none --threads 1 --sched cpu --steps 1000000000 $PR y=discard"
wait_until "the engine's process" engine_running
engine=$(pgrep -P "$TPID" | head -1)
tm send-keys C-c
if wait_until "partition to end on Ctrl-C (or the shell to end)" prompt_after_or_ended \
	"partition .*"; then
	if ended; then
		fail "Ctrl-C in partition ended the shell (status $(cat "$T/tty.status"))"
	else
		pass "Ctrl-C in partition: the prompt is back"
	fi
fi
screen_has "^carsh: partition: .*interrupted" && pass "Ctrl-C in partition: said so" ||
	fail "Ctrl-C in partition: screen: $(screen)"
wait_until "the engine's process (pid $engine) to end" exited "$engine" &&
	pass "Ctrl-C in partition stopped the engine's process"
tm send-keys C-d
wait_until "the shell to exit" ended
[ -z "$(segments_of "$TPID")" ] && pass "Ctrl-C in partition: no segment left" ||
	fail "Ctrl-C in partition: segments left: $(segments_of "$TPID")"
tm kill-server

# ---- Ctrl-C while the engine builds (runtime/buildsig.h): the build goes on through it,
# and the engine then stops as asked. Each case holds the build at one point until the key
# has reached the processes: the compiler reading a header (a FIFO; its output file, which
# the compiler's own SIGINT handler used to remove, is open), the linker of the build's
# binary (a stand-in ld first in PATH that waits for the test's word), and the linker of a
# kernel's first launch (in PoCL's own thread: the binary cache warm, PoCL's cache empty).
# Each has a cache of its own, so that the build happens. ----
REAL_LD=$(command -v ld)
mkdir -p bin
# In bash: dash clears the signal mask it inherits, which would undo the blocked SIGINT carsh
# hands PoCL's linker (the real ld keeps it).
cat >bin/ld <<EOF
#!/usr/bin/env bash
# The linker PoCL runs, held until the test has typed Ctrl-C (at most 60 s).
echo \$\$ >"$T/ld-held"
i=0
while [ ! -e "$T/ld-go" ] && [ \$i -lt 600 ]; do
	sleep 0.1
	i=\$((i + 1))
done
exec "$REAL_LD" "\$@"
EOF
chmod +x bin/ld

# SIGINT has reached process $1: it is gone, the signal is no longer pending, or every
# thread of it blocks the signal (it waits there, as carsh means it to). SIGINT is bit 1 of
# a mask, in its last hexadecimal digit.
sigint_bit() {
	case "$1" in
	*[2367abef]) return 0 ;;
	esac
	return 1
}
sigint_settled() {
	local st t
	st=$(sed -n 's/^ShdPnd:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$st" ] && sigint_bit "$st" || return 0
	for t in /proc/"$1"/task/*; do
		sigint_bit "$(sed -n 's/^SigBlk:[[:space:]]*//p' "$t/status" 2>/dev/null)" || return 1
	done
}
settled_all() {
	local p
	for p in "$@"; do
		sigint_settled "$p" || return 1
	done
}

compiler_waits() {
	local f
	for f in cache-hdr/pocl/kcache/*.preproc-*.tmp; do
		[ -e "$f" ] && return 0
	done
	ended
}
linker_waits() {
	[ -s ld-held ] || ended
}
shows_or_ended() {
	screen_has "$1" || ended
}

# build_interrupted WHAT FLOWMODEL HELD RELEASE [NAME=VALUE...]: partition of FLOWMODEL in
# a new terminal with the variables; once HELD says the build is held, Ctrl-C, and once the
# signal has reached the engine's process (and the linker, if one waits), RELEASE. The run
# must end as interrupted, not as a failed build.
build_interrupted() {
	local what="$1" fm="$2" held="$3" release="$4" engine pids
	shift 4
	rm -f ld-held ld-go
	tty_start "$@"
	type_line "partition --no-progress --gpu none --threads 1 --sched cpu --steps 1000000000 $fm y=discard"
	wait_until "$what: the build to be held" "$held"
	if ended; then
		fail "Ctrl-C $what: the shell ended (status $(cat "$T/tty.status")); screen: $(screen)"
		tm kill-server
		return
	fi
	engine=$(pgrep -P "$TPID" | head -1)
	pids="$engine $(cat ld-held 2>/dev/null)"
	tm send-keys C-c
	wait_until "$what: the terminal to echo ^C (or the shell to end)" shows_or_ended '\^C'
	# shellcheck disable=SC2086
	wait_until "$what: SIGINT to reach $pids" settled_all $pids
	eval "$release"
	wait_until "$what: partition to end (or the shell)" prompt_after_or_ended "partition .*"
	if screen_has "^carsh: partition: .*interrupted" &&
		! screen_has "Final linking\|unable to rename\|SIGABRT\|build failed"; then
		pass "Ctrl-C $what: the build went on and the engine stopped"
	else
		fail "Ctrl-C $what: screen: $(screen)"
	fi
	wait_until "$what: the engine's process (pid $engine) to end" exited "$engine"
	tm send-keys C-d
	wait_until "the shell to exit" ended
	tm kill-server
}

cat >slowhdr.xml <<'EOF'
<?xml version="1.0"?>
<FlowModel name="slowhdr">
  <Param name="N" value="256"/>
  <Program>
    <Source><![CDATA[
      #define HEADER "slow.h"
      #include HEADER
      __kernel void slowhdr(__global float *y)
      {
              y[get_global_id(0)] = SCALE;
      }
    ]]></Source>
    <Kernel name="slowhdr"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Output name="y" type="float" count="N" partition="block"/>
  </Arguments>
</FlowModel>
EOF
# The header for the compiler that waits for it; bounded, should no reader come.
release_header() {
	timeout 60 sh -c 'printf "#define SCALE 2.0f\n" >slow.h' || fail "no compiler read slow.h"
}
rm -rf slow.h cache-hdr
mkfifo slow.h
build_interrupted "while the compiler writes its output" "$T/slowhdr.xml" compiler_waits \
	release_header XDG_CACHE_HOME="$T/cache-hdr"

if [ -z "$REAL_LD" ]; then
	echo "SKIP: no ld in PATH: the checks of Ctrl-C while PoCL links did not run"
else
	rm -rf cache-link cache-launch
	build_interrupted "while the build's binary is linked" "$PR" linker_waits ": >ld-go" \
		XDG_CACHE_HOME="$T/cache-link" PATH="$T/bin:$PATH"
	# The binary cache filled, PoCL's emptied: the launch links the kernel.
	expect 0 "" env XDG_CACHE_HOME="$T/cache-launch" "$CARSH" -c \
		"partition --no-progress --gpu none --threads 1 --sched cpu --steps 1 $PR y=discard"
	rm -rf cache-launch/pocl
	build_interrupted "while a kernel is linked at its first launch" "$PR" linker_waits \
		": >ld-go" XDG_CACHE_HOME="$T/cache-launch" PATH="$T/bin:$PATH"
fi

alive_or_ended() {
	screen_has '^alive$' || ended
}

# Under the thread executor a job builds in the shell's own process: Ctrl-C while its
# program is linked leaves the shell running (PoCL's linker died of it, and PoCL's abort
# ended the shell with status 134).
if ! process_executor && [ -n "$REAL_LD" ]; then
	"$REF" gen 1000 1 >a.csv
	"$REF" gen 1000 2 >b.csv
	rm -rf cache-job ld-held ld-go
	tty_start XDG_CACHE_HOME="$T/cache-job" PATH="$T/bin:$PATH"
	type_line "run $FM/vadd.xml a=a.csv b=b.csv c=c.csv N=1000"
	wait_until "the job's link to be held" linker_waits
	ld=$(cat ld-held 2>/dev/null)
	tm send-keys C-c
	wait_until "the terminal to echo ^C (or the shell to end)" shows_or_ended '\^C'
	# shellcheck disable=SC2086
	wait_until "SIGINT to reach the shell and the linker" settled_all "$TPID" $ld
	: >ld-go
	type_line "echo alive"
	if wait_until "the shell to answer (or end)" alive_or_ended && ! ended; then
		pass "Ctrl-C while a job's program is linked: the shell lives on"
	else
		fail "Ctrl-C while a job's program is linked: status $(cat "$T/tty.status" 2>/dev/null); screen: $(screen)"
	fi
	tm send-keys C-d
	wait_until "the shell to exit" ended
	tm kill-server
fi

# ---- Ctrl-\ at the prompt ----
tty_start
tm send-keys 'C-\'
type_line "echo alive"
if wait_until "the shell to answer (or end)" alive_or_ended; then
	if ended; then
		fail "Ctrl-\\ at the prompt ended the shell (status $(cat "$T/tty.status"))"
	else
		pass "Ctrl-\\ at the prompt is ignored"
	fi
fi
tm send-keys C-d
wait_until "the shell to exit" ended
[ "$(cat "$T/tty.status")" = 0 ] && pass "Ctrl-\\ at the prompt: the shell exits 0 at Ctrl-D" ||
	fail "after Ctrl-\\: status $(cat "$T/tty.status")"
finish
