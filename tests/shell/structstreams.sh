#!/bin/sh
# Streams of structs (docs/formats.md, "Structs"): a stream of type="struct Rec" is laid out
# as the device compiler lays it out (padding, a fixed array, an array of nested structs, a
# vector), read and written as CSV (one record a line) or raw. The references are C's
# (tests/tools/structref.c): the struct's sizeof and offsets as a C compiler lays it out,
# raw files written and read with fwrite/fread, and the kernel's arithmetic.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
SREF="$TOP_BUILDDIR/tests/tools/structref"
cat >rec.xml <<'XML'
<FlowModel name="rec">
  <Param name="N" value="1"/>
  <Struct name="Pt">
    <Field name="lat" type="float"/>
    <Field name="lng" type="float"/>
  </Struct>
  <Struct name="Rec">
    <Field name="id" type="char"/>
    <Field name="w"  type="double"/>
    <Field name="h"  type="short" count="3"/>
    <Field name="p"  type="struct Pt" count="2"/>
    <Field name="v"  type="int2"/>
  </Struct>
  <Program>
    <Source>#pragma OPENCL EXTENSION cl_khr_fp64 : enable
struct Pt { float lat, lng; };
struct Rec { char id; double w; short h[3]; struct Pt p[2]; int2 v; };
#define AT(f) ((long)((__global const char *)&amp;in[0].f - (__global const char *)in))
__kernel void rec(__global const struct Rec *in, __global struct Rec *out, __global long *lay)
{
	int i = get_global_id(0);
	out[i] = in[i];
	out[i].id = in[i].id + 1;
	out[i].w = in[i].w * 2;
	out[i].h[2] = in[i].h[0] + in[i].h[1];
	out[i].p[1].lng = in[i].p[0].lat + in[i].p[1].lat;
	out[i].v.y = in[i].v.x * 10;
	if (i == 0) {
		lay[0] = sizeof(struct Rec);
		lay[1] = AT(w); lay[2] = AT(h); lay[3] = AT(p); lay[4] = AT(v);
	}
}</Source>
    <Kernel name="rec"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="in"  type="struct Rec" count="N"/>
    <Output name="out" type="struct Rec" count="N"/>
    <Output name="lay" type="long" count="5"/>
  </Arguments>
</FlowModel>
XML
cat >in.csv <<'CSV'
1, 0.5, 1,2,0, 1.5,2.5, 3.5,4.5, 7,0
-3 2.25 10 20 0 0 0 0 0 -1 0

5,1000,-1,-2,0,0.25,0,0.5,0,100,0
CSV
"$SREF" kernel in.csv >want.csv
"$SREF" layout >layout.csv

# CSV in and out; N from the records (three lines with values; the blank one is skipped).
expect 0 "" "$CARSH" run rec.xml in=in.csv out=out.csv lay=lay.csv
same_file out.csv want.csv "every field where the kernel reads and writes it (C's arithmetic)"
same_file lay.csv layout.csv "sizeof and offsets on the device are C's (48; 8 16 24 40)"
# Raw: the bytes a C program writes with fwrite, and reads back.
"$SREF" raw in.csv in.raw
expect 0 "" "$CARSH" run rec.xml in=in.raw out=out.raw lay=discard
[ "$(wc -c <out.raw)" -eq $((3 * 48)) ] && pass "a raw output holds 3 records of 48 bytes" ||
	fail "out.raw has $(wc -c <out.raw) bytes"
"$SREF" csv out.raw >got.csv
same_file got.csv want.csv "raw in and out: the records as C reads them"
# .npy with a structured dtype: numpy's descr of the layout, padding as ('', '|Vn').
expect 0 "" "$CARSH" run rec.xml in=in.raw out=x.npy lay=discard
descr="[('id', '|i1'), ('', '|V7'), ('w', '<f8'), ('h', '<i2', (3,)), ('', '|V2'), ('p[0].lat', '<f4'), ('p[0].lng', '<f4'), ('p[1].lat', '<f4'), ('p[1].lng', '<f4'), ('v', '<i4', (2,))]"
head -c 256 x.npy | tail -c +11 >head.txt
printf "%-245s\n" "{'descr': $descr, 'fortran_order': False, 'shape': (3,), }" >want-head.txt
same_file head.txt want-head.txt "a .npy header: the struct's dtype as numpy writes it, 256 bytes in all"
tail -c +257 x.npy >x-data.raw
"$SREF" csv x-data.raw >got-npy.csv
same_file got-npy.csv want.csv "a .npy's data: the records as C reads them"
expect 0 "" "$CARSH" run rec.xml in=x.npy out=- lay=discard
"$SREF" kernel want.csv >want-npy2.csv
same_file "$OUT" want-npy2.csv "a .npy of records read back"
NP=""
for p in python3 /usr/bin/python3; do
	"$p" -c 'import numpy' 2>/dev/null && NP=$p && break
