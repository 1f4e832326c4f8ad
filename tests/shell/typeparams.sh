#!/bin/sh
# Parameters in build options and types (docs/formats.md, "Parameters in build options and
# types"): ${NAME} in <BuildOptions> takes the run's value, and a changed value is another
# program (in one session and in the binary cache); type="${T}" lets one flow-model serve
# float and double. Results against awk's; float and double told apart by their rounding.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
cat >scale.xml <<'XML'
<FlowModel name="scale">
  <Param name="N" value="6"/>
  <Param name="T" value="float"/>
  <Param name="B" value="4"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>#ifdef USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
__kernel void scale(T s, __global const T *x, __global T *y)
{
	size_t i = get_global_id(0);
	y[i] = x[i] * BLOCK_SIZE + s / (T)3;
}</Source>
    <Kernel name="scale"/>
    <BuildOptions>-DT=${T} -DBLOCK_SIZE=${B} ${EXTRA}</BuildOptions>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Constant name="s" type="${T}" value="1"/>
    <Input    name="x" type="${T}" count="N"/>
    <Output   name="y" type="${T}" count="N"/>
  </Arguments>
</FlowModel>
XML
seq 0 5 >x.csv
want() { awk -v B="$1" '{ printf "%.17g\n", $1 * B + 1 / 3 }' x.csv >"want-$1"; }
want 4
want 5
expect 0 "" "$CARSH" -c "set EXTRA=-DUSE_DOUBLE; run scale.xml T=double x=x.csv y=got-d4.csv; run scale.xml T=double B=5 x=x.csv y=got-d5.csv; run scale.xml x=x.csv y=got-f4.csv"
close_to_double got-d4.csv want-4 1e-15 "T=double B=4: y = 4x + 1/3 in double"
close_to_double got-d5.csv want-5 1e-15 "T=double B=5 in the same session: another program"
close_to got-f4.csv want-4 0 "T=float (the default): y = 4x + 1/3 in float"
[ "$(head -1 got-d4.csv)" = 0.3333333333333333 ] && [ "$(head -1 got-f4.csv)" = 0.33333334 ] &&
	pass "s/3 rounds as double with T=double and as float with T=float" ||
	fail "s/3 is $(head -1 got-d4.csv) with T=double, $(head -1 got-f4.csv) with T=float"
# A second process: the binary cache holds both B's programs, each under its own key.
expect 0 "" "$CARSH" -c "set EXTRA=-DUSE_DOUBLE; run scale.xml T=double B=5 x=x.csv y=again-d5.csv; run scale.xml T=double x=x.csv y=again-d4.csv"
same_file again-d5.csv got-d5.csv "B=5 from the binary cache in another process"
same_file again-d4.csv got-d4.csv "B=4 from the binary cache in another process"
# A vector type from a parameter: float4 in the batch, 6 elements = 24 scalars.
seq 0 23 >x4.csv
awk '{ printf "%.17g\n", $1 * 4 + 1 / 3 }' x4.csv >want-v
expect 0 "" "$CARSH" -c "set EXTRA=; run scale.xml T=float4 x=x4.csv y=got-v.csv"
close_to got-v.csv want-v 0 "T=float4: a vector type from a parameter"
# Errors.
expect 1 "carsh: scale.xml:16: <BuildOptions>: \${EXTRA}: no such parameter" \
	"$CARSH" run scale.xml x=x.csv y=o.csv
expect 1 "carsh: scale.xml:20: <Constant name=\"s\">: type \${T} is 'flaot': unknown type 'flaot'" \
	"$CARSH" run scale.xml T=flaot EXTRA= x=x.csv y=o.csv
sed 's/<Param name="T" value="float"\/>//; s/-DT=\${T}/-DT=float/' scale.xml >nodefault.xml
expect 1 "carsh: nodefault.xml:20: <Constant name=\"s\">: type \${T}: no such parameter (give it a <Param> default)" \
	"$CARSH" run nodefault.xml EXTRA= x=x.csv y=o.csv
exit $((FAILS > 0))
