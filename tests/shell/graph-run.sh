#!/bin/sh
# Running pipeline graphs (docs/graphs.md, "Running a graph"): `run GRAPH.xml` runs PEA-ST's
# startup once and its repeat batch for the stream of items, a stage's flow-models at once.
# The graphs in tests/data/graphs/run use integer kernels, so a pipelined run, a serial run
# (--serial: one flow-model after another) and an awk model of the same graph must agree
# exactly, element by element.
. "$TOP_SRCDIR/tests/shell/lib.sh"
RUN="$DATA/graphs/run"
cd "$T" || exit 1

# want TEXT LABEL: standard error of the last `expect`, without its "step" lines, is TEXT.
trace_is() {
	grep -v '^graph \|^channel ' "$ERR" >"$T/trace"
	printf "$1" >"$T/want"
	same_file "$T/trace" "$T/want" "$2"
}

for k in 0 1 2 3 4 5 6 7; do
	echo "$k,$((k * 10)),$((100 - k)),-$k" >x$k.csv
done

# ---- 004 Figure 28: two feedback edges, three stages per repeat ----
# cycle.xml: A = a + 2 D' + 3 C' (D', C' of the item before; 1 and 2 before the first),
# B = A + 1 + i, C = 5 - A + i, D = 2 B + i, E = B - 3 + i, F = 3 D + 1 + i.
awk 'BEGIN {
	for (i = 0; i < 4; i++) { d[i] = 1; c[i] = 2 }
	for (k = 0; k < 5; k++) {
		getline line <("x" k ".csv"); split(line, x, ",")
		for (i = 0; i < 4; i++) {
			a = x[i + 1] + 2 * d[i] + 3 * c[i]; b = a + 1 + i; c[i] = 5 - a + i
			d[i] = 2 * b + i; print b - 3 + i >("want-e" k ".csv"); print 3 * d[i] + 1 + i >("want-f" k ".csv")
		}
	}
}'
expect 0 "" "$CARSH" "$RUN/cycle.xml" --items 5 --max-parallel 2 --trace A.a=x{i}.csv \
	E.y=e{i}.csv F.y=f{i}.csv
trace_is 'step 1, startup stage 1: A#0
step 2, repeat stage 2: B#0 C#0
step 3, repeat stage 3: D#0 E#0
step 4, repeat stage 4: F#0 A#1
step 5, repeat stage 2: B#1 C#1
step 6, repeat stage 3: D#1 E#1
step 7, repeat stage 4: F#1 A#2
step 8, repeat stage 2: B#2 C#2
step 9, repeat stage 3: D#2 E#2
step 10, repeat stage 4: F#2 A#3
step 11, repeat stage 2: B#3 C#3
step 12, repeat stage 3: D#3 E#3
step 13, repeat stage 4: F#3 A#4
step 14, repeat stage 2: B#4 C#4
step 15, repeat stage 3: D#4 E#4
step 16, repeat stage 4: F#4
' "Figure 28, root A: the startup once, then the repeat batch A | B C, D E, F A with the drain"
grep -q '^channel D.y (1 buffer): F.x A.b(item before)$' "$ERR" &&
	pass "D.y feeds F and, over the feedback edge, A's next item" || fail "channels: $(cat "$ERR")"
same_items e want-e 5 "Figure 28 pipelined: E equals the model"
same_items f want-f 5 "Figure 28 pipelined: F equals the model"
expect 0 "" "$CARSH" "$RUN/cycle.xml" --items 5 --max-parallel 2 --serial A.a=x{i}.csv \
	E.y=se{i}.csv F.y=sf{i}.csv
same_items se want-e 5 "Figure 28 serial: E equals the model"
same_items sf want-f 5 "Figure 28 serial: F equals the model"

# Root C (the largest parallelism) makes A -> C a feedback edge, which has no initial data.
expect 1 "cycle.xml:14: <Edge from=\"A\" to=\"C\">: a feedback edge with root 'C' (PEA-ST's schedule): 'C' reads 'x' of the item before, so the first item needs initial data: add value= or file= to the edge, or C.x=FILE|fill:VALUE to the command line" \
	"$CARSH" "$RUN/cycle.xml" --items 2 A.a=x{i}.csv E.y=- F.y=-
# Given it, C reads A of the item before (7 before the first) and A reads C of its own item.
awk 'BEGIN {
	for (i = 0; i < 4; i++) { d[i] = 1; a[i] = 7 }
	for (k = 0; k < 5; k++) {
		getline line <("x" k ".csv"); split(line, x, ",")
		for (i = 0; i < 4; i++) {
			c = 5 - a[i] + i; a[i] = x[i + 1] + 2 * d[i] + 3 * c; b = a[i] + 1 + i
			d[i] = 2 * b + i; print b - 3 + i >("wantc-e" k ".csv"); print 3 * d[i] + 1 + i >("wantc-f" k ".csv")
		}
	}
}'
expect 0 "" "$CARSH" "$RUN/cycle.xml" --items 5 --trace C.x=fill:7 A.a=x{i}.csv E.y=ce{i}.csv \
	F.y=cf{i}.csv
