#!/bin/sh
# The pipeline-graph builtins through the built carsh: check (004 Algorithm 1), peast (PEA-ST,
# Algorithm 3) with its printed stages and generated batches, and graph (DOT).
. "$TOP_SRCDIR/tests/shell/lib.sh"
G="$DATA/graphs"
SHIPPED="$TOP_SRCDIR/batches/graphs"
cd "$T" || exit 1

# want TEXT LABEL: standard output of the last `expect` is exactly TEXT (printf format).
want() {
	printf "$1" >"$T/want"
	same_file "$OUT" "$T/want" "$2"
}

# ---- check ----
expect 0 "" "$CARSH" -c "check $G/fig28.xml"
want 'init D A\ninit C A\n' "Figure 28: D->A and C->A, both INITONCE, break both cycles"
expect 1 "check: $G/fig28_open.xml: deadlock: 2 of 2 cyclic paths have no INITONCE edge (the shortest: A -> C -> A); mark the edges listed kind=\"INITONCE\"" \
	"$CARSH" -c "check $G/fig28_open.xml"
want 'init D A\ninit C A\n' "Figure 28 without INITONCE: the same two edges are needed"
expect 0 "" "$CARSH" -c "check $SHIPPED/kmeans.xml"
want 'init SetNewCenter SetGroup\n' "k-means: the feedback SetNewCenter -> SetGroup"
expect 0 "" "$CARSH" -c "check $SHIPPED/fft-filter.xml"
want '' "the FFT filter has no cycle"
expect 1 "deadlock: 4 of 4 cyclic paths" "$CARSH" -c "check $G/ports.xml"
want 'init B.x A.x\ninit B.z A.z\n' "parallel edges are named by their ports"
expect 1 "no_exit.xml: not a pipeline-model: it has no EXIT port" \
	"$CARSH" -c "check $G/no_exit.xml"
expect 1 "disconnected.xml: not a pipeline-model: 'C', 'D' are not connected to 'A'" \
	"$CARSH" -c "check $G/disconnected.xml"
expect 1 "bad_unknown_node.xml:3: <Edge from=\"A\" to=\"X\">: unknown node 'X'" \
	"$CARSH" -c "check $G/bad_unknown_node.xml"
expect 1 "bad_ambiguous.xml:5: <Edge from=\"A\" to=\"B\">: ambiguous: another edge from 'A' to 'B' at line 4" \
	"$CARSH" -c "check $G/bad_ambiguous.xml"
expect 1 "bad_kind.xml:3: <Edge from=\"A\" to=\"A\">: unknown kind 'INIT_ONCE' (INTERMEDIATE or INITONCE)" \
	"$CARSH" -c "check $G/bad_kind.xml"
expect 1 "bad_limit.xml:3: <Exit node=\"A\">: limit '0' is not a positive integer" \
	"$CARSH" -c "check $G/bad_limit.xml"
expect 1 "bad_duplicate.xml:3: <Node name=\"A\">: duplicate node 'A' (first at line 2)" \
	"$CARSH" -c "check $G/bad_duplicate.xml"
expect 1 "vadd.xml:3: <FlowModel name=\"vadd\">: expected a <CarshGraph> file" \
	"$CARSH" -c "check $FM/vadd.xml"
expect 1 "nowhere.xml: No such file or directory" "$CARSH" -c "check nowhere.xml"
expect 2 "usage: check GRAPH.xml" "$CARSH" -c "check"

# ---- peast --print: 004's examples, derived by hand in tests/unit/test_graph_peast.c ----
expect 0 "" "$CARSH" -c "peast $G/fig28.xml --print"
want 'startup\tC\nstartup\tA\nrepeat\tB\nrepeat\tD E C\nrepeat\tF A\nshift\t3\nroot\tC\n' \
	"Figure 29(b): root C gives the largest parallelism, three"
expect 0 "" "$CARSH" -c "peast $G/fig28.xml --max-parallel 2"
want 'startup\tA\nrepeat\tB C\nrepeat\tD E\nrepeat\tF A\nshift\t3\nroot\tA\n' \
	"Figure 28: at most two at once, A is the earliest of A, B and D"
expect 0 "" "$CARSH" -c "peast $G/fig28.xml --root B --print"
want 'startup\tB\nrepeat\tD E\nrepeat\tA F\nrepeat\tC B\nshift\t3\nroot\tB\n' "--root B"
expect 0 "" "$CARSH" -c "peast $G/chain5.xml"
want 'startup\tA\nstartup\tB\nstartup\tC A\nrepeat\tD B\nrepeat\tE C A\nshift\t2\nroot\tA\n' \
	"Figure 29(a): a straight flow, shift 2, parallelism 3"
