#!/bin/sh
# Image streams and samplers (docs/formats.md, "Images"): kernels that take image2d_t and
# sampler_t arguments, fed from PGM, CSV and raw files, against tests/tools/imgref, which
# computes the OpenCL specification's clamp-to-edge addressing and nearest and linear
# filtering in double on its own PGM reader.
. "$TOP_SRCDIR/tests/shell/lib.sh"
IMGREF="$TOP_BUILDDIR/tests/tools/imgref"
cd "$T" || exit 1
"$IMGREF" pgm 37 23 7 pic.pgm

# 3x3 box mean of a float image: integer coordinates, nearest, clamp-to-edge.
cat >blur.xml <<'XML'
<FlowModel name="blur">
  <Param name="W" value="37"/>
  <Param name="H" value="23"/>
  <Program>
    <Source>__kernel void blur(read_only image2d_t src, write_only image2d_t dst, sampler_t smp)
{
	int x = get_global_id(0), y = get_global_id(1);
	float4 s = (float4)(0.0f);
	for (int dy = -1; dy &lt;= 1; dy++)
		for (int dx = -1; dx &lt;= 1; dx++)
			s += read_imagef(src, smp, (int2)(x + dx, y + dy));
	write_imagef(dst, (int2)(x, y), s / 9.0f);
}</Source>
    <Kernel name="blur"/>
  </Program>
  <WorkSize global="W,H"/>
  <Arguments>
    <Input   name="src" image="2d" width="W" height="H" format="float"/>
    <Output  name="dst" image="2d" width="W" height="H" format="float"/>
    <Sampler name="smp" coords="unnormalized" address="clamp_to_edge" filter="nearest"/>
  </Arguments>
</FlowModel>
XML
"$IMGREF" blur pic.pgm >blur-want.csv
expect 0 "" "$CARSH" run blur.xml src=pic.pgm dst=blur.csv
close_to blur.csv blur-want.csv 1e-6 "box blur of a PGM as an R/float image, nearest, clamp-to-edge"
[ "$(head -1 blur.csv | tr ',' '\n' | wc -l)" = 37 ] && pass "an image's CSV has one row of pixels a line" ||
	fail "first line of blur.csv has $(head -1 blur.csv | tr ',' '\n' | wc -l) values, expected 37"
# Width and height that nothing sets come from the PGM's header (the defaults yield).
"$IMGREF" pgm 19 11 5 other.pgm
"$IMGREF" blur other.pgm >other-want.csv
expect 0 "" "$CARSH" run blur.xml src=other.pgm dst=other.csv
close_to other.csv other-want.csv 1e-6 "a 19x11 PGM sizes W and H of a flow-model made for 37x23"
[ "$(head -1 other.csv | tr ',' '\n' | wc -l)" = 19 ] && pass "its rows are 19 pixels wide" ||
	fail "first line of other.csv has $(head -1 other.csv | tr ',' '\n' | wc -l) values, expected 19"
cat >two.xml <<'XML'
<FlowModel name="two">
  <Param name="W" value="4"/>
  <Param name="H" value="4"/>
  <Program>
    <Source>__kernel void two(read_only image2d_t a, read_only image2d_t b, write_only image2d_t c, sampler_t s)
{
	int2 p = (int2)(get_global_id(0), get_global_id(1));
	write_imagef(c, p, read_imagef(a, s, p) + read_imagef(b, s, p));
}</Source>
    <Kernel name="two"/>
  </Program>
  <WorkSize global="W,H"/>
  <Arguments>
    <Input   name="a" image="2d" width="W" height="H" format="float"/>
    <Input   name="b" image="2d" width="W" height="H" format="float"/>
    <Output  name="c" image="2d" width="W" height="H" format="float"/>
    <Sampler name="s"/>
  </Arguments>
</FlowModel>
XML
expect 1 "carsh: two.xml: streams 'a' and 'b' disagree on W: pic.pgm holds 37, other.pgm holds 19" \
	"$CARSH" run two.xml a=pic.pgm b=other.pgm c=discard
"$IMGREF" csv pic.pgm >pic.csv
"$IMGREF" raw pic.pgm pic.raw
expect 0 "" "$CARSH" run blur.xml src=pic.csv dst=blur-csv.csv
close_to blur-csv.csv blur-want.csv 1e-6 "the same picture from CSV"
expect 0 "" "$CARSH" run blur.xml src=pic.raw dst=blur-raw.npy
expect 0 "" "$CARSH" -c 'virtbuf create b float 851; virtbuf fill b blur-raw.npy; virtbuf dump b blur-npy.csv'
close_to blur-npy.csv blur-want.csv 1e-6 "the same picture from raw floats, written as .npy"