trace_is 'step 1, startup stage 1: C#0
step 2, startup stage 2: A#0
step 3, repeat stage 3: B#0
step 4, repeat stage 4: D#0 E#0 C#1
step 5, repeat stage 5: F#0 A#1
step 6, repeat stage 3: B#1
step 7, repeat stage 4: D#1 E#1 C#2
step 8, repeat stage 5: F#1 A#2
step 9, repeat stage 3: B#2
step 10, repeat stage 4: D#2 E#2 C#3
step 11, repeat stage 5: F#2 A#3
step 12, repeat stage 3: B#3
step 13, repeat stage 4: D#3 E#3 C#4
step 14, repeat stage 5: F#3 A#4
step 15, repeat stage 3: B#4
step 16, repeat stage 4: D#4 E#4
step 17, repeat stage 5: F#4
' "Figure 29(b), root C: three flow-models at once"
same_items ce wantc-e 5 "root C pipelined: E equals the model"
same_items cf wantc-f 5 "root C pipelined: F equals the model"
expect 0 "" "$CARSH" "$RUN/cycle.xml" --items 5 --serial C.x=fill:7 A.a=x{i}.csv \
	E.y=sce{i}.csv F.y=scf{i}.csv
same_items sce ce 5 "root C: serial equals pipelined"
same_items scf cf 5 "root C: serial equals pipelined (F)"

# ---- an InOut stream: one item's data live three stages, so two buffers take turns ----
# inout.xml: P = x + i; Q: z = 2 z + 1 in place; R = z + i.
awk 'BEGIN {
	for (k = 0; k < 8; k++) {
		getline line <("x" k ".csv"); split(line, x, ",")
		for (i = 0; i < 4; i++) {
			q = 2 * (x[i + 1] + i) + 1; print q >("want-q" k ".csv"); print q + i >("want-r" k ".csv")
		}
	}
}'
# Without --items: as many items as x0.csv, x1.csv, ... exist. Bare stream names bind every
# entrance (x) or exit (y, z) of that name.
expect 0 "" "$CARSH" "$RUN/inout.xml" --trace x=x{i}.csv z=q{i}.csv y=r{i}.csv
grep -q '^graph inout: 8 items, root P, shift 2, 1 startup and 2 repeat stages$' "$ERR" &&
	pass "the items are the entrance files x0.csv .. x7.csv" || fail "items: $(head -1 "$ERR")"
grep -q '^channel P.y (2 buffers): Q.z R.x$' "$ERR" &&
	pass "P.y, changed in place by Q and read by R, has two buffers" ||
	fail "channels: $(cat "$ERR")"
grep -q '^step 3, repeat stage 3: R#0 P#1$' "$ERR" &&
	pass "R reads item 0 while P writes item 1" || fail "schedule: $(cat "$ERR")"
same_items q want-q 8 "InOut: Q's exit equals the model"
same_items r want-r 8 "InOut: R's exit equals the model"
expect 0 "" "$CARSH" "$RUN/inout.xml" --serial x=x{i}.csv z=sq{i}.csv y=sr{i}.csv
same_items sr want-r 8 "InOut serial equals the model"

# ---- a node that reads its own previous output: a running sum, y(-1) = 10 ----
awk 'BEGIN { for (i = 0; i < 4; i++) s[i] = 10
	for (k = 0; k < 6; k++) { getline line <("x" k ".csv"); split(line, x, ",")
		for (i = 0; i < 4; i++) { s[i] += x[i + 1]; print s[i] } } }' >want-sum
expect 0 "" "$CARSH" "$RUN/selfloop.xml" --items 6 --trace a=x{i}.csv y=-
same_file "$OUT" want-sum "a self-loop: the running sum, every item on standard output"
grep -q '^channel S.y (2 buffers): S.b(item before)$' "$ERR" &&
	pass "a self-loop reads one buffer while it writes the other" ||
	fail "channels: $(cat "$ERR")"

