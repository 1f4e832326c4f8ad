#!/bin/sh
# The ways to start carsh (DESIGN §4) and what --help and --version promise.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

expect 0 "" "$CARSH" --help
grep -q "^usage: carsh" "$OUT" && grep -q -- "--device" "$OUT" && pass "--help shows usage and options" ||
	fail "--help: $(cat "$OUT")"
# Where the man page is not installed, --help says how to read it from the source tree.
[ -e "$(man -w carsh 2>/dev/null)" ] || grep -q "'man -l docs/carsh.1'" "$OUT" &&
	pass "--help names a manual that can be read" || fail "--help: $(tail -2 "$OUT")"
# Every option --help names is accepted (in its option lines: the text names 'man -l').
for opt in $(grep -- '^  -' "$OUT" | grep -o -- ' -[a-zA-Z],\? \?--[a-z-]*\| -[a-zA-Z] ' | grep -o -- '--[a-z-]*\|-[a-zA-Z]' | sort -u); do
	case "$opt" in
	-c) expect 0 "" "$CARSH" -c 'echo x' ;;
	-d | --device) expect 0 "" "$CARSH" "$opt" cpu -c 'echo x' ;;
	*) expect 0 "" "$CARSH" "$opt" ;;
	esac
done
expect 0 "" "$CARSH" --version
grep -q "^carsh [0-9]" "$OUT" && pass "--version" || fail "--version: $(cat "$OUT")"

expect 0 "" "$CARSH" -c 'echo hello "big world"; echo again'
printf 'hello big world\nagain\n' >want
same_file "$OUT" want "-c runs each command"

# A script file, with NAME=VALUE arguments as variables.
printf '# a comment\necho from ${WHO}\nset X=1\necho X is ${X}\n' >script.csh
expect 0 "" "$CARSH" script.csh WHO=script
printf 'from script\nX is 1\n' >want
same_file "$OUT" want "a script with a variable from the command line"

# Commands on standard input when it is not a terminal.
printf 'echo one\necho "two\nlines"\n' | "$CARSH" >"$OUT" 2>"$ERR"
printf 'one\ntwo\nlines\n' >want
same_file "$OUT" want "commands from a pipe, a quoted newline included"

# A non-interactive shell stops at the first failing command, with its status.
expect 127 "nosuch: command not found" "$CARSH" -c 'echo before; nosuch; echo after'
printf 'before\n' >want
same_file "$OUT" want "nothing runs after the failing command"
expect 3 "" "$CARSH" -c 'exit 3; echo never'
[ ! -s "$OUT" ] && pass "exit stops the shell" || fail "exit: $(cat "$OUT")"
expect 2 "exit: 'x': expected a status from 0 to 255" "$CARSH" -c 'exit x'
expect 127 "nosuch.csh: No such file or directory" "$CARSH" nosuch.csh

# help lists every builtin; help CMD gives its usage.
expect 0 "" "$CARSH" -c help
for c in run devices time set unset echo source cd help exit; do
	grep -q "^  $c " "$OUT" || fail "help does not list $c"
done
pass "help lists the builtins"
expect 0 "" "$CARSH" -c 'help run'
grep -q "^usage: run FILE.xml" "$OUT" && pass "help run" || fail "help run: $(cat "$OUT")"
expect 1 "help: nosuch: no such command" "$CARSH" -c 'help nosuch'

# set, unset, source, cd.
expect 0 "" "$CARSH" -c 'set B=2 A=1; set'
printf 'A=1\nB=2\n' >want
grep -v '^exec=' "$OUT" >got # -T shows as exec=thread
same_file got want "set lists variables in name order"
expect 1 "unset: A: no such variable" "$CARSH" -c 'unset A'
expect 1 "set: stats must be 'on' or 'off'" "$CARSH" -c 'set stats=maybe'
printf 'set FROM=sourced\n' >vars.csh
expect 0 "" "$CARSH" -c 'source vars.csh; echo ${FROM}'
printf 'sourced\n' >want
same_file "$OUT" want "source runs in this shell"
printf 'source loop.csh\n' >loop.csh
expect 1 "nested more than 64 deep" "$CARSH" -c 'source loop.csh'
mkdir -p sub
expect 0 "" "$CARSH" -c "cd sub; echo ok > here.txt"
[ -f sub/here.txt ] && pass "cd changes where relative paths go" || fail "cd"
expect 1 "cd: /nonexistent: No such file or directory" "$CARSH" -c 'cd /nonexistent'
# NAME --help: every builtin prints its usage and exits 0; echo prints its words.
for name in $("$CARSH" -c help | awk '/^  [a-z]/ { print $1 }'); do
	[ "$name" = echo ] && continue
	out=$("$CARSH" -c "$name --help") || fail "$name --help exited $?"
	case $out in
	"usage: $name"*) pass "$name --help" ;;
	*) fail "$name --help printed: $(printf '%s' "$out" | head -1)" ;;
	esac
