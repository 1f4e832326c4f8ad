#!/bin/sh
# What an Output starts as (docs/formats.md): one bound to a virtual buffer starts as the
# buffer's contents, so that elements the kernel does not write keep their values, under
# both executors (tests/thread/outstart.tsh), with and without the server.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
cat >half.xml <<'XML'
<FlowModel name="half">
  <Param name="N" value="8"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>__kernel void evens(__global float *y)
{
	size_t i = get_global_id(0);
	if (i % 2 == 0)
		y[i] = (float)i;
}</Source>
    <Kernel name="evens"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Output name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
# Even elements written (0 2 4 6), odd ones kept from the fill.
printf '0\n7\n2\n7\n4\n7\n6\n7\n' >want
for server in off on; do
	expect 0 "" env CARSH_SERVER=$server "$CARSH" -c "virtbuf create b float 8; virtbuf fill b --value 7; run half.xml y=buffer:b; virtbuf dump b got-$server.csv"
	same_file got-$server.csv want "CARSH_SERVER=$server: an Output bound to a buffer keeps what the kernel does not write"
	# Twice in a row: the second run starts from the first run's result, still on the device.
	expect 0 "" env CARSH_SERVER=$server "$CARSH" -c "virtbuf create b float 8; virtbuf fill b --value 7; run half.xml y=buffer:b; run half.xml y=buffer:b; virtbuf dump b got2-$server.csv"
	same_file got2-$server.csv want "CARSH_SERVER=$server: and again on the buffer's device copy"
done

# fill:V on an Output or an InOut: the stream starts as V, the result is dropped. In a swap
# pair the filled InOut's result feeds the next step: acc (InOut, filled 0) gains x each
# step; after S+1=3 steps out = acc + x = 4x.
cat >acc.xml <<'XML'
<FlowModel name="acc">
  <Param name="N" value="4"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>__kernel void acc(__global const float *x, __global float *a, __global float *out)
{
	size_t i = get_global_id(0);
	a[i] += x[i];
	out[i] += a[i];
}</Source>
    <Kernel name="acc"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="x"   type="float" count="N"/>
    <InOut  name="a"   type="float" count="N"/>
    <Output name="out" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
printf '1\n2\n3\n4\n' >x.csv
# One launch: a starts at 10, out at 100: out = 100 + 10 + x.
expect 0 "" "$CARSH" -c "virtbuf create o float 4; run acc.xml x=x.csv a=fill:10 out=buffer:o; virtbuf dump o got-acc.csv"
awk '{ print 100 * 0 + $1 + 10 }' x.csv >want-acc
same_file got-acc.csv want-acc "a=fill:10 gives an InOut its start (out kept the buffer's zeros)"
expect 0 "" "$CARSH" -c "virtbuf create o float 4; virtbuf fill o --value 1; run acc.xml x=x.csv a=fill:10 out=fill:100; run acc.xml x=x.csv a=fill:0 out=buffer:o; virtbuf dump o got-acc2.csv"
awk '{ print 1 + $1 }' x.csv >want-acc2
same_file got-acc2.csv want-acc2 "an Output bound to fill:100 runs; the buffer-bound one starts at the buffer's 1"
cat >acc.exe.xml <<'XML'
<CarshExe>
  <FlowModel file="acc.xml"/>
  <Input  name="x"><DataFile>x.csv</DataFile></Input>
  <InOut  name="a"><Fill value="5"/></InOut>
  <Output name="out"><Buffer>o</Buffer></Output>
</CarshExe>
XML
expect 0 "" "$CARSH" -c "virtbuf create o float 4; virtbuf fill o --value 100; run acc.exe.xml; virtbuf dump o got-acc3.csv"
awk '{ print 100 + $1 + 5 }' x.csv >want-acc3
same_file got-acc3.csv want-acc3 "<Fill> on an InOut in an executable: a starts at 5, out at the buffer's 100"
finish