# Rotation about the centre: unorm8 pixels from the PGM, normalized coordinates, linear.
cat >rotate.xml <<'XML'
<FlowModel name="rotate">
  <Param name="W" value="37"/>
  <Param name="H" value="23"/>
  <Program>
    <Source>__kernel void turn(read_only image2d_t src, write_only image2d_t dst, sampler_t smp,
                     float c, float s)
{
	int x = get_global_id(0), y = get_global_id(1);
	int w = get_image_width(src), h = get_image_height(src);
	float cx = 0.5f * w, cy = 0.5f * h, dx = x + 0.5f - cx, dy = y + 0.5f - cy;
	float2 uv = (float2)((c * dx + s * dy + cx) / w, (-s * dx + c * dy + cy) / h);
	write_imagef(dst, (int2)(x, y), read_imagef(src, smp, uv));
}</Source>
    <Kernel name="turn"/>
  </Program>
  <WorkSize global="W,H"/>
  <Arguments>
    <Input    name="src" image="2d" width="W" height="H" format="unorm8" channels="R"/>
    <Output   name="dst" image="2d" width="W" height="H" format="float"/>
    <Sampler  name="smp" coords="normalized" address="clamp_to_edge" filter="linear"/>
    <Constant name="c" type="float" value="0.8660254"/>
    <Constant name="s" type="float" value="0.5"/>
  </Arguments>
</FlowModel>
XML
"$IMGREF" rotate pic.pgm 0.8660254 0.5 >rot-want.csv
expect 0 "" "$CARSH" run rotate.xml src=pic.pgm dst=rot.csv
# OpenCL lets a device weigh the four pixels with as few as 8 fractional bits (§8.2), so a
# result may differ from the exact weights by up to about 1/256 of a pixel step.
close_to rot.csv rot-want.csv 5e-3 "rotation by 30 degrees of a unorm8 PGM, linear, clamp-to-edge"

# unorm8 in and out: a mirror written as a PGM is the picture's pixels exactly.
cat >flip.xml <<'XML'
<FlowModel name="flip">
  <Param name="W" value="37"/>
  <Param name="H" value="23"/>
  <Program>
    <Source>__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
__kernel void flip(read_only image2d_t src, write_only image2d_t dst)
{
	int x = get_global_id(0), y = get_global_id(1);
	write_imagef(dst, (int2)(get_image_width(src) - 1 - x, y), read_imagef(src, smp, (int2)(x, y)));
}</Source>
    <Kernel name="flip"/>
  </Program>
  <WorkSize global="W,H"/>
  <Arguments>
    <Input  name="src" image="2d" width="W" height="H" format="unorm8"/>
    <Output name="dst" image="2d" width="W" height="H" format="unorm8"/>
  </Arguments>
</FlowModel>
XML
"$IMGREF" flip pic.pgm >flip-want.csv
expect 0 "" "$CARSH" run flip.xml src=pic.pgm dst=flip.pgm
"$IMGREF" csv flip.pgm >flip.csv
same_file flip.csv flip-want.csv "a unorm8 image written as a PGM without columns=, and a program's constant sampler"

# Virtual buffers of the pixels' type and count serve images: copied into the image before
# the run and back after it (in the job's worker or the shell's thread alike).
expect 0 "" "$CARSH" -c 'virtbuf create p float 37*23; virtbuf create o float 851
virtbuf fill p pic.pgm; run blur.xml src=buffer:p dst=buffer:o; virtbuf dump o blur-vb.csv --columns 37'
close_to blur-vb.csv blur-want.csv 1e-6 "an image read from and written to virtual buffers"

# An Output image bound to a virtual buffer starts as the buffer, as a buffer stream does:
# pixels the kernel leaves alone keep their values.
cat >evens.xml <<'XML'
<FlowModel name="half">
  <Param name="W" value="4"/>
  <Param name="H" value="2"/>
  <Program>
    <Source>__kernel void evens(read_only image2d_t src, write_only image2d_t dst, sampler_t s)
{
	int2 p = (int2)(get_global_id(0), get_global_id(1));
	if (p.x % 2 == 0)
		write_imagef(dst, p, 10.0f * read_imagef(src, s, p));
}</Source>
    <Kernel name="evens"/>
  </Program>
  <WorkSize global="W,H"/>
  <Arguments>
    <Input   name="src" image="2d" width="W" height="H" format="float"/>
    <Output  name="dst" image="2d" width="W" height="H" format="float"/>
    <Sampler name="s"/>
  </Arguments>
