#!/bin/sh
# The command grammar of DESIGN §4 as carsh runs it (the parser's unit tests cover the rest).
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

expect 0 "" "$CARSH" -c "echo 'single \${X}' \"double \${HOME}\" a#b # a comment"
printf 'single ${X} double %s a#b\n' "$HOME" >want
same_file "$OUT" want "quotes, \${NAME} outside single quotes, # starts a comment"
expect 2 '${NOPE}: variable not set' "$CARSH" -c 'echo ${NOPE}'
expect 0 "" "$CARSH" -c 'set N=3; echo ${N}; set N=4; echo ${N}'
printf '3\n4\n' >want
same_file "$OUT" want "each command sees variables set before it on the same line"

# Redirections of builtins and of jobs.
expect 0 "" "$CARSH" -c 'echo first > r.txt; echo second >> r.txt'
printf 'first\nsecond\n' >want
same_file r.txt want "> and >>"
seq 1 1000 >x.csv
expect 0 "" "$CARSH" -c "run $FM/scale.xml x=- y=- < x.csv > y.csv"
"$REF" scale 2 x.csv >y.want
close_to y.csv y.want 0 "a job reads < and writes > redirections"
expect 1 "nodir/out.txt: No such file or directory" "$CARSH" -c 'echo x > nodir/out.txt'
expect 2 "unterminated" "$CARSH" -c 'echo "open'

# A job in the background; the shell waits for it before it exits.
expect 0 "" "$CARSH" -c "run $FM/scale.xml x=x.csv y=bg.csv & echo started"
grep -q "^\[1\] [0-9][0-9]*$" "$ERR" && pass "& prints [N] PID" || fail "& notice: $(cat "$ERR")"
close_to bg.csv y.want 0 "the background job finished before carsh exited"
finish
