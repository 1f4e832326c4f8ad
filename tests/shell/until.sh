#!/bin/sh
# Loops until a device result (docs/formats.md, "Loops until a result"): `<Repeat
# until="buffer:B OP V" max="N">` and `repeat --until ... --max N` run their body until every
# value of the buffer satisfies the condition after a run. A level-synchronous BFS on a small
# graph stops when no node changed; its distances and its number of runs are checked against
# a BFS done by awk, and a loop that needs more runs than max= fails with the condition's
# first failing value.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
N=14
# An undirected graph: a path 0-1-...-10, chords 0-5 and 3-9, a pair 11-12 apart from it,
# node 13 alone. CSR: start (N+1 offsets) and adj (neighbours).
cat >edges <<'E'
0 1
1 2
2 3
3 4
4 5
5 6
6 7
7 8
8 9
9 10
0 5
3 9
11 12
E
awk -v N=$N '{ a[$1] = a[$1] " " $2; a[$2] = a[$2] " " $1 }
END {
	k = 0
	for (i = 0; i < N; i++) {
		print k >"start.csv"
		n = split(a[i], v, " ")
		for (j = 1; j <= n; j++) { print v[j] >"adj.csv"; k++ }
	}
	print k >"start.csv"
	print k >"nadj"
}' edges
E=$(cat nadj)
# The reference BFS from node 0 (1000000: not reached), and its eccentricity.
awk -v N=$N '{ g[$1, ++d[$1]] = $2; g[$2, ++d[$2]] = $1 }
END {
	for (i = 0; i < N; i++) dist[i] = 1000000
	dist[0] = 0; q[0] = 0; h = 0; t = 1; ecc = 0
	while (h < t) {
		u = q[h++]
		for (j = 1; j <= d[u]; j++) { v = g[u, j]; if (dist[v] == 1000000) { dist[v] = dist[u] + 1; q[t++] = v; if (dist[v] > ecc) ecc = dist[v] } }
	}
	for (i = 0; i < N; i++) print dist[i] >"want.csv"
	print ecc + 1 >"want-runs"
	for (i = 0; i < N; i++) if (dist[i] == 2) { print i >"first-at-2"; break }
}' edges
awk -v N=$N 'BEGIN { print 0; for (i = 1; i < N; i++) print 1000000 }' >dist0.csv
cat >relax.xml <<XML
<FlowModel name="relax">
  <Param name="N" value="$N"/>
  <Param name="E" value="$E"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>__kernel void relax(__global const int *start, __global const int *adj,
                    __global const int *dist, __global int *next, __global int *changed)
{
	int i = get_global_id(0), d = dist[i];
	for (int k = start[i]; k &lt; start[i + 1]; k++)
		d = min(d, dist[adj[k]] + 1);
	next[i] = d;
	changed[i] = d != dist[i];
}</Source>
    <Kernel name="relax"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="start" type="int" count="N+1"/>
    <Input  name="adj" type="int" count="E"/>
    <Input  name="dist" type="int" count="N"/>
    <Output name="next" type="int" count="N"/>
    <Output name="changed" type="int" count="N"/>
  </Arguments>
</FlowModel>
XML
cat >step.exe.xml <<'XML'
<CarshExe>
  <FlowModel file="relax.xml"/>
  <Input name="start"><Buffer>start</Buffer></Input>
  <Input name="adj"><Buffer>adj</Buffer></Input>
  <Input name="dist"><Buffer>dist</Buffer></Input>
  <Output name="next"><Buffer>next</Buffer></Output>
  <Output name="changed"><Buffer>changed</Buffer></Output>
</CarshExe>
XML
cat >step.bat.xml <<'XML'
<CarshBat>
  <Exec file="step.exe.xml"/>
  <Virtbuf op="swap" name="dist" with="next"/>
