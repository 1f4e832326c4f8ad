#!/bin/sh
# By-value struct Constants (docs/formats.md, "Structs"): a <Struct> declared in the
# flow-model is laid out as the OpenCL C compiler lays it out, so the kernel reads every
# field, and sizeof(struct) on the device equals CarSh's size. The kernel copies each field
# (and its sizeof and offsets) to its output; the expected values are written by hand from
# the value given.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
cat >fields.xml <<'XML'
<FlowModel name="fields">
  <Param name="N" value="12"/>
  <Struct name="Params">
    <Field name="n" type="int"/>
    <Field name="s" type="float"/>
    <Field name="o" type="long"/>
    <Field name="v" type="float4"/>
    <Field name="c" type="char"/>
    <Field name="d" type="double"/>
    <Field name="u" type="ushort2"/>
  </Struct>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>#pragma OPENCL EXTENSION cl_khr_fp64 : enable
struct Params { int n; float s; long o; float4 v; char c; double d; ushort2 u; };
__kernel void fields(struct Params p, __global double *y)
{
	y[0] = p.n; y[1] = p.s; y[2] = p.o;
	y[3] = p.v.x; y[4] = p.v.y; y[5] = p.v.z; y[6] = p.v.w;
	y[7] = p.c; y[8] = p.d; y[9] = p.u.x; y[10] = p.u.y;
	y[11] = sizeof(struct Params);
}</Source>
    <Kernel name="fields"/>
  </Program>
  <WorkSize global="1"/>
  <Arguments>
    <Constant name="p" type="struct Params" value="N*2, 1.0/4, -5000000000, 1,2,3,4.5, -7, 1.0/3, 65535, 9"/>
    <Output   name="y" type="double" count="N"/>
  </Arguments>
</FlowModel>
XML
# offsets: n 0, s 4, o 8, v 16, c 32, d 40, u 48 (4 bytes); 52 rounded to 16 (float4) = 64
printf '%s\n' 24 0.25 -5000000000 1 2 3 4.5 -7 0.3333333333333333 65535 9 64 >want.csv
expect 0 "" "$CARSH" run fields.xml y=got.csv
same_file got.csv want.csv "a struct Constant: every field where the kernel reads it, sizeof 64"
expect 0 "" "$CARSH" run fields.xml N=13 y=got13.csv
[ "$(head -1 got13.csv)" = 26 ] && pass "a field's integer expression takes the run's N" ||
	fail "n = $(head -1 got13.csv) with N=13"
# Errors.
sed 's/value="N\*2, /value="/' fields.xml >few.xml
expect 1 "carsh: few.xml:27: <Constant name=\"p\">: '1.0/4, -5000000000, 1,2,3,4.5, -7, 1.0/3, 65535, 9' has 10 values, struct Params needs 11 (its fields' components in order)" \
	"$CARSH" run few.xml y=discard
sed 's/type="struct Params"/type="struct Param"/' fields.xml >unknown.xml
expect 1 "carsh: unknown.xml:27: <Constant name=\"p\">: no <Struct name=\"Param\"> in unknown.xml" \
	"$CARSH" run unknown.xml y=discard
sed 's/<Output   name="y" type="double"/<Output   name="y" type="struct Params"/' fields.xml >stream.xml
expect 1 "carsh: stream.xml:28: <Output name=\"y\">: struct Params, but kernel 'fields' argument 1 is double *" \
	"$CARSH" run stream.xml y=discard
sed 's/"-7"/"x"/; s/ -7,/ x,/' fields.xml >badfield.xml
expect 1 "carsh: badfield.xml:27: <Constant name=\"p\">: field 'c': 'x' is not a number, nor the name of a parameter" \
	"$CARSH" run badfield.xml y=discard
exit $((FAILS > 0))