done
if [ -n "$NP" ]; then
	"$NP" - >np.csv <<'PY'
import numpy as np
a = np.load("x.npy")
for r in a:
    print(",".join("%g" % v for v in [r["id"], r["w"], *r["h"], r["p[0].lat"], r["p[0].lng"], r["p[1].lat"], r["p[1].lng"], *r["v"]]))
dt = np.dtype({"names": list(a.dtype.names), "formats": [a.dtype.fields[n][0] for n in a.dtype.names],
               "offsets": [a.dtype.fields[n][1] for n in a.dtype.names], "itemsize": 48})
np.save("np.npy", a.astype(dt))
PY
	same_file np.csv want.csv "numpy loads the records carsh wrote"
	expect 0 "" "$CARSH" run rec.xml in=np.npy out=- lay=discard
	same_file "$OUT" want-npy2.csv "carsh reads the records numpy saved"
else
	echo "SKIP: numpy is not installed (Debian: python3-numpy): numpy's side not checked"
fi
# Standard input and output, in a pipe.
"$CARSH" run rec.xml in=in.csv out=- lay=discard | "$CARSH" run rec.xml in=- out=- lay=discard >twice.csv
"$SREF" kernel want.csv >want2.csv
same_file twice.csv want2.csv "records through a pipe between two runs"
# A fill: one value for every component, or one per component.
expect 0 "" "$CARSH" run rec.xml N=1 in=fill:1 out=- lay=discard
printf '2,2,1,1,2,1,1,1,2,1,10\n' >fill1.csv
same_file "$OUT" fill1.csv "in=fill:1 fills every field's components"
# A virtual buffer holds the records' bytes: uchar, count times the struct's size.
cat >vb.sh <<'EOF'
virtbuf create nb uchar 144
virtbuf fill nb in.raw
run rec.xml N=3 in=buffer:nb out=buffer:nb lay=discard
virtbuf dump nb vb.raw
EOF
expect 0 "" "$CARSH" vb.sh
"$SREF" csv vb.raw >vb.csv
same_file vb.csv want.csv "a struct stream in and out of a uchar virtual buffer"
expect 1 "carsh: command line: stream 'in': virtual buffer 'nb' holds 10 uchar, the stream needs 144 uchar" \
	"$CARSH" -c 'virtbuf create nb uchar 10; run rec.xml N=3 in=buffer:nb out=discard lay=discard'

# partition: block over records, the same records as a run.
sed 's/, __global long \*lay)/)/; /if (i == 0) {/,/^\t}/d; /name="lay"/d' rec.xml >rec2.xml
seq 0 39 | awk '{ printf "%d,%g,%d,%d,0,%g,1,%g,2,%d,0\n", $1 - 20, $1 * 0.5, $1, -2 * $1, $1 * 0.25, $1 * 1.5, 3 * $1 }' >in40.csv
"$SREF" kernel in40.csv >want40.csv
expect 0 "" "$CARSH" partition --sched static rec2.xml N=40 in=in40.csv out=part.csv
same_file part.csv want40.csv "partition over the records of a struct stream"
# A graph: an edge carries the records' bytes; entrance and exit are raw files.
cat >a.exe.xml <<'XML'
<CarshExe><FlowModel file="rec2.xml"/><Param name="N" value="3"/>
  <Input name="in"><Buffer>ain</Buffer></Input><Output name="out"><Buffer>ab</Buffer></Output></CarshExe>
XML
sed 's/ain/ab/; s/>ab</>bout</' a.exe.xml >b.exe.xml
cat >g.xml <<'XML'
<CarshGraph name="g">
  <Node name="A" exe="a.exe.xml"/>
  <Node name="B" exe="b.exe.xml"/>
  <Edge from="A" to="B" output="out" input="in"/>
  <Entrance node="A" input="in" file="in.raw"/>
  <Exit node="B" output="out" file="gout.raw"/>
