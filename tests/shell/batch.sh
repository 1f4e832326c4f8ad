#!/bin/sh
# Batches (DESIGN §3.4): every element, parameters, failures with every file:line on the way,
# recursion, the implicit sync at the end, background batches.
. "$TOP_SRCDIR/tests/shell/lib.sh"
# Batches write beside themselves: work on a copy of the test data.
cp -r "$DATA" "$T/data"
B="$T/data/batch"
cd "$T" || exit 1

expect 0 "" "$CARSH" "$B/all.bat.xml"
cat >want <<'W'
hello from nested with N=4
command sees N=4
echo sees STEPS=N-1
4,5,6,7
W
same_file "$OUT" want "every batch element ran in order with the batch's parameters"
printf '10\n14\n18\n22\n' >want
same_file "$B/z.csv" want "Repeat, swap, inline and background Exec, Sync: z accumulated every pass"

# The caller's parameters beat the batch's defaults (N=8: STEPS=7 passes).
seq 1 8 >"$B/x4.csv"
expect 0 "" "$CARSH" "$B/all.bat.xml" N=8
grep -q "^8,9,10,11,12,13,14,15$" "$OUT" && pass "N=8 on the command line: 7 passes over 8 values" ||
	fail "N=8: $(cat "$OUT")"
expect 0 "" "$CARSH" -c "set N=8; run $B/all.bat.xml"
grep -q "^8,9,10,11,12,13,14,15$" "$OUT" && pass "a shell variable is a caller parameter of a batch" ||
	fail "set N=8: $(cat "$OUT")"
seq 1 4 >"$B/x4.csv"

# The first failing step stops the batch; the error names the file, the line and the
# element; a job started before still finishes.
expect 1 "fails.bat.xml:7: <Virtbuf name=\"nosuch\">: virtbuf dump: no virtual buffer 'nosuch'" \
	"$CARSH" "$B/fails.bat.xml"
printf 'before\nbetween\n' >want
head -2 "$OUT" >got
same_file got want "nothing runs after the failing step"
grep -q "^after$" "$OUT" && fail "a step after the failure ran" || pass "the step after the failure did not run"
[ "$(grep -c "^3$" "$OUT")" -eq 4 ] && pass "the background job started before the failure finished" ||
	fail "background job output: $(cat "$OUT")"

# A failed batch deletes the buffers it created, so that it can run again; the shell's own
# buffers stay.
printf 'virtbuf create mine int 2\nrun %s\nrun %s\nvirtbuf list\n' "$B/fails-created.bat.xml" \
	"$B/fails-created.bat.xml" | "$CARSH" -i >"$OUT" 2>"$ERR"
[ "$(grep -c "virtual buffer 'made' exists already" "$ERR")" -eq 0 ] &&
	[ "$(grep -c "no virtual buffer 'nosuch'" "$ERR")" -eq 2 ] &&
	pass "a failed batch runs again: its buffers are gone" || fail "second run: $(cat "$ERR")"
grep -q '^mine ' "$OUT" && ! grep -q '^made ' "$OUT" &&
	pass "after it failed, the shell's buffer stays and the batch's is deleted" ||
	fail "virtbuf list: $(cat "$OUT")"

# A failure inside a nested batch is reported with every file:line on the way.
expect 1 "outer.bat.xml:4: <Batch file=\"$B/inner.bat.xml\">: $B/inner.bat.xml:4: <Exec file=\"$B/../bad/unknown_type.xml\">: $B/../bad/unknown_type.xml:15: <Input name=\"x\">: unknown type 'flaot'" \
	"$CARSH" "$B/outer.bat.xml"

# Recursion is detected, with the chain of files.
expect 1 "batch recursion: $B/loop_a.bat.xml -> $B/loop_b.bat.xml -> $B/loop_a.bat.xml" \
	"$CARSH" "$B/loop_a.bat.xml"

# A batch is known by its file, not its name: reached again through a symbolic or a hard
# link, it is recursion at once.
mkdir -p "$T/linked"
ln -s "$B/loop_a.bat.xml" "$T/linked/a.bat.xml"
printf '<?xml version="1.0"?>\n<CarshBat>\n  <Batch file="a.bat.xml"/>\n</CarshBat>\n' \
	>"$T/linked/loop_b.bat.xml"
expect 1 "batch recursion: $T/linked/a.bat.xml -> $T/linked/loop_b.bat.xml -> $T/linked/a.bat.xml" \
	"$CARSH" "$T/linked/a.bat.xml"
printf '<?xml version="1.0"?>\n<CarshBat>\n  <Batch file="y.bat.xml"/>\n</CarshBat>\n' \
	>"$T/linked/x.bat.xml"
ln "$T/linked/x.bat.xml" "$T/linked/y.bat.xml"
expect 1 "batch recursion: $T/linked/x.bat.xml -> $T/linked/y.bat.xml" \
	"$CARSH" "$T/linked/x.bat.xml"

# The end of a batch is an implicit sync: a failed background job fails the batch.
expect 1 "bgfail.bat.xml: at its end: job [1]" "$CARSH" "$B/bgfail.bat.xml"
grep -q "^started$" "$OUT" && pass "the batch ran to its end before the implicit sync" || fail "$(cat "$OUT")"

# Reader errors.
expect 1 "bad_op.bat.xml:3: <Virtbuf name=\"x\">: op=\"create\" needs count=\"...\"" "$CARSH" "$B/bad_op.bat.xml"
expect 1 "bad_repeat.bat.xml:3: <Repeat>: repeat count: log2(12): 12 is not a power of two" "$CARSH" "$B/bad_repeat.bat.xml"

# A batch in the background: [N] PID, then sync waits for it and its own jobs.
expect 0 "" "$CARSH" -c "run $B/all.bat.xml & sync; echo synced"
grep -q "^\[1\] [0-9]*$" "$ERR" && pass "a background batch prints [1] PID" || fail "$(cat "$ERR")"
tail -1 "$OUT" | grep -q "^synced$" && grep -q "^4,5,6,7$" "$OUT" && pass "sync waited for the background batch" ||
	fail "background batch: $(cat "$OUT")"
expect 1 "sync: job [1] run $B/fails.bat.xml: Exit 1: $B/fails.bat.xml:7" \
	"$CARSH" -c "run $B/fails.bat.xml & sync"

# repeat N COMMAND: N runs of a job whose InOut accumulates (z += x), so z = N·x; N an
# expression; 0 runs nothing; a failing run stops the rest and is named.
expect 0 "" "$CARSH" -c "virtbuf create p float 8; virtbuf fill p --value 2; virtbuf create q float 8
virtbuf create z float 8; virtbuf fill z --value 0
repeat 0 echo never; repeat 2*3-1 run $B/addone.exe.xml; virtbuf dump z"
[ "$(grep -c never "$OUT")" = 0 ] && [ "$(grep -c '^10$' "$OUT")" = 8 ] &&
	[ "$(wc -l <"$OUT")" = 8 ] && pass "repeat 2*3-1: z = 5 x 2 everywhere" ||
	fail "repeat: $(cat "$OUT")"
expect 127 "repeat: run 1 of 3: nosuch: command not found" "$CARSH" -c "repeat 3 nosuch; echo after"
grep -q after "$OUT" && fail "the line went on after repeat failed" || pass "repeat stops the line"
finish
