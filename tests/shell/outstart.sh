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
finish