# ---- data named in the graph file, relative to it; nothing left behind ----
mkdir -p g/in g/out
cp "$RUN"/*.xml "$RUN"/ops.cl g/
cp x0.csv x1.csv x2.csv g/in/
sed -e 's|<Entrance node="P" input="x"/>|<Entrance node="P" input="x" file="in/x{i}.csv"/>|' \
	-e 's|<Exit node="R" output="y"/>|<Exit node="R" output="y" file="out/r{i}.csv"/>|' \
	-e 's|<Exit node="Q" output="z"/>|<Exit node="Q" output="z" file="-"/>|' \
	"$RUN/inout.xml" >g/inout.xml
expect 0 "" "$CARSH" -c "run g/inout.xml; virtbuf list"
same_items g/out/r want-r 3 "file= in the graph is relative to the graph; three items"
[ "$(grep -c . "$OUT")" = 13 ] && pass "Q's exit went to standard output, and no buffer is left" ||
	fail "stdout: $(cat "$OUT")"
expect 0 "" "$CARSH" -c "run g/inout.xml --items 2 z=discard y=bg{i}.csv & sync"
same_items bg want-r 2 "run GRAPH.xml & runs in the background"
[ ! -e bg2.csv ] && pass "run GRAPH.xml --items 2 & keeps its options in the background" ||
	fail "the background run ran 3 items, not --items 2"

# A run that fails half-way (no x5.csv for item 5) stops, says where, and deletes its
# buffers.
mkdir -p part && cp x0.csv x1.csv x2.csv x3.csv x4.csv part/
expect 1 "inout.xml: step 11, repeat stage 3: entrance P.x, item 5: virtbuf fill" \
	"$CARSH" -c "run $RUN/inout.xml --items 6 x=part/x{i}.csv y=p{i}.csv z=discard"
printf 'run %s --items 6 x=part/x{i}.csv y=discard z=discard\nvirtbuf list\n' "$RUN/inout.xml" |
	"$CARSH" -i >"$OUT" 2>"$ERR"
[ "$(grep -c '^NAME\|^_g' "$OUT")" = 1 ] && pass "a failed run leaves no buffer" ||
	fail "left: $(cat "$OUT" "$ERR")"

# ---- errors ----
expect 2 "--items '0': expected a positive integer" "$CARSH" "$RUN/inout.xml" --items 0 x=x0.csv y=- z=-
expect 2 "--items 'x': expected a positive integer" "$CARSH" "$RUN/inout.xml" --items x \
	x=x0.csv y=- z=-
expect 2 "unknown option '--bogus'" "$CARSH" "$RUN/inout.xml" --bogus
expect 2 "missing value after '--items'" "$CARSH" "$RUN/inout.xml" --items
expect 1 "<Exit node=\"Q\" output=\"z\">: no destination: add file= or Q.z=FILE|-|discard" \
	"$CARSH" "$RUN/inout.xml" x=x0.csv y=-
expect 1 "<Entrance node=\"P\" input=\"x\">: no data: add file= or value=" \
	"$CARSH" "$RUN/inout.xml" y=- z=-
expect 1 "no items: 'nothing{i}.csv' names no file for item 0" \
	"$CARSH" "$RUN/inout.xml" x=nothing{i}.csv y=- z=-
expect 1 "Q.z=fill:1: an <Exit> takes FILE, - or discard" \
	"$CARSH" "$RUN/inout.xml" x=x0.csv y=- Q.z=fill:1
expect 1 "W.q=x: no such node" "$CARSH" "$RUN/inout.xml" W.q=x
expect 1 "R.x=x0.csv: not an <Entrance>, an <Exit> or the input of a feedback edge" \
	"$CARSH" "$RUN/inout.xml" R.x=x0.csv

# Graphs the runner refuses, each a small edit of inout.xml.
bad() { # NAME SED-EXPRESSION: g/NAME.xml
	sed -e "$2" "$RUN/inout.xml" >"g/$1.xml"
}
bad limit 's|input="z"/>|input="z" limit="2"/>|'
expect 1 "<Edge from=\"P\" to=\"Q\">: limit=2: PEA-ST runs every flow-model once per item" \
	"$CARSH" g/limit.xml x=x0.csv y=- z=-
bad noexe 's|<Node name="R" exe="lin1.xml"/>|<Node name="R"/>|'
expect 1 "<Node name=\"R\">: no exe=, so it cannot run" "$CARSH" g/noexe.xml x=x0.csv y=- z=-
bad sibling 's|<Exit node="Q" output="z"/>|<Edge from="P" to="R2" output="y" input="x"/><Node name="R2" exe="lin1.xml"/><Exit node="R2" output="y"/>|'
expect 1 "'z' is an InOut stream of 'Q': it would change in place the data that 'P' also sends to 'R2'" \
	"$CARSH" g/sibling.xml x=x0.csv y=-
bad unnamed 's|<Edge from="P" to="Q" output="y" input="z"/>|<Edge from="P" to="Q"/>|; s|exe="bump.xml"|exe="lin3.xml"|'
expect 1 "<Edge from=\"P\" to=\"Q\">: 'Q' has several input streams: a, b, c; name the one meant with input=" \
	"$CARSH" g/unnamed.xml x=x0.csv y=- z=-
bad float 's|<Node name="P" exe="lin1.xml"/>|<Node name="P" exe="'"$FM"'/scale.xml"/>|'
expect 1 "'P.y' holds 4 float but 'Q.z' reads 4 int; the streams of an edge must match" \
	"$CARSH" g/float.xml x=fill:1 y=- z=-
sed -e 's|<Buffer>B_x</Buffer>|<DataFile>b.csv</DataFile>|' "$RUN/B.exe.xml" >g/B.exe.xml
expect 1 "stream 'x' is a port of graph" "$CARSH" g/cycle.xml --items 1 --max-parallel 2 \
	a=x0.csv E.y=- F.y=-

finish
