#!/bin/sh
# Buffers whose contents are one value repeated (docs/executors.md "What moves when"): a new
# buffer's zeros and a value fill are written nowhere but where they are used — a created
# buffer takes no shared-memory pages, and a job on a warm worker fills its device copy there
# instead of copying it. Kernels that write only part of a buffer show what the rest holds,
# on the device and on the host, after swaps and device copies already held.
. "$TOP_SRCDIR/tests/shell/lib.sh"

cd "$T" || exit 1

# y[2i] = 2 x[2i] (the odd elements of y are not written), z[i] += 1 for the first half.
cat >half.xml <<'X'
<?xml version="1.0"?>
<FlowModel name="half">
  <Param name="N" value="8"/>
  <Program>
    <Source><![CDATA[
      __kernel void evens(__global const float *x, __global float *y, __global float *z)
      {
              size_t i = get_global_id(0);
              y[2 * i] = 2.0f * x[2 * i];
              z[i] = z[i] + 1.0f;
      }
    ]]></Source>
    <Kernel name="evens"/>
  </Program>
  <WorkSize global="N/2"/>
  <Arguments>
    <Input  name="x" type="float" count="N"/>
    <Output name="y" type="float" count="N"/>
    <InOut  name="z" type="float" count="N"/>
  </Arguments>
</FlowModel>
X
seq 1 8 >x.csv
# y and z after one run of half.xml on x = 1..8 where y held $1 and z held $2 everywhere.
want_after() {
	awk -v y="$1" -v z="$2" 'BEGIN {
		for (i = 0; i < 8; i++) print (i % 2 ? y : 2 * (i + 1))
		for (i = 0; i < 8; i++) print (i < 4 ? z + 1 : z) }'
}

# A new buffer's zeros, then a value fill, then a value fill of a buffer whose copy the
# worker's device holds already (its copy is stale: the fill wins).
expect 0 "" "$CARSH" -c "virtbuf create x float 8; virtbuf create y float 8; virtbuf create z float 8
virtbuf fill x x.csv
run half.xml x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y; virtbuf dump z
virtbuf fill y --value 7; virtbuf fill z --value 2.5
run half.xml x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y; virtbuf dump z
run half.xml x=buffer:x y=buffer:y z=buffer:z
virtbuf fill y --value -3; virtbuf fill z --value 0.5
run half.xml x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y; virtbuf dump z"
{ want_after 0 0; want_after 7 2.5; want_after -3 0.5; } >want
same_file "$OUT" want "zeros and value fills under a kernel that writes part of its buffers"

# A fill with the value shared memory holds already writes nothing there; a fill after a job
# wrote the buffer (on the device; written back; in a forked job) is a fill all the same.
for workers in warm fresh; do
	[ $workers = fresh ] && export CARSH_WORKERS=fresh
	expect 0 "" "$CARSH" -c "virtbuf create x float 8; virtbuf create y float 8; virtbuf create z float 8
virtbuf fill x x.csv; virtbuf fill y --value 0; virtbuf fill z --value 0
run half.xml x=buffer:x y=buffer:y z=buffer:z
virtbuf fill y --value 0
virtbuf dump y --columns 8; virtbuf dump z --columns 8; virtbuf fill z --value 0.0
run half.xml x=buffer:x y=buffer:z z=buffer:y
virtbuf dump z --columns 8; virtbuf fill z --value 0
virtbuf dump z --columns 8; virtbuf dump y --columns 8"
	unset CARSH_WORKERS
	printf '0,0,0,0,0,0,0,0
1,1,1,1,0,0,0,0
2,0,6,0,10,0,14,0
0,0,0,0,0,0,0,0
1,1,1,1,0,0,0,0
' >want
	same_file "$OUT" want "a fill with the value held already, then after jobs wrote ($workers workers)"
done

# Swaps move the value with the data: a holds 5, b zeros; after the swap b holds 5. And a
# chain whose second job reads what the first left on the device beside a fresh buffer.
expect 0 "" "$CARSH" -c "virtbuf create x float 8; virtbuf create a float 8; virtbuf create b float 8
virtbuf fill x x.csv; virtbuf fill a --value 5; virtbuf swap a b
run half.xml x=buffer:x y=buffer:a z=buffer:b
virtbuf dump a; virtbuf dump b
virtbuf create c float 8
run half.xml x=buffer:a y=buffer:c z=buffer:b
virtbuf dump c; virtbuf dump b"
{
	want_after 0 5
	# x is now a = (2,0,6,0,10,0,14,0): c's even elements twice that, b one more each.
	printf '4\n0\n12\n0\n20\n0\n28\n0\n7\n7\n7\n7\n5\n5\n5\n5\n'
} >want
same_file "$OUT" want "values swapped with their buffers, and chained on the device"

# A value of a two-element type (8 bytes) and of a type the device fills byte by byte.
cat >pair.xml <<'X'
<?xml version="1.0"?>
<FlowModel name="pair">
  <Param name="N" value="4"/>
  <Program>
    <Source><![CDATA[
      __kernel void pair(__global int2 *p, __global uchar *u)
      {
              size_t i = get_global_id(0);
              if (i == 0) { p[1].y += 100; u[2] += 1; }
      }
    ]]></Source>
    <Kernel name="pair"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <InOut name="p" type="int2" count="N"/>
    <InOut name="u" type="uchar" count="3"/>
  </Arguments>
</FlowModel>
X
expect 0 "" "$CARSH" -c "virtbuf create p int2 4; virtbuf create u uchar 3
virtbuf fill p --value 3,-4; virtbuf fill u --value 9
run pair.xml p=buffer:p u=buffer:u
virtbuf dump p --columns 2; virtbuf dump u --columns 3"
printf '3,-4\n3,96\n3,-4\n3,-4\n9,9,10\n' >want
same_file "$OUT" want "vector and byte values filled on the device"

# A created buffer takes no shared-memory pages until something uses it; its zeros read as
# zeros.
start_carsh -i
send "virtbuf create big float 16777216"
send "echo created"
wait_until "the buffer to be created" grep -q '^created$' "$T/carsh.out"
seg=$(segments_of "$CPID" | head -1)
if [ -n "$seg" ] && [ "$(stat -c %b "/dev/shm/$seg")" = 0 ]; then
	pass "a created buffer takes no pages"
else
	fail "a created buffer took pages: '$seg' $(stat -c %b "/dev/shm/$seg" 2>&1)"
fi
send "virtbuf create s int 3"
send "virtbuf dump s --columns 3"
send "echo done"
stop_carsh
if [ "$CSTATUS" = 0 ] && grep -qx '0,0,0' "$T/carsh.out"; then
	pass "a created buffer reads as zeros"
else
	fail "a created buffer: status $CSTATUS, output $(cat "$T/carsh.out" "$T/carsh.err")"
fi
finish