</FlowModel>
XML
printf '10,7,10,7\n10,7,10,7\n' >evens-want.csv
expect 0 "" "$CARSH" -c 'virtbuf create o float 8; virtbuf fill o --value 7
run evens.xml src=fill:1 dst=buffer:o; virtbuf dump o evens.csv --columns 4'
same_file evens.csv evens-want.csv "an Output image starts as its virtual buffer"

# A graph's ports are virtual buffers: blur, then a float mirror, item by item.
sed 's/format="unorm8"/format="float"/g' flip.xml >flipf.xml
cat >g.xml <<'XML'
<CarshGraph name="g">
  <Node name="A" exe="blur.xml"/>
  <Node name="B" exe="flipf.xml"/>
  <Edge from="A" to="B" output="dst" input="src"/>
  <Entrance node="A" input="src" file="pic.pgm"/>
  <Exit node="B" output="dst" file="g.csv" columns="37"/>
</CarshGraph>
XML
awk -F, '{ for (i = NF; i >= 1; i--) printf "%s%s", $i, (i > 1 ? "," : "\n") }' blur-want.csv >g-want.csv
expect 0 "" "$CARSH" run g.xml
close_to g.csv g-want.csv 1e-6 "a graph of two image flow-models"

# A swap pair of images changes places between runs: two mirrors give the picture back.
cat >sw.exe.xml <<'XML'
<CarshExe>
  <FlowModel file="flipf.xml"/>
  <Input name="src"><DataFile>pic.pgm</DataFile></Input>
  <Output name="dst"><DataFile>sw.csv</DataFile></Output>
  <Swap count="S" method="swap"><SwapPair input="src" output="dst"/></Swap>
</CarshExe>
XML
expect 0 "" "$CARSH" run sw.exe.xml S=1
same_file sw.csv pic.csv "a swap pair of images, two runs"
expect 0 "" "$CARSH" run sw.exe.xml S=2
same_file sw.csv flip-want.csv "a swap pair of images, three runs"
sed 's/method="swap"/method="copy-device"/' sw.exe.xml >swc.exe.xml
expect 1 "carsh: swc.exe.xml: swap pair 'src'/'dst': images change places with method=\"swap\" only, and only with an image of the same size and format" \
	"$CARSH" run swc.exe.xml S=1

# Four channels: RGBA uint8 pixels are uchar4 elements; the kernel reverses each pixel.
cat >swz.xml <<'XML'
<FlowModel name="swz">
  <Param name="W" value="3"/>
  <Param name="H" value="2"/>
  <Program>
    <Source>__kernel void swz(read_only image2d_t src, write_only image2d_t dst, sampler_t smp)
{
	int2 p = (int2)(get_global_id(0), get_global_id(1));
	write_imageui(dst, p, read_imageui(src, smp, p).wzyx);
}</Source>
    <Kernel name="swz"/>
  </Program>
  <WorkSize global="W,H"/>
  <Arguments>
    <Input   name="src" image="2d" width="W" height="H" format="uint8" channels="RGBA"/>
    <Output  name="dst" image="2d" width="W" height="H" format="uint8" channels="RGBA"/>
    <Sampler name="smp"/>
  </Arguments>
</FlowModel>
XML
seq 1 24 | paste -sd, >rgba.csv
seq 1 24 | paste -d' ' - - - - | awk '{ print $4 "," $3 "," $2 "," $1 }' | paste -sd, |
	sed 's/\(\([0-9]*,\)\{11\}[0-9]*\),/\1\n/' >rgba-want.csv
expect 0 "" "$CARSH" run swz.xml src=rgba.csv dst=rgba-got.csv
same_file rgba-got.csv rgba-want.csv "RGBA/uint8 pixels as uchar4, one row of the image a line"