expect 0 "" "$CARSH" -c "peast $SHIPPED/kmeans.xml"
want 'startup\tInitCenterCluster\nstartup\tSetGroup\nrepeat\tSetNewCenter InitCenterCluster\nrepeat\tChangeColor SetGroup\nshift\t2\nroot\tInitCenterCluster\n' \
	"Figure 31: k-means, two flow-models per stage"
expect 0 "" "$CARSH" -c "peast $SHIPPED/fft-filter.xml"
if [ "$(grep -c '^startup' "$OUT")" = 11 ] && [ "$(grep -c '^repeat' "$OUT")" = 2 ] &&
	[ "$(grep '^repeat' "$OUT" | tail -1 | cut -f2 | wc -w)" = 7 ]; then
	pass "Figure 33: the FFT filter runs seven flow-models at once"
else
	fail "FFT filter stages: $(cat "$OUT")"
fi
expect 1 "no root gives a parallelism of at most 1 (the least is 2, with root 'A'); raise --max-parallel" \
	"$CARSH" -c "peast $G/fig28.xml --max-parallel 1"
expect 1 "root 'E' does not reach 'A', 'B', 'C', 'D', 'F'" "$CARSH" -c "peast $G/fig28.xml --root E"
expect 1 "--root Q: no such node" "$CARSH" -c "peast $G/fig28.xml --root Q"
expect 1 "--max-parallel 'x': expected a positive integer" \
	"$CARSH" -c "peast $G/fig28.xml --max-parallel x"
expect 1 "no flow-model reaches every other one" "$CARSH" -c "peast $G/two_sources.xml"
expect 1 "it has no EXIT port" "$CARSH" -c "peast $G/no_exit.xml"
expect 2 "peast: unknown option '--bogus'; usage: peast GRAPH.xml" \
	"$CARSH" -c "peast $G/fig28.xml --bogus"
expect 2 "peast: missing value after '-o'" "$CARSH" -c "peast $G/fig28.xml -o"
expect 2 "peast: one graph at a time, not also 'x.xml'" "$CARSH" -c "peast $G/fig28.xml x.xml"
expect 2 "usage: peast GRAPH.xml" "$CARSH" -c "peast"

# ---- peast -o: batches that CarSh reads back ----
mkdir -p g
for n in A B C D; do
	case $n in
	A) fm=scale.xml bind='<Input name="x"><Buffer>img</Buffer></Input><Output name="y"><Buffer>ab</Buffer></Output>' ;;
	B) fm=vadd.xml bind='<Input name="a"><Buffer>ab</Buffer></Input><Input name="b"><Buffer>cb</Buffer></Input><Output name="c"><Buffer>bc</Buffer></Output>' ;;
	C) fm=vadd.xml bind='<Input name="a"><Buffer>bc</Buffer></Input><Input name="b"><Buffer>img</Buffer></Input><Output name="c"><Buffer>cb</Buffer></Output>' ;;
	D) fm=scale.xml bind='<Input name="x"><Buffer>cb</Buffer></Input><Output name="y"><Buffer>out</Buffer></Output>' ;;
	esac
	printf '<CarshExe><FlowModel file="%s/%s"/>%s</CarshExe>\n' "$FM" "$fm" "$bind" >g/$n.exe.xml
done
sed -e 's|exe="kmeans/[a-z_]*.exe.xml"||' -e 's|<Node name="InitCenterCluster" *|&exe="A.exe.xml"|' \
	-e 's|<Node name="SetGroup" *|&exe="B.exe.xml"|' -e 's|<Node name="SetNewCenter" *|&exe="C.exe.xml"|' \
	-e 's|<Node name="ChangeColor" *|&exe="D.exe.xml"|' "$SHIPPED/kmeans.xml" >g/kmeans.xml
expect 0 "" "$CARSH" -c "peast g/kmeans.xml -o out"
want '' "-o alone prints nothing"
for f in startup repeat; do
	if ! command -v xmllint >/dev/null 2>&1; then
		pass "$f.bat.xml: no xmllint here (CarSh's reader checks it below)"
	elif xmllint --noout "out/$f.bat.xml" 2>"$T/xmllint.err"; then
		pass "$f.bat.xml is well-formed XML"
	else
		fail "$f.bat.xml: $(cat "$T/xmllint.err")"
	fi
done
structure() { # the step elements of a batch, in order
	grep -o '<Exec file="[^"]*" background="true"/>\|<Sync/>' "$1" | sed 's/ background="true"//'
}
structure out/startup.bat.xml >got
printf '%s\n' '<Exec file="../g/A.exe.xml"/>' '<Sync/>' '<Exec file="../g/B.exe.xml"/>' '<Sync/>' >want
same_file got want "startup: stage A, then stage B, each in the background then synced"
structure out/repeat.bat.xml >got
printf '%s\n' '<Exec file="../g/C.exe.xml"/>' '<Exec file="../g/A.exe.xml"/>' '<Sync/>' \
	'<Exec file="../g/D.exe.xml"/>' '<Exec file="../g/B.exe.xml"/>' '<Sync/>' >want