</CarshBat>
XML
cat >bfs.bat.xml <<XML
<CarshBat>
  <Param name="MAX" value="100"/>
  <Virtbuf op="create" name="start" type="int" count="$N+1"/>
  <Virtbuf op="create" name="adj" type="int" count="$E"/>
  <Virtbuf op="create" name="dist" type="int" count="$N"/>
  <Virtbuf op="create" name="next" type="int" count="$N"/>
  <Virtbuf op="create" name="changed" type="int" count="$N"/>
  <Virtbuf op="fill" name="start" file="start.csv"/>
  <Virtbuf op="fill" name="adj" file="adj.csv"/>
  <Virtbuf op="fill" name="dist" file="dist0.csv"/>
  <Repeat until="buffer:changed == 0" max="MAX" index="t">
    <Echo>run \${t}</Echo>
    <Exec file="step.exe.xml"/>
    <Virtbuf op="swap" name="dist" with="next"/>
  </Repeat>
  <Virtbuf op="dump" name="dist" file="got.csv"/>
  <Virtbuf op="delete" all="true"/>
</CarshBat>
XML
expect 0 "" "$CARSH" run bfs.bat.xml
same_file got.csv want.csv "<Repeat until=\"buffer:changed == 0\">: BFS distances as awk's"
[ "$(grep -c '^run ' "$OUT")" = "$(cat want-runs)" ] &&
	pass "the body ran eccentricity+1 = $(cat want-runs) times" ||
	fail "the body ran $(grep -c '^run ' "$OUT") times, expected $(cat want-runs)"
# The limit: two runs reach distance 2 only; the first node still changing is the first at 2.
expect 1 "carsh: bfs.bat.xml:11: <Repeat>: until 'buffer:changed == 0' still false after 2 runs (max=\"MAX\"): changed[$(cat first-at-2)] is 1" \
	"$CARSH" run bfs.bat.xml MAX=2
expect 0 "" "$CARSH" -c "virtbuf list"
grep -qw changed "$OUT" && fail "the failed batch left buffers: $(cat "$OUT")" || pass "the failed batch deleted its buffers"

# The prompt form, its body a batch.
prep="virtbuf create start int $N+1; virtbuf create adj int $E; virtbuf create dist int $N; virtbuf create next int $N; virtbuf create changed int $N; virtbuf fill start start.csv; virtbuf fill adj adj.csv; virtbuf fill dist dist0.csv"
expect 0 "" "$CARSH" -c "$prep; repeat --until 'buffer:changed == 0' --max 100 run step.bat.xml; virtbuf dump dist got-cmd.csv"
same_file got-cmd.csv want.csv "repeat --until 'buffer:changed == 0': BFS distances as awk's"
expect 1 "carsh: repeat: until 'buffer:changed==0' still false after 3 runs (--max 3): changed[" \
	"$CARSH" -c "$prep; repeat --until 'buffer:changed==0' --max 3 run step.bat.xml"

# A float threshold from a parameter: x halves each run, delta = x; 1/2^10 < 0.001 <= 1/2^9.
cat >halve.xml <<'XML'
<FlowModel name="halve">
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>__kernel void halve(__global float *x, __global float *delta)
{
	int i = get_global_id(0);
	x[i] = x[i] * 0.5f;
	delta[i] = x[i];
}</Source>
    <Kernel name="halve"/>
  </Program>
  <WorkSize global="2"/>
  <Arguments>
    <InOut  name="x" type="float" count="2"/>
    <Output name="delta" type="float" count="2"/>
  </Arguments>
</FlowModel>
XML
expect 0 "" "$CARSH" -c "set EPS=0.001; virtbuf create x float 2; virtbuf create d float 2; virtbuf fill x --value 1; repeat --index k --until 'buffer:d < EPS' --max 50 run halve.xml x=buffer:x delta=buffer:d; virtbuf dump x"
printf '0.0009765625\n0.0009765625\n' >want-halve
same_file "$OUT" want-halve "repeat --until 'buffer:d < EPS': stops after 10 runs (x = 2^-10)"
expect 0 "" "$CARSH" -c "set K=1000; virtbuf create x float 2; virtbuf create d float 2; virtbuf fill x --value 1; repeat --until 'buffer:d < 1 / K' --max 50 run halve.xml x=buffer:x delta=buffer:d; virtbuf dump x"
same_file "$OUT" want-halve "repeat --until 'buffer:d < 1 / K' with K=1000: the same 10 runs"