# A 3-D image: each voxel's neighbours above and below along z, clamped to the edge, into
# another 3-D image and a buffer.
cat >vol.xml <<'XML'
<FlowModel name="vol">
  <Param name="W" value="5"/>
  <Param name="H" value="4"/>
  <Param name="D" value="3"/>
  <Program>
    <Source>__kernel void vol(read_only image3d_t src, write_only image3d_t dst, __global float *diff,
                  sampler_t smp)
{
	int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
	float a = read_imagef(src, smp, (int4)(x, y, z - 1, 0)).x;
	float b = read_imagef(src, smp, (int4)(x, y, z + 1, 0)).x;
	write_imagef(dst, (int4)(x, y, z, 0), (float4)(a + b));
	diff[(z * get_image_height(src) + y) * get_image_width(src) + x] = a - b;
}</Source>
    <Kernel name="vol"/>
  </Program>
  <WorkSize global="W,H,D"/>
  <Arguments>
    <Input   name="src" image="3d" width="W" height="H" depth="D" format="float"/>
    <Output  name="dst" image="3d" width="W" height="H" depth="D" format="float"/>
    <Output  name="diff" type="float" count="W*H*D"/>
    <Sampler name="smp"/>
  </Arguments>
</FlowModel>
XML
seq 1 60 >vol-in.csv
# voxel i (from 0) holds i+1; its slice z = i / 20; below is z-1, above z+1, each clamped.
awk 'BEGIN { for (i = 0; i < 60; i++) { z = int(i / 20); lo = z > 0 ? i - 20 : i
	hi = z < 2 ? i + 20 : i; printf "%d%s", lo + hi + 2, (i % 5 == 4 ? "\n" : ",") } }' >vol-sum.csv
awk 'BEGIN { for (i = 0; i < 60; i++) { z = int(i / 20); lo = z > 0 ? i - 20 : i
	hi = z < 2 ? i + 20 : i; print lo - hi } }' >vol-diff.csv
# Writing a 3-D image needs cl_khr_3d_image_writes (PoCL has it, NVIDIA's driver not).
if "$CARSH" run vol.xml src=vol-in.csv dst=vol-got.csv diff=vol-dgot.csv >"$OUT" 2>"$ERR"; then
	same_file vol-got.csv vol-sum.csv "a 3-D image read and written, clamp-to-edge along z"
	same_file vol-dgot.csv vol-diff.csv "a 3-D image beside a buffer"
elif grep -qF "carsh: vol.xml:20: image 'dst': device '" "$ERR" &&
	grep -qF "' cannot write 3-D images (no cl_khr_3d_image_writes); write a buffer, or a 2-D image a slice" "$ERR"; then
	pass "a device without cl_khr_3d_image_writes refuses a written 3-D image"
else
	fail "run vol.xml: $(cat "$ERR")"
fi
# Reading one needs nothing more.
sed -e 's/, write_only image3d_t dst//' -e '/write_imagef/d' -e '/name="dst"/d' vol.xml >volr.xml
expect 0 "" "$CARSH" run volr.xml src=vol-in.csv diff=volr-dgot.csv
same_file volr-dgot.csv vol-diff.csv "a 3-D image read, clamp-to-edge along z, into a buffer"
sed 's/<Input   name="src" image="3d"/<Input   name="src" image="2d"/' vol.xml >vol2d.xml
expect 1 "carsh: vol2d.xml:19: <Input name=\"src\">: depth= is for image=\"3d\"" \
	"$CARSH" run vol2d.xml src=vol-in.csv dst=discard diff=discard
sed 's/<Input   name="src" image="3d" width="W" height="H" depth="D"/<Input   name="src" image="2d" width="W" height="H*D"/' vol.xml >vol-flat.xml
expect 1 "carsh: vol-flat.xml:19: <Input name=\"src\">: an image2d_t, but kernel 'vol' argument 0 is image3d_t" \
	"$CARSH" run vol-flat.xml src=vol-in.csv dst=discard diff=discard

# Errors.
sed 's/format="float"\/>/format="float" channels="BGRA"\/>/' blur.xml >bgra.xml
expect 1 "does not support the image format BGRA/float (channels=\"BGRA\" format=\"float\"); it supports: R/" \
	"$CARSH" run bgra.xml src=fill:0 dst=discard
expect 1 "carsh: bgra.xml:18: image 'src': device '" "$CARSH" run bgra.xml src=fill:0 dst=discard
"$IMGREF" pgm 36 23 7 small.pgm
expect 1 "carsh: blur.xml: stream 'src': small.pgm: 36x23 = 828 pixels, expected 851" \
	"$CARSH" run blur.xml W=37 src=small.pgm dst=discard
expect 1 "carsh: blur.xml:18: image 'src' is 1000000 x 1 pixels; device '" \
	"$CARSH" run blur.xml W=1000000 H=1 src=fill:0 dst=discard
