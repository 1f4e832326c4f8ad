#!/bin/sh
# Inputs from pipes and FIFOs, buffer names, NUL bytes in scripts, $?, `jobs` and
# completion (issue 24). A pipe or FIFO is read once, whole; an XML read from one resolves
# its relative paths against the current directory.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
seq 1 3 >x.csv
printf '2\n4\n6\n' >want.csv
cp "$TOP_SRCDIR/kernels/scale.cl" k.cl
cat >s.xml <<'XML'
<FlowModel name="scale">
  <Param name="N" value="3"/>
  <Program><Source file="k.cl"/><Kernel name="scale"/></Program>
  <WorkSize global="N"/>
  <Arguments>
    <Constant name="a" type="float" value="2"/>
    <Input    name="x" type="float" count="N"/>
    <Output   name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
cat >s.exe.xml <<'XML'
<CarshExe>
  <FlowModel file="s.xml"/>
  <Input  name="x"><DataFile>x.csv</DataFile></Input>
  <Output name="y"><DataFile>-</DataFile></Output>
</CarshExe>
XML

# An XML file from a pipe: read once (its root, then the file as its kind, see one text);
# relative paths in it are the current directory's, not /dev's.
cat s.xml | "$CARSH" -c 'run /dev/stdin x=x.csv y=-' >got.csv 2>"$ERR"
same_file got.csv want.csv "a flow-model piped to 'run /dev/stdin'"
cat s.exe.xml | "$CARSH" run /dev/stdin >got.csv 2>"$ERR"
same_file got.csv want.csv "an executable piped to 'carsh run /dev/stdin' finds its flow-model"
cat s.xml | "$CARSH" /dev/stdin x=x.csv y=- >got.csv 2>"$ERR"
same_file got.csv want.csv "carsh /dev/stdin runs piped XML by its first byte"
# A script from a pipe runs (it was read to see whether it is XML, and that text is kept).
expect 0 "" sh -c "echo 'echo hi' | '$CARSH' /dev/stdin"
[ "$(cat "$OUT")" = hi ] && pass "a piped script runs" || fail "piped script: '$(cat "$OUT")'"
# A FIFO: neither hangs nor loses its first bytes; each command reads its writer's text.
mkfifo ff
cat s.xml >ff &
timeout 60 "$CARSH" ff x=x.csv y=- >got.csv 2>"$ERR"
same_file got.csv want.csv "carsh FIFO runs the XML written to it"
echo 'echo from the fifo' >ff &
expect 0 "" timeout 60 "$CARSH" ff
[ "$(cat "$OUT")" = "from the fifo" ] && pass "carsh FIFO runs a script" ||
	fail "fifo script: '$(cat "$OUT")'"
# (The second writer waits for the first command to end: two writers at once would be one
# text.)
(cat s.xml >ff; while [ ! -e first.done ]; do sleep 0.1; done; cat s.xml >ff) &
expect 0 "" timeout 60 "$CARSH" -c 'run ff x=x.csv y=got1.csv; echo >first.done; run ff x=x.csv y=got2.csv'
cat got1.csv got2.csv >got.csv
cat want.csv want.csv >want2.csv
same_file got.csv want2.csv "each command reads the FIFO again (no stale cache by inode)"
wait

# A buffer name that starts with '-' would read as an option ('virtbuf delete -a').
expect 1 "carsh: virtbuf create: '-a': a buffer name cannot start with '-'" \
	"$CARSH" -c 'virtbuf create -a float 2'
expect 0 "" "$CARSH" -c 'virtbuf create a-b.c_1 float 2; virtbuf create keep float 2; virtbuf delete a-b.c_1; virtbuf list'
grep -q '^keep ' "$OUT" && ! grep -q '^a-b' "$OUT" && pass "names with '-' inside still work" ||
	fail "list: $(cat "$OUT")"

# A NUL byte in a script is refused with its file and line, not dropped with the line's rest.
printf 'echo a\necho b\000c\necho d\n' >nul.csh
expect 2 "carsh: nul.csh:2: a NUL byte in a script" "$CARSH" nul.csh
[ ! -s "$OUT" ] && pass "nothing of a script with a NUL byte runs" || fail "ran: $(cat "$OUT")"
expect 2 "carsh: nul.csh:2: a NUL byte in a script" "$CARSH" -c 'source nul.csh'
expect 2 "carsh: <stdin>:2: a NUL byte in a script" sh -c "'$CARSH' <nul.csh"

# $? is the last command's status.
printf 'nosuch\necho $? "$?" x$?y '"'"'$?'"'"'\necho $?\n' | "$CARSH" -i >"$OUT" 2>"$ERR"
grep -qx '127 127 x127y \$?' "$OUT" && grep -qx 0 "$OUT" && pass '$? expands to the last status' ||
	fail "\$?: $(cat "$OUT")"

# `jobs` reports a finished job once: not again at the next `jobs`, nor at the prompt.
# The run gives the background echo the time to finish: in its own workers (CARSH_SERVER=off),
# since a warm server's worker runs it in a millisecond, which a loaded machine may not give.
printf 'echo hi & run s.xml x=x.csv y=discard; jobs; jobs\necho y\n' |
	CARSH_SERVER=off "$CARSH" -i >"$OUT" 2>"$ERR"
[ "$(grep -c 'Done' "$OUT" "$ERR" | awk -F: '{ n += $2 } END { print n }')" = 1 ] &&
	pass "a finished job is reported once" || fail "jobs: $(cat "$OUT" "$ERR")"

# Completion knows virtbuf's operations, buffer names and help's topics.
if command -v script >/dev/null; then
	rm -f hist.txt
	printf 'virtbuf create buf_one float 2\nvirtbuf fi\t buf_\t\t x.csv\nhelp virt\t\nexit\n' |
		CARSH_HISTFILE=$PWD/hist.txt script -qfec "$CARSH" /dev/null >tty.txt 2>&1
	grep -v '^#' hist.txt >hist.lines
	printf 'virtbuf create buf_one float 2\nvirtbuf fill  buf_one  x.csv\nhelp virtbuf \nexit\n' >hist.want
	same_file hist.lines hist.want "Tab completes virtbuf operations, buffer names, help topics"
else
	pass "no script(1): the completion test is skipped"
fi
# Help speaks to users: paper references ("004 §5.3", "(003)") belong in docs/.
"$CARSH" --help >help.txt 2>&1
"$CARSH" -c help >>help.txt 2>&1
for c in $("$CARSH" -c help | awk 'NR > 1 { print $1 }'); do
	"$CARSH" -c "help $c" >>help.txt 2>&1
	"$CARSH" -c "$c --help" >>help.txt 2>&1
done
if grep -n '§\|(00[0-9]\|[Ee]quation [0-9]' help.txt >refs.txt; then
	fail "help cites papers: $(head -3 refs.txt)"
else
	pass "help and --help cite no papers"
fi
finish
