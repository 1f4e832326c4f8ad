#!/bin/sh
# Floating expressions for constants (docs/formats.md, "<FlowModel>"): a float or double
# Constant's value may be an expression such as 1.0/N over parameters, computed in double and
# rounded to the constant's type. Checked against awk's arithmetic.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
cat >affine.xml <<'XML'
<FlowModel name="affine">
  <Param name="N" value="8"/>
  <Param name="PI" value="3.141592653589793"/>
  <Param name="STEP" value="2*PI/N"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void affine(float a, float b, double c, __global float *y, __global double *z)
{
	size_t i = get_global_id(0);
	y[i] = a * (float)i + b;
	z[i] = c;
}</Source>
    <Kernel name="affine"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Constant name="a" type="float" value="1.0/N"/>
    <Constant name="b" type="float" value="-(STEP + 0.5e-1) * 2"/>
    <Constant name="c" type="double" value="1.0/3"/>
    <Output   name="y" type="float" count="N"/>
    <Output   name="z" type="double" count="N"/>
  </Arguments>
</FlowModel>
XML
want() {
	awk -v N="$1" 'BEGIN { pi = 3.141592653589793; for (i = 0; i < N; i++) printf "%.17g\n", i / N - (2 * pi / N + 0.05) * 2 }' >"want-$1"
}
want 8
want 10
expect 0 "" "$CARSH" run affine.xml y=got-8.csv z=z.csv
close_to got-8.csv want-8 1e-6 "a=1.0/N, b=-(STEP+0.5e-1)*2 with STEP=2*PI/N (N=8)"
[ "$(sort -u z.csv)" = 0.3333333333333333 ] && pass "a double constant 1.0/3 is the double nearest 1/3" ||
	fail "c = 1.0/3 gave $(sort -u z.csv)"
expect 0 "" "$CARSH" run affine.xml N=10 y=got-10.csv z=discard
close_to got-10.csv want-10 1e-6 "the same with N=10 from the command line"
sed 's|value="1.0/N"|value="1.0/(N-8)"|' affine.xml >bad.xml
expect 1 "carsh: bad.xml:18: <Constant name=\"a\">: division by zero in '1.0/(N-8)'" \
	"$CARSH" run bad.xml y=discard z=discard
sed 's|value="1.0/3"|value="1.0/M"|' affine.xml >bad.xml
expect 1 "carsh: bad.xml:20: <Constant name=\"c\">: unknown parameter 'M' in '1.0/M'" \
	"$CARSH" run bad.xml y=discard z=discard
sed 's|value="1.0/3"|value="1.0/(3"|' affine.xml >bad.xml
expect 1 "carsh: bad.xml:20: <Constant name=\"c\">: unexpected end of expression in '1.0/(3'" \
	"$CARSH" run bad.xml y=discard z=discard
# A fill takes the same forms (copied through to the output).
cat >copy.xml <<'XML'
<FlowModel name="copy">
  <Param name="N" value="4"/>
  <Program>
    <Source>__kernel void copy(__global const float *x, __global float *y) { size_t i = get_global_id(0); y[i] = x[i]; }</Source>
    <Kernel name="copy"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="x" type="float" count="N"/>
    <Output name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
expect 0 "" "$CARSH" run copy.xml N=3 'x=fill:1.0/N+0.25' y=-
printf '0.583333313\n0.583333313\n0.583333313\n' >want-fill
close_to "$OUT" want-fill 0 "x=fill:1.0/N+0.25 with N=3: every element 7/12 as a float"
# A plain value that is not a number keeps its message.
sed 's|value="1.0/3"|value="abc"|' affine.xml >bad.xml
expect 1 "carsh: bad.xml:20: <Constant name=\"c\">: 'abc' is not a number" \
	"$CARSH" run bad.xml y=discard z=discard
exit $((FAILS > 0))
