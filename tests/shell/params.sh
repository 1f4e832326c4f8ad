#!/bin/sh
# Parameters of a flow-model (docs/formats.md, Parameters): each is evaluated once however
# often others name it; a NAME=VALUE word that names no parameter or stream is refused with
# the nearest name.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

# 40 parameters, each naming the one before three times: P40 = P0 + 40, computed here by the
# same recurrence in the shell.
{
	echo '<FlowModel name="chain">'
	echo '  <Param name="P0" value="3"/>'
	want=3
	for i in $(seq 1 40); do
		echo "  <Param name=\"P$i\" value=\"P$((i - 1))+P$((i - 1))-P$((i - 1))+1\"/>"
		want=$((want + want - want + 1))
	done
	echo "  <Program><Source file=\"$TOP_SRCDIR/kernels/scale.cl\"/><Kernel name=\"scale\"/></Program>"
	echo '  <WorkSize global="P40"/>'
	echo '  <Arguments>'
	echo '    <Constant name="a" type="float" value="2"/>'
	echo '    <Input name="x" type="float" count="P40"/>'
	echo '    <Output name="y" type="float" count="P40"/>'
	echo '  </Arguments>'
	echo '</FlowModel>'
} >chain.xml
seq 1 "$want" >x.csv
"$REF" scale 2 x.csv >want.csv
expect 0 "" timeout 20 "$CARSH" run chain.xml x=x.csv y=y.csv
same_file y.csv want.csv "40 chained parameters evaluated at once: $want values"

# A word naming no parameter or stream is refused, with the nearest name; a name only an
# expression uses is the caller's to give.
SCALE="$FM/scale.xml"
seq 1 8 >x8.csv
expect 1 "carsh: 'a' is neither a parameter nor a stream of $SCALE: did you mean A?" \
	"$CARSH" run "$SCALE" x=x8.csv y=out.csv N=8 a=10
[ ! -e out.csv ] && pass "nothing ran with a misspelt parameter" || fail "out.csv written"
sed 's/name="x"/name="img"/' chain.xml >img.xml
expect 1 "carsh: 'image' is neither a parameter nor a stream of img.xml: did you mean img?" \
	"$CARSH" run img.xml image=pic.pgm y=-
expect 1 "carsh: 'zzz' is neither a parameter nor a stream of $SCALE (parameters: N A; streams: x y)" \
	"$CARSH" run "$SCALE" x=x8.csv y=- N=8 zzz=1
sed 's/global="P40"/global="P40*M"/' chain.xml >caller.xml
expect 0 "" "$CARSH" run caller.xml x=x.csv y=y2.csv M=1
same_file y2.csv want.csv "a name an expression uses is a parameter word (M=1)"
finish