same_file got want "repeat: stages C A and D B"
grep -q 'feedback edge, initialise it before this batch: SetNewCenter SetGroup' out/startup.bat.xml &&
	pass "the startup names the feedback edge to initialise" || fail "no feedback note"
# CarSh's own batch reader takes them (graph reads the batch and every executable in it).
expect 0 "" "$CARSH" -c "graph out/startup.bat.xml"
expect 0 "" "$CARSH" -c "graph out/repeat.bat.xml"
grep -q '<td bgcolor="lightblue">bc<br/>img</td><td style="dashed">C.exe.xml &amp;</td><td bgcolor="mistyrose">cb</td>' "$OUT" &&
	pass "the repeat batch reads back: C reads bc and img, writes cb" || fail "graph of repeat: $(cat "$OUT")"
expect 0 "" "$CARSH" -c "peast g/kmeans.xml -o out --print"
grep -q '^root	InitCenterCluster$' "$OUT" && pass "-o with --print prints too" || fail "-o --print"
expect 1 "chain5.xml:4: <Node name=\"A\">: no exe=, so the batches cannot run it" \
	"$CARSH" -c "peast $G/chain5.xml -o out2"
[ ! -e out2/startup.bat.xml ] && pass "nothing written without executables" || fail "out2 written"

# ---- graph: DOT ----
expect 0 "" "$CARSH" -c "graph $G/fig28_open.xml"
grep -q '^digraph "fig28-open" {' "$OUT" && grep -q 'style="dashed", color="red"' "$OUT" &&
	grep -q 'rank=same' "$OUT" && pass "DOT of a graph: dashed edges to initialise, stage ranks" ||
	fail "graph DOT: $(cat "$OUT")"
expect 0 "" "$CARSH" -c "graph $G/two_sources.xml"
grep -q 'no PEA-ST root' "$OUT" && pass "a graph with no root is drawn without stages" ||
	fail "two sources: $(cat "$OUT")"
expect 1 "two_sources.xml: no flow-model reaches every other one" \
	"$CARSH" -c "graph $G/two_sources.xml --max-parallel 3"
expect 0 "" "$CARSH" -c "graph $G/demo.bat.xml"
grep -q 'subgraph cluster_0 {' "$OUT" &&
	grep -q '<td bgcolor="lightblue">x<br/>y</td><td>vadd_xy.exe.xml</td><td bgcolor="mistyrose">acc</td>' "$OUT" &&
	grep -q '<td style="dashed">scale_in.exe.xml &amp;</td>' "$OUT" &&
	grep -q 'shape=octagon, label="sync"' "$OUT" &&
	pass "DOT of a batch: the repeat as a cluster, each step between its buffers" ||
	fail "batch DOT: $(cat "$OUT")"
expect 0 "" "$CARSH" "$G/demo.bat.xml"
# x = 1; three times y = 2x, acc = x + y, x = 2 acc (x: 6, 36, 216); then y = 2x = 432.
[ "$(grep -c '^432$' "$OUT")" = 8 ] && pass "the demo batch runs and gives 432" ||
	fail "demo batch: $(cat "$OUT")"
printf '<CarshBat>\n<Sync/>\n<Exec file="missing.exe.xml"/>\n</CarshBat>\n' >missing.bat.xml
expect 1 "missing.bat.xml:3: <Exec>: missing.exe.xml: No such file or directory" \
	"$CARSH" -c "graph missing.bat.xml"
want '' "a batch that cannot be drawn prints no half picture"
expect 1 "graph: $FM/vadd.xml: a <FlowModel> file; graph draws a <CarshGraph> or a <CarshBat>" \
	"$CARSH" -c "graph $FM/vadd.xml"
expect 2 "graph: unknown option '-x'" "$CARSH" -c "graph $G/fig28.xml -x"
if command -v dot >/dev/null 2>&1; then
	"$CARSH" -c "graph $SHIPPED/kmeans.xml" | dot -Tsvg >kmeans.svg 2>dot.err &&
		pass "Graphviz renders the DOT" || fail "dot: $(cat dot.err)"
fi
expect 0 "" "$CARSH" -c "help peast"
want 'usage: peast GRAPH.xml [--root NODE] [--max-parallel N] [-o DIR] [--print]\nschedule a pipeline graph as a startup and a repeat batch (PEA-ST)\n' \
	"help peast"
finish
