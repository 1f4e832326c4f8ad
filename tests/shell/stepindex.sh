#!/bin/sh
# The step index of a loop (docs/formats.md, "The step index"): `repeat --index t N CMD` and
# `<Repeat count="N" index="t">` give the body t = 0 .. N-1 as a parameter, which a flow-model
# passes to its kernel like any other. Checked against the recurrence computed by awk.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
cat >advance.xml <<'XML'
<FlowModel name="advance">
  <Param name="N" value="5"/>
  <Param name="t" value="0"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>__kernel void advance(int t, __global float *y)
{
	size_t i = get_global_id(0);
	y[i] = y[i] * 3.0f + (float)(t * 7 + (int)i);
}</Source>
    <Kernel name="advance"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Constant name="t" type="int" value="t"/>
    <InOut    name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
cat >advance.exe.xml <<'XML'
<CarshExe>
  <FlowModel file="advance.xml"/>
  <InOut name="y"><Buffer>y</Buffer></InOut>
</CarshExe>
XML
cat >advance.bat.xml <<'XML'
<CarshBat>
  <Param name="T" value="4"/>
  <Virtbuf op="create" name="y" type="float" count="5"/>
  <Repeat count="T" index="t">
    <Exec file="advance.exe.xml"/>
  </Repeat>
  <Virtbuf op="dump" name="y" file="got-bat.csv"/>
  <Virtbuf op="delete" name="y"/>
</CarshBat>
XML
# want T: y_i starts 0; at step t, y_i = 3 y_i + 7 t + i.
want() {
	awk -v T="$1" 'BEGIN { for (i = 0; i < 5; i++) { y = 0; for (t = 0; t < T; t++) y = 3 * y + 7 * t + i; print y } }' >want-$1
}
want 4
expect 0 "" "$CARSH" -c "virtbuf create y float 5; repeat --index t 4 run advance.xml y=buffer:y; virtbuf dump y got-cmd.csv"
same_file got-cmd.csv want-4 "repeat --index t: the kernel gets t = 0 1 2 3"
expect 0 "" "$CARSH" run advance.bat.xml
same_file got-bat.csv want-4 "<Repeat index=\"t\">: the kernel gets t = 0 1 2 3"
want 6
expect 0 "" "$CARSH" run advance.bat.xml T=6
same_file got-bat.csv want-6 "<Repeat count=\"T\" index=\"t\"> with T=6"
# Without an index the flow-model's default holds: t = 0 every time.
awk 'BEGIN { for (i = 0; i < 5; i++) { y = 0; for (t = 0; t < 3; t++) y = 3 * y + i; print y } }' >want-0
expect 0 "" "$CARSH" -c "virtbuf create y float 5; repeat 3 run advance.xml y=buffer:y; virtbuf dump y got-plain.csv"
same_file got-plain.csv want-0 "repeat without --index leaves t at its default"
expect 2 "carsh: repeat: --index '1t' is not a parameter name (a letter or '_', then letters, digits, '_')" \
	"$CARSH" -c "repeat --index 1t 3 echo x"
expect 2 "carsh: repeat: --index needs NAME, N and a command" "$CARSH" -c "repeat --index t 3"
sed 's|index="t"|index="t-1"|' advance.bat.xml >bad.bat.xml
expect 1 "bad.bat.xml:4: <Repeat>: index 't-1' is not a parameter name" "$CARSH" run bad.bat.xml
finish