# Errors.
expect 2 "carsh: repeat: until 'changed == 0': expected buffer:NAME OP VALUE (OP one of == != < <= > >=, VALUE a number or an expression over parameters)" \
	"$CARSH" -c "repeat --until 'changed == 0' --max 3 echo x"
expect 2 "carsh: repeat: --until needs --max N (the most runs)" "$CARSH" -c "repeat --until 'buffer:c == 0' echo x"
expect 1 "carsh: repeat: no virtual buffer 'nope'" "$CARSH" -c "repeat --until 'buffer:nope == 0' --max 3 echo x"
# A value of one unknown word reads as the integer path says it (not "unknown parameter").
expect 1 "carsh: repeat: until value: 'zero' is not a number, nor the name of a parameter" \
	"$CARSH" -c "virtbuf create c int 1; repeat --until 'buffer:c == zero' --max 3 echo x"
expect 1 "carsh: repeat: until value: unknown parameter 'zero' in '1+zero'" \
	"$CARSH" -c "virtbuf create c int 1; repeat --until 'buffer:c == 1+zero' --max 3 echo x"
bad() {
	printf '<CarshBat>\n  <Virtbuf op="create" name="c" type="int" count="1"/>\n  %s\n    <Sync/>\n  </Repeat>\n</CarshBat>\n' "$1" >bad.bat.xml
	expect "${3:-1}" "$2" "$CARSH" run bad.bat.xml
}
bad '<Repeat until="buffer:c == 0">' "bad.bat.xml:3: <Repeat>: until= needs max= (the most times the body runs)"
bad '<Repeat count="3" until="buffer:c == 0" max="3">' "bad.bat.xml:3: <Repeat>: give count= or until=, not both"
bad '<Repeat until="buffer:c = 0" max="3">' "bad.bat.xml:3: <Repeat>: until 'buffer:c = 0': expected buffer:NAME OP VALUE"
bad '<Repeat max="3">' "bad.bat.xml:3: <Repeat>: missing attribute 'count' (or until= with max=)"
bad '<Repeat until="buffer:c != 0" max="0">' "bad.bat.xml:3: <Repeat>: max is 0: it must be at least 1"
# A condition that holds after the first run ends the loop there.
bad '<Repeat until="buffer:c == 0" max="3" index="t"><Echo>t=${t}</Echo>' "" 0
[ "$(cat "$OUT")" = "t=0" ] && pass "until: a condition true after run 1 stops there" || fail "until ran: $(cat "$OUT")"
# pack cannot unroll a loop whose runs depend on the device.
expect 1 "bfs.bat.xml:11: <Repeat until>: pack cannot unroll a loop that stops on a device result" \
	"$CARSH" -c "pack bfs.bat.xml -o packed"
# Under MPI the body's step on rank 1 writes changed there; rank 0 reads it for the check,
# and every rank agrees on the answer (docs/scale-out.md).
if mpi_ready && process_executor; then
	sed 's|<Exec file="step.exe.xml"/>|<Exec file="step.exe.xml" rank="1"/>|' bfs.bat.xml >bfs1.bat.xml
	rm -f got.csv
	expect 0 "" mpi_run 2 "$CARSH" run bfs1.bat.xml
	same_file got.csv want.csv "until on 2 MPI ranks, the step on rank 1: BFS distances as awk's"
	[ "$(grep -c '^run ' "$OUT")" = "$(cat want-runs)" ] &&
		pass "on 2 ranks the body ran $(cat want-runs) times" ||
		fail "on 2 ranks the body ran $(grep -c '^run ' "$OUT") times"
	expect 1 "carsh: bfs1.bat.xml:11: <Repeat>: until 'buffer:changed == 0' still false after 2 runs (max=\"MAX\"): changed[$(cat first-at-2)] is 1" \
		mpi_run 2 "$CARSH" run bfs1.bat.xml MAX=2
fi
exit $((FAILS > 0))