</CarshGraph>
XML
expect 0 "" "$CARSH" run g.xml
"$SREF" csv gout.raw >gout.csv
same_file gout.csv want2.csv "a graph of two struct flow-models, raw in and out"
sed 's/in.raw/in.csv/' g.xml >gcsv.xml
expect 1 "carsh: gcsv.xml:5: entrance A.in: the stream is of struct Rec, whose data a graph carries as raw files (.raw, .bin) or value=\"0\"" \
	"$CARSH" run gcsv.xml
# A feedback edge's initial data: raw too.
sed 's/>ain</>ba</' a.exe.xml >a2.exe.xml
sed 's/>bout</>ba</' b.exe.xml >b2.exe.xml
cat >cyc.xml <<'XML'
<CarshGraph name="cyc">
  <Node name="A" exe="a2.exe.xml"/>
  <Node name="B" exe="b2.exe.xml"/>
  <Edge from="A" to="B" output="out" input="in"/>
  <Edge from="B" to="A" output="out" input="in" kind="INITONCE" file="in.raw"/>
  <Exit node="B" output="out" file="cyc.raw"/>
</CarshGraph>
XML
expect 0 "" "$CARSH" run cyc.xml --items 1
"$SREF" csv cyc.raw >cyc.csv
same_file cyc.csv want2.csv "a feedback edge of structs starts from a raw file"
sed 's/file="in.raw"/value="1"/' cyc.xml >cyc1.xml
expect 1 "carsh: cyc1.xml:5: initial data of B.out: the stream is of struct Rec, whose data a graph carries as raw files (.raw, .bin) or value=\"0\"" \
	"$CARSH" run cyc1.xml --items 1
# The pipeline engine: an item buffer of uchar holds the records' bytes; raw files in and out.
cat >pl.xml <<'XML'
<CarshPipeline name="pl">
  <Item>
    <Buffer name="a" type="uchar" count="144"/>
    <Buffer name="b" type="uchar" count="144"/>
  </Item>
  <Source buffer="a" files="in.raw"/>
  <Stage name="s" flowmodel="rec2.xml">
    <Bind stream="in" buffer="a"/>
    <Bind stream="out" buffer="b"/>
  </Stage>
  <Sink buffer="b" files="pl-{index}.raw"/>
</CarshPipeline>
XML
expect 0 "" "$CARSH" pipeline pl.xml N=3
"$SREF" csv pl-0.raw >pl.csv
same_file pl.csv want.csv "the pipeline engine runs a struct stream through uchar item buffers"

# 3-wide vectors in a struct take the room and the alignment of 4-wide ones (OpenCL C
# 6.1.5): tag 0, pos 16 to 28, m[0] 32 and m[1] 40 (8 bytes each), 48 in all; a line holds
# their 3 components each. Expected values worked out by hand from the kernel.
cat >f3.xml <<'XML'
<FlowModel name="f3">
  <Param name="N" value="2"/>
  <Struct name="P"><Field name="tag" type="char"/><Field name="pos" type="float3"/><Field name="m" type="short3" count="2"/></Struct>
  <Program><Source>
struct P { char tag; float3 pos; short3 m[2]; };
__kernel void f3(__global struct P *p, __global int *sz, struct P k)
{
	int i = get_global_id(0);
	p[i].pos = p[i].pos * 2 + k.pos;
	p[i].m[1].z = p[i].m[0].x + k.m[1].y;
	sz[0] = sizeof(struct P);
	sz[1] = (int)((__global char *)&amp;p[0].m[1] - (__global char *)p);
}</Source><Kernel name="f3"/></Program>
  <WorkSize global="N"/>
  <Arguments>
    <InOut name="p" type="struct P" count="N"/>
    <Output name="sz" type="int" count="2"/>
    <Constant name="k" type="struct P" value="0, 100,200,300, 0,0,0, 0,7,0"/>
  </Arguments>
</FlowModel>
XML
printf '1, 1,2,3, 4,5,6, 7,8,9\n2, 0.5,0,-1, -1,-2,-3, 0,0,0\n' >p3.csv
printf '1,102,204,306,4,5,6,7,8,11\n2,101,200,298,-1,-2,-3,0,0,6\n' >want3.csv
printf '48\n40\n' >want3sz.csv
expect 0 "" "$CARSH" run f3.xml p=p3.csv sz=sz3.csv
same_file p3.csv want3.csv "float3 and short3[2] fields: 3 values each, where the kernel reads them"
same_file sz3.csv want3sz.csv "float3 and short3[2] fields: sizeof 48, m[1] at 40"