sed 's/format="float"\/>/format="half"\/>/' blur.xml >half.xml
expect 1 "carsh: half.xml:18: <Input name=\"src\">: unknown image format 'half' (formats: float unorm8 unorm16 snorm8 snorm16 uint8 uint16 uint32 int8 int16 int32)" \
	"$CARSH" run half.xml src=fill:0 dst=discard
sed 's/<Output  name="dst"/<InOut   name="dst"/' blur.xml >inout.xml
expect 1 "carsh: inout.xml:19: <InOut name=\"dst\">: an image cannot be an InOut: OpenCL 1.2 has no read_write images; read one image as an <Input> and write another as an <Output>" \
	"$CARSH" run inout.xml src=fill:0 dst=discard
sed 's/<Input   name="src" image="2d" width="W" height="H" format="float"\/>/<Input name="src" type="float" count="W*H"\/>/' blur.xml >plain.xml
expect 1 "carsh: plain.xml:18: <Input name=\"src\">: __global float *, but kernel 'blur' argument 0 is image2d_t (an image stream: image=\"2d\" width= height= format=)" \
	"$CARSH" run plain.xml src=fill:0 dst=discard
sed 's/<Sampler name="smp"[^>]*>/<Constant name="smp" type="int" value="0"\/>/' blur.xml >const.xml
expect 1 "carsh: const.xml:20: <Constant name=\"smp\">: int, but kernel 'blur' argument 2 is sampler_t (give it a <Sampler>)" \
	"$CARSH" run const.xml src=fill:0 dst=discard
sed -e 's/<Input   name="src"/<Output  name="SRC"/' -e 's/<Output  name="dst"/<Input   name="dst"/' blur.xml >swapped.xml
expect 1 "carsh: swapped.xml:18: <Output name=\"SRC\">: an Output image is write_only image2d_t, but kernel 'blur' argument 0 is read_only image2d_t" \
	"$CARSH" run swapped.xml SRC=discard dst=fill:0
sed 's/filter="nearest"/filter="cubic"/' blur.xml >cubic.xml
expect 1 "carsh: cubic.xml:20: <Sampler name=\"smp\">: unknown filter 'cubic' (filters: nearest linear)" \
	"$CARSH" run cubic.xml src=fill:0 dst=discard
sed 's/image="2d" width="W"/width="W"/' blur.xml >noimage.xml
expect 1 "carsh: noimage.xml:18: <Input name=\"src\">: width= is for an image stream (add image=\"2d\")" \
	"$CARSH" run noimage.xml src=fill:0 dst=discard
# The engines that move plain buffers say so.
expect 1 "carsh: partition: blur.xml: blur.xml:18: <Input name=\"src\">: the partitioning engine moves plain buffers only, not images; run it with 'run' (either executor)" \
	"$CARSH" partition --no-progress --gpu none --threads 1 blur.xml src=pic.pgm dst=discard
mkdir -p in && cp pic.csv in/a.csv
cat >p.xml <<'XML'
<CarshPipeline name="p">
  <Item>
    <Buffer name="frame" type="float" count="851"/>
    <Buffer name="out"   type="float" count="851"/>
  </Item>
  <Source buffer="frame" files="in/*.csv"/>
  <Stage name="blur" flowmodel="blur.xml">
    <Bind stream="src" buffer="frame"/>
    <Bind stream="dst" buffer="out"/>
  </Stage>
  <Sink buffer="out" files="out-{name}.csv"/>
</CarshPipeline>
XML
expect 1 "carsh: pipeline: blur.xml:18: <Input name=\"src\">: the pipeline engine moves plain buffers only, not images; run it with 'run' (either executor)" \
	"$CARSH" pipeline --no-progress --gpu none p.xml
cat >b.bat.xml <<'XML'
<CarshBat>
  <Exec><CarshExe><FlowModel file="blur.xml"/>
    <Input name="src"><DataFile>pic.pgm</DataFile></Input>
    <Output name="dst"><DataFile>b.csv</DataFile></Output>
  </CarshExe></Exec>
</CarshBat>
XML
expect 0 "" "$CARSH" run b.bat.xml
close_to b.csv blur-want.csv 1e-6 "an image flow-model in a batch"
expect 1 "carsh: pack: b.bat.xml:2: <Exec>: blur.xml:18: <Input name=\"src\">: pack moves plain buffers only, not images; leave it out of the pack" \
	"$CARSH" pack b.bat.xml -o pk
finish