done
[ "$("$CARSH" -c 'echo --help')" = "--help" ] && pass "echo --help prints its word" ||
	fail "echo --help"
# Builtins with options share one parser: a bad option gets the same one-line answer, with
# the usage, and status 2, from any of them; --help may stand anywhere among the words.
expect 2 "carsh: peast: unknown option '--bogus'; usage: peast GRAPH.xml" \
	"$CARSH" -c 'peast g.xml --bogus'
expect 2 "carsh: partition: unknown option '--bogus'; usage: partition [--sched" \
	"$CARSH" -c 'partition --bogus e.xml'
expect 2 "carsh: time: unknown option '--bogus'; usage: time [--wall] COMMAND" \
	"$CARSH" -c 'time --bogus echo x'
expect 2 "carsh: graph: missing value after '--root'; usage: graph FILE.xml" \
	"$CARSH" -c 'graph g.xml --root'
expect 2 "carsh: pack: missing value after '--name'; usage: pack BATCH.xml" \
	"$CARSH" -c 'pack b.xml --name'
expect 2 "carsh: partition: --json takes no value; usage: partition [--sched" \
	"$CARSH" -c 'partition --json=yes e.xml'
expect 2 "carsh: pack: --explain takes no value; usage: pack BATCH.xml" \
	"$CARSH" -c 'pack b.xml --explain=yes'
expect 0 "" "$CARSH" -c 'peast g.xml --help'
grep -q '^usage: peast GRAPH.xml' "$OUT" && grep -q '^  --max-parallel N ' "$OUT" &&
	pass "--help after an operand prints the help with every option" ||
	fail "peast g.xml --help: $(cat "$OUT")"
# The template counts the operands after the options: the same answers for every builtin,
# with an option anywhere, and a negative number is an operand, not an option.
expect 2 "carsh: graph: one file at a time, not also 'b.xml'; usage: graph FILE.xml" \
	"$CARSH" -c 'graph --root r a.xml b.xml'
expect 2 "carsh: peast: no graph given; usage: peast GRAPH.xml" "$CARSH" -c 'peast --print'
expect 2 "carsh: partition: no executable given; usage: partition [--sched" "$CARSH" -c 'partition'
expect 2 "carsh: pipeline: no pipeline file given; usage: pipeline [--criterion" \
	"$CARSH" -c 'pipeline --explain N=3'
expect 2 "carsh: check: unknown option '--bogus'; usage: check GRAPH.xml" \
	"$CARSH" -c 'check --bogus g.xml'
expect 2 "carsh: usage: devices [--profiles]" "$CARSH" -c 'devices --profiles extra'
expect 2 "carsh: usage: virtbuf swap A B" "$CARSH" -c 'virtbuf swap a'
expect 2 "carsh: repeat: unknown option '--bogus'; usage: repeat [--index NAME] N COMMAND" \
	"$CARSH" -c 'repeat --bogus 3 echo x'
expect 2 "carsh: repeat: repeat count is -2: it must be at least 0" "$CARSH" -c 'repeat -2 echo x'
expect 0 "" "$CARSH" -c 'repeat --index=i 2 echo x'
[ "$(cat "$OUT")" = "$(printf 'x\nx')" ] && pass "repeat --index=NAME, as any option" ||
	fail "repeat --index=i: $(cat "$OUT")"
expect 2 "carsh: usage: unset NAME..." "$CARSH" -c 'unset'
# The interactive shell on a terminal (script(1) gives it one): Tab completes a builtin's
# name, Up recalls the last line, and every line lands in $CARSH_HISTFILE.
if command -v script >/dev/null; then
	rm -f hist.txt
	printf 'echo hello\n\033[A\nech\t world\nexit\n' |
		CARSH_HISTFILE=$PWD/hist.txt script -qfec "$CARSH" /dev/null >tty.txt 2>&1
	grep -v '^#' hist.txt >hist.lines
	printf 'echo hello\necho hello\necho  world\nexit\n' >hist.want
	same_file hist.lines hist.want "history: Up recalled the line, Tab completed 'ech', all saved"
	[ "$(tr -d '\r' <tty.txt | grep -c 'hello$')" -ge 2 ] && pass "the recalled line ran" ||
		fail "interactive output: $(tr -d '\r' <tty.txt | cat -v | tail -5)"
else
	pass "no script(1): the interactive test is skipped"
fi
finish