# Errors: where, what, and the way out.
printf '1,2\n' >short.csv
expect 1 "carsh: rec.xml: stream 'in': short.csv:1: 2 values, struct Rec needs 11 a line (id, w, h, p[0].lat, p[0].lng, p[1].lat, p[1].lng, v)" \
	"$CARSH" run rec.xml in=short.csv out=discard lay=discard
sed '4s/0.5/x/' in.csv >bad.csv
expect 1 "carsh: rec.xml: stream 'in': bad.csv:4:8: field 'p[1].lat' of struct Rec: 'x' is not a number" \
	"$CARSH" run rec.xml in=bad.csv out=discard lay=discard
sed '1s/^1,/1.5,/' in.csv >frac.csv
expect 1 "carsh: rec.xml: stream 'in': frac.csv:1:1: field 'id' of struct Rec: '1.5' is not an integer" \
	"$CARSH" run rec.xml in=frac.csv out=discard lay=discard
expect 1 "carsh: rec.xml: stream 'in': in.csv: 3 records, expected 4 (struct Rec, one a line) (count=\"N\" with N=4; set N=3?)" \
	"$CARSH" run rec.xml N=4 in=in.csv out=discard lay=discard
head -c 100 in.raw >cut.raw
expect 1 "carsh: rec.xml: stream 'in': cut.raw: 100 bytes are not a whole number of struct Rec records (48 bytes each)" \
	"$CARSH" run rec.xml in=cut.raw out=discard lay=discard
expect 1 "carsh: rec.xml: stream 'out': out.pgm: a stream of struct Rec is read and written as CSV, .npy or raw (.raw, .bin), not as .pgm" \
	"$CARSH" run rec.xml in=in.csv out=out.pgm lay=discard
[ ! -e out.pgm ] && pass "a refused output is refused before the run" || fail "out.pgm was written"
expect 1 "carsh: rec.xml: stream 'in': x.npy: shape (3,) holds 3 records, expected 2 (struct Rec)" \
	"$CARSH" run rec.xml N=2 in=x.npy out=discard lay=discard
expect 1 "carsh: command line: <Fill>: '1,2' has 2 values, struct Rec needs 11 (its fields' components in order, or 1 for all)" \
	"$CARSH" run rec.xml N=1 in=fill:1,2 out=discard lay=discard
sed 's/type="struct Pt" count="2"/type="struct Px" count="2"/' rec.xml >nopt.xml
expect 1 "carsh: nopt.xml:11: <Field name=\"p\">: no <Struct name=\"Px\"> before this field (a nested struct is declared first)" \
	"$CARSH" run nopt.xml in=in.csv out=discard lay=discard
sed 's/type="short" count="3"/type="short" count="0"/' rec.xml >zero.xml
expect 1 "carsh: zero.xml:10: <Field name=\"h\">: count=\"0\": a fixed array's length is a number from 1 to 65536" \
	"$CARSH" run zero.xml in=in.csv out=discard lay=discard
sed 's/<Output name="out" type="struct Rec"/<Output name="out" type="struct Recs"/' rec.xml >norec.xml
expect 1 "carsh: norec.xml:38: <Output name=\"out\">: no <Struct name=\"Recs\"> in norec.xml" \
	"$CARSH" run norec.xml in=in.csv out=discard lay=discard
sed 's/__global struct Rec \*out/__global int2 *out/; s/out\[i\]\.[a-z]*\(\[[0-9]\]\)*\(\.[a-z]*\)* = [^;]*;//g; s/out\[i\] = in\[i\];//' rec.xml >vec.xml
expect 1 "carsh: vec.xml:38: <Output name=\"out\">: struct Rec, but kernel 'rec' argument 1 is int2 *" \
	"$CARSH" run vec.xml in=in.csv out=discard lay=discard
# pack carries scalar and vector streams only.
cat >rec.bat.xml <<'XML'
<CarshBat>
  <Virtbuf op="create" name="a" type="uchar" count="144"/>
  <Virtbuf op="create" name="l" type="long" count="5"/>
  <Exec><CarshExe><FlowModel file="rec.xml"/><Param name="N" value="3"/><Input name="in"><Buffer>a</Buffer></Input><Output name="out"><Buffer>a</Buffer></Output><Output name="lay"><Buffer>l</Buffer></Output></CarshExe></Exec>
</CarshBat>
XML
expect 1 "<Input name=\"in\"> is a stream of struct Rec; pack carries streams of the scalar and vector types only" \
	"$CARSH" pack rec.bat.xml -o packed
finish
