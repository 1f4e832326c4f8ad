#!/bin/sh
# The real-world suite (tests/realworld/README.md): public kernels, each .cl as its suite
# ships it, run through their flow-models and batches; every result is checked against
# rwref, written from the suite's own CPU code. Integers compare exactly, floats within a
# tolerance (the kernels sum in float and in their own order; rwref in double).
. "$TOP_SRCDIR/tests/shell/lib.sh"
RW="$TOP_SRCDIR/tests/realworld"
RWREF="$TOP_BUILDDIR/tests/realworld/rwref"
cd "$T" || exit 1

# gen N SEED LO HI [integer] > FILE: the suite's deterministic inputs.
gen() {
	awk -v n="$1" -v seed="$2" -v lo="$3" -v hi="$4" -v integer="${5:-0}" -f "$RW/gen.awk"
}

# The kernels are the suites' files byte for byte (README.md, "Unchanged").
if (cd "$RW" && sha256sum -c --quiet SHA256SUMS) >sums.out 2>&1; then
	pass "every .cl is byte-identical to its upstream file (SHA256SUMS)"
else
	fail "a kernel differs from its upstream file: $(cat sums.out)"
fi

# ---- Khronos OpenCL-SDK samples ----
K="$RW/khronos"
expect 0 "" "$CARSH" run "$K/collatz.xml" result=collatz.csv N=1000
"$RWREF" collatz 1000 >collatz-want.csv
same_file collatz.csv collatz-want.csv "khronos Collatz: steps of 1..1000"

gen $((22 * 14)) 3 0 1 >conv-in.csv
gen 9 4 -1 1 >conv-mask.csv
expect 0 "" "$CARSH" run "$K/convolution.xml" in=conv-in.csv mask=conv-mask.csv out=conv.csv
"$RWREF" conv3x3 20 12 conv-in.csv conv-mask.csv >conv-want.csv
close_to conv.csv conv-want.csv 1e-5 "khronos convolution_3x3 (uint2 out_dim)"

gen 1024 5 -10 10 >saxpy-x.csv
gen 1024 6 -10 10 >saxpy-y.csv
"$RWREF" saxpy 2.5 saxpy-x.csv saxpy-y.csv >saxpy-want.csv
expect 0 "" "$CARSH" run "$K/saxpy.xml" x=saxpy-x.csv y=saxpy-y.csv
close_to saxpy-y.csv saxpy-want.csv 1e-6 "khronos saxpy (fma)"

# histogram_shared adds into its output: a buffer that starts at 0.
gen 1000 7 -1 9 >hist-in.csv
awk 'BEGIN { for (i = 0; i <= 16; i++) print i * 0.5 }' >hist-levels.csv
expect 0 "" "$CARSH" -c "virtbuf create h uint 16; virtbuf fill h --value 0;
	run $K/histogram.xml input_array=hist-in.csv levels_array=hist-levels.csv histogram=buffer:h;
	virtbuf dump h hist.csv"
"$RWREF" histogram 16 hist-in.csv hist-levels.csv >hist-want.csv
same_file hist.csv hist-want.csv "khronos histogram_shared (local atomics into a zeroed buffer)"

# Particles in a box of side 8 with masses 0.5..1 in w; velocities -1..1 with w = 0.
gen $((128 * 4)) 23 -4 4 | awk '{ print (NR % 4 == 0) ? 0.75 + $1 / 16 : $1 }' >nbody-pm.csv
gen $((128 * 4)) 24 -1 1 | awk '{ print (NR % 4 == 0) ? 0 : $1 }' >nbody-vel.csv
"$RWREF" nbody 128 0.01 nbody-pm.csv nbody-vel.csv >nbody-want.csv
cp nbody-vel.csv nbody-v.csv
expect 0 "" "$CARSH" run "$K/nbody.xml" pos_mass_front=nbody-pm.csv pos_mass_back=nbody-pos.csv \
	velocity=nbody-v.csv
cat nbody-pos.csv nbody-v.csv >nbody.csv
close_to nbody.csv nbody-want.csv 1e-5 "khronos nbody, one step (float3 arithmetic on float4 streams)"

# conway reads and writes R/uint8 images; ten generations through two virtual buffers that
# change names after each, as the sample's host swaps its two images.
gen $((64 * 32)) 25 0 2 1 >life-in.csv
life="virtbuf create f uchar 64*32; virtbuf create b uchar 64*32; virtbuf fill f life-in.csv"
for g in 1 2 3 4 5 6 7 8 9 10; do
	life="$life; run $K/conway.xml front=buffer:f back=buffer:b; virtbuf swap f b"
done
expect 0 "" "$CARSH" -c "$life; virtbuf dump f life.csv"
"$RWREF" conway 64 32 10 life-in.csv >life-want.csv
same_file life.csv life-want.csv "khronos conway, 10 generations (image2d_t, a periodic sampler)"

# blur reads and writes R/uint8 images without a sampler (read_imageui with int2 coords).
# A 40x30 grey picture (written back a row a line: tr makes it a pixel a line); the dual passes go through a virtual buffer, as the sample's host
# goes through its temporary image. The kernel blur's weights are the binomial 1 4 6 4 1
# (the host's are a Gaussian's): integer weights keep every sum exact, so that the
# rounding compares exactly.
gen 1200 40 0 256 1 >blur-in.csv
printf '1\n4\n6\n4\n1\n' >blur-kern.csv
expect 0 "" "$CARSH" run "$K/blur_box.xml" input_image=blur-in.csv output_image=blur1.csv
"$RWREF" blurbox 40 30 2 blur-in.csv >blur1-want.csv
tr , '\n' <blur1.csv >blur1.txt
same_file blur1.txt blur1-want.csv "khronos blur_box (image2d_t, no sampler)"
expect 0 "" "$CARSH" -c "virtbuf create tmp uchar 40*30;
	run $K/blur_box_horizontal.xml input_image=blur-in.csv output_image=buffer:tmp;
	run $K/blur_box_vertical.xml input_image=buffer:tmp output_image=blur2.csv"
"$RWREF" blurbox2 40 30 2 blur-in.csv >blur2-want.csv
tr , '\n' <blur2.csv >blur2.txt
same_file blur2.txt blur2-want.csv "khronos blur_box_horizontal, blur_box_vertical"
expect 0 "" "$CARSH" -c "virtbuf create tmp uchar 40*30;
	run $K/blur_kernel_horizontal.xml input_image=blur-in.csv output_image=buffer:tmp kern=blur-kern.csv;
	run $K/blur_kernel_vertical.xml input_image=buffer:tmp output_image=blur3.csv kern=blur-kern.csv"
"$RWREF" blurkern2 40 30 blur-kern.csv blur-in.csv >blur3-want.csv
tr , '\n' <blur3.csv >blur3.txt
same_file blur3.txt blur3-want.csv "khronos blur_kernel_horizontal, blur_kernel_vertical (constant float *kern)"
# The local-memory exchange variants compute the same passes in work-groups of 16 (the
# width and the height rounded up to 48 and 32).
expect 0 "" "$CARSH" -c "virtbuf create tmp uchar 40*30;
	run $K/blur_box_horizontal_exchange.xml input_image=blur-in.csv output_image=buffer:tmp;
	run $K/blur_box_vertical_exchange.xml input_image=buffer:tmp output_image=blur4.csv"
tr , '\n' <blur4.csv >blur4.txt
same_file blur4.txt blur2-want.csv "khronos blur_box_horizontal_exchange, blur_box_vertical_exchange (local uchar4)"
expect 0 "" "$CARSH" -c "virtbuf create tmp uchar 40*30;
	run $K/blur_kernel_horizontal_exchange.xml input_image=blur-in.csv output_image=buffer:tmp kern=blur-kern.csv;
	run $K/blur_kernel_vertical_exchange.xml input_image=buffer:tmp output_image=blur5.csv kern=blur-kern.csv"
tr , '\n' <blur5.csv >blur5.txt
same_file blur5.txt blur3-want.csv "khronos blur_kernel_horizontal_exchange, blur_kernel_vertical_exchange"

# reaction_diffusion reads and writes RGBA/unorm8 images (u red, v green), ten steps through
# two virtual buffers swapped after each, from the host's start: u = 1, v = 0, and v = 1 in
# a side/100 square at the centre. The kernel computes in float and rounds each step to 8
# bits, rwref in double: a value at a rounding boundary may land one step (1/255) apart, so
# the channels compare as unorm values within 1/255.
awk 'BEGIN { for (y = 0; y < 200; y++) for (x = 0; x < 200; x++)
	print 255 "," (x >= 100 && x < 102 && y >= 100 && y < 102 ? 255 : 0) ",0,255" }' >rd-in.csv
rd="virtbuf create a uchar4 200*200; virtbuf create b uchar4 200*200; virtbuf fill a rd-in.csv"
for g in 1 2 3 4 5 6 7 8 9 10; do
	rd="$rd; run $K/reaction_diffusion.xml in_data=buffer:a out_data=buffer:b; virtbuf swap a b"
done
expect 0 "" "$CARSH" -c "$rd; virtbuf dump a rd.csv"
tr , '\n' <rd.csv | awk '{ print $1 / 255 }' >rd.txt
"$RWREF" rd 200 10 rd-in.csv | awk '{ print $1 / 255 }' >rd-want.csv
close_to rd.txt rd-want.csv 0.004 "khronos reaction_diffusion_step, 10 steps (RGBA/unorm8 images, a kernel-declared sampler)"

# ---- Rodinia ----
D="$RW/rodinia"
# A diagonally dominant system, so that elimination without pivoting stays tame.
gen 256 8 -1 1 | awk '{ i = NR - 1; print (i % 16 == int(i / 16)) ? $1 + 20 : $1 }' >gauss-a.csv
gen 16 9 -5 5 >gauss-b.csv
expect 0 "" "$CARSH" run "$D/gaussian.bat.xml" A=gauss-a.csv B=gauss-b.csv
cat a-out.csv b-out.csv m-out.csv >gauss.csv
"$RWREF" gauss 16 gauss-a.csv gauss-b.csv >gauss-want.csv
close_to gauss.csv gauss-want.csv 1e-5 "rodinia gaussian Fan1+Fan2, <Repeat index=\"t\"> over 15 pivots"

gen 400 10 0 10 >km-features.csv
gen 20 11 0 10 >km-clusters.csv
expect 0 "" "$CARSH" -c "virtbuf create fs float 400;
	run $D/kmeans_swap.xml feature=km-features.csv feature_swap=buffer:fs;
	run $D/kmeans_kernel_c.xml feature=buffer:fs clusters=km-clusters.csv membership=km-member.csv;
	virtbuf dump fs km-swap.csv"
"$RWREF" kmeans 100 4 5 km-features.csv km-clusters.csv >km-want.csv
head -n 400 km-want.csv >km-swap-want.csv
tail -n 100 km-want.csv >km-member-want.csv
same_file km-swap.csv km-swap-want.csv "rodinia kmeans_swap (feature transposition)"
same_file km-member.csv km-member-want.csv "rodinia kmeans_kernel_c (nearest centre)"

gen $((21 * 100)) 12 0 10 1 >path-all.csv
head -n 100 path-all.csv >path-src.csv
tail -n +101 path-all.csv >path-wall.csv
expect 0 "" "$CARSH" run "$D/pathfinder.bat.xml" WALL=path-wall.csv SRC=path-src.csv
"$RWREF" pathfinder 21 100 path-all.csv >path-want.csv
same_file result.csv path-want.csv "rodinia pathfinder dynproc_kernel, 5 pyramid launches"

gen $((40 * 36)) 13 70 100 >hot-temp.csv
gen $((40 * 36)) 14 0 2 >hot-power.csv
expect 0 "" "$CARSH" run "$D/hotspot.bat.xml" TEMP=hot-temp.csv POWER=hot-power.csv
"$RWREF" hotspot 40 36 6 hot-temp.csv hot-power.csv 0.5 1 1.25 4 0.1 >hot-want.csv
close_to temp-out.csv hot-want.csv 1e-5 "rodinia hotspot, 3 launches of 2 steps (-DBLOCK_SIZE=16)"

# backprop: ly[0] is the bias unit (1), as bpnn_layerforward sets it.
gen 17 25 -1 1 >bp-delta.csv
gen 65 26 0 1 | awk 'NR == 1 { print 1; next } { print }' >bp-ly.csv
gen $((65 * 17)) 27 -0.5 0.5 >bp-w.csv
gen $((65 * 17)) 28 -0.1 0.1 >bp-oldw.csv
"$RWREF" adjust 16 64 bp-delta.csv bp-ly.csv bp-w.csv bp-oldw.csv >bp-want.csv
expect 0 "" "$CARSH" run "$D/backprop_adjust.xml" delta=bp-delta.csv ly=bp-ly.csv w=bp-w.csv oldw=bp-oldw.csv
cat bp-w.csv bp-oldw.csv >bp.csv
close_to bp.csv bp-want.csv 1e-6 "rodinia bpnn_adjust_weights_ocl (two InOut files)"

# srad: a 24x20 image (column-major, as srad's host keeps it) and main.c's clamped
# neighbour indices.
gen 480 29 0 255 >srad-img.csv
awk 'BEGIN { for (i = 0; i < 24; i++) { print (i > 0 ? i - 1 : 0) >"srad-idx-iN.csv";
	print (i < 23 ? i + 1 : 23) >"srad-idx-iS.csv" }
	for (j = 0; j < 20; j++) { print (j > 0 ? j - 1 : 0) >"srad-idx-jW.csv";
	print (j < 19 ? j + 1 : 19) >"srad-idx-jE.csv" } }'
expect 0 "" "$CARSH" run "$D/srad/srad.bat.xml" IMG=srad-img.csv IDX=srad-idx
cat srad-sums.csv srad-sums2.csv srad-I.csv >srad.csv
"$RWREF" srad 24 20 0.5 0.05 srad-img.csv >srad-want.csv
close_to srad.csv srad-want.csv 1e-5 "rodinia srad: extract, prepare, srad, srad2, compress (#include \"./main.h\" with -I..)"

# bfs: a random directed graph of 1000 nodes with 0 to 4 edges each (17 levels below node 0,
# 211 nodes unreached), nodes as struct Node records (starting, no_of_edges); the host's
# do-while loop is <Repeat until="buffer:over == 0">: 18 rounds, the last marking no node.
gen 1000 123457 0 5 1 | awk '{ print s + 0, $1; s += $1 } END { print s >"bfs-nedges" }' >bfs-nodes.csv
BFS_EDGES=$(cat bfs-nedges)
gen "$BFS_EDGES" 31 0 1000 1 >bfs-edges.csv
awk 'BEGIN { for (i = 0; i < 1000; i++) { print (i ? 0 : 1) >"bfs-start.csv"
	print (i ? -1 : 0) >"bfs-cost0.csv" } }'
expect 0 "" "$CARSH" run "$D/bfs/bfs.bat.xml" NODES=1000 EDGES="$BFS_EDGES" NODE_FILE=bfs-nodes.csv \
	EDGE_FILE=bfs-edges.csv START=bfs-start.csv COST0=bfs-cost0.csv OUT=bfs-cost.csv
"$RWREF" bfs 1000 bfs-nodes.csv bfs-edges.csv >bfs-want.csv
same_file bfs-cost.csv bfs-want.csv "rodinia bfs BFS_1+BFS_2 (struct Node, <Repeat until>)"
# The loop stops on the device's flag, not a count: 17 rounds leave the last level unmarked.
expect 1 "bfs.bat.xml:27: <Repeat>: until 'buffer:over == 0' still false after 17 runs (max=\"MAX\"): over[0] is 1" \
	"$CARSH" run "$D/bfs/bfs.bat.xml" NODES=1000 EDGES="$BFS_EDGES" NODE_FILE=bfs-nodes.csv \
	EDGE_FILE=bfs-edges.csv START=bfs-start.csv COST0=bfs-cost0.csv OUT=bfs-cost17.csv MAX=17

# nn: 1000 hurricane-like records (lat 0..90, lng 0..180) as struct latLong, the target
# point as two float Constants.
gen 2000 32 0 90 | awk 'NR % 2 { lat = $1; next } { print lat, $1 * 2 }' >nn-loc.csv
expect 0 "" "$CARSH" run "$D/nn.xml" N=1000 LAT=30.5 LNG=92.25 d_locations=nn-loc.csv d_distances=nn.csv
"$RWREF" nn 1000 30.5 92.25 nn-loc.csv >nn-want.csv
close_to nn.csv nn-want.csv 1e-6 "rodinia nn NearestNeighbor (struct latLong)"

# ---- SHOC ----
S="$RW/shoc"
# Small integers as floats: every partial sum is exact, so the sums compare exactly.
gen 4096 15 0 10 1 >sum-in.csv
"$RWREF" sum sum-in.csv >sum-want.csv
expect 0 "" "$CARSH" -c "virtbuf create part float 16;
	run $S/reduction.xml g_idata=sum-in.csv g_odata=buffer:part;
	run $S/reduction.xml g_idata=buffer:part g_odata=sum.csv N=16 G=1 L=8"
same_file sum.csv sum-want.csv "shoc reduce: 16 groups, then one over their sums"
expect 0 "" "$CARSH" run "$S/reduction_nolocal.xml" g_idata=sum-in.csv g_odata=sum1.csv
same_file sum1.csv sum-want.csv "shoc reduceNoLocal"

expect 0 "" "$CARSH" run "$S/scan.bat.xml" IN=sum-in.csv
"$RWREF" scan sum-in.csv >scan-want.csv
same_file scan.csv scan-want.csv "shoc scan: reduce, top_scan, bottom_scan"

# SHOC md: atoms on a jittered lattice, each with the 16 following atoms as neighbours.
gen $((256 * 4)) 16 0 0.4 | awk '{ i = int((NR - 1) / 4); c = (NR - 1) % 4;
	base = c == 0 ? i % 8 : c == 1 ? int(i / 8) % 8 : c == 2 ? int(i / 64) : 0;
	print c == 3 ? 0 : base * 1.5 + $1 }' >md-pos.csv
awk 'BEGIN { for (j = 0; j < 16; j++) for (i = 0; i < 256; i++) print (i + j + 1) % 256 }' >md-neigh.csv
expect 0 "" "$CARSH" run "$S/md.xml" position=md-pos.csv neighList=md-neigh.csv force=md-force.csv
"$RWREF" ljforce 256 16 md-pos.csv md-neigh.csv 16 1.5 2 >md-want.csv
close_to md-force.csv md-want.csv 1e-4 "shoc compute_lj_force (float4 positions and forces)"

# A CSR matrix of 128 rows (spmv_csr_vector_kernel's barrier is inside 'if (myRow < dim)':
# every work-item must have a row, so DIM*VW is a multiple of the work-group size) with 1 to 5 entries each, and the same matrix in ELLPACK-R.
awk 'BEGIN { for (r = 0; r < 128; r++) print 1 + (r * 7) % 5 }' >spmv-len.csv
gen 640 17 -1 1 >spmv-rand.csv
awk -v dim=128 'NR == FNR { len[FNR - 1] = $1; next } { rnd[FNR - 1] = $1 }
	END { nnz = 0; for (r = 0; r < dim; r++) { rd[r] = nnz;
		for (k = 0; k < len[r]; k++) { v[nnz] = rnd[nnz]; c[nnz] = (r + 3 * k) % dim;
			ev[k * dim + r] = v[nnz]; ec[k * dim + r] = c[nnz]; nnz++ } }
	rd[dim] = nnz
	for (j = 0; j < nnz; j++) { print v[j] > "spmv-val.csv"; print c[j] > "spmv-cols.csv" }
	for (r = 0; r <= dim; r++) print rd[r] > "spmv-rowdelim.csv"
	for (j = 0; j < 5 * dim; j++) { print (j in ev ? ev[j] : 0) > "spmv-eval.csv";
		print (j in ec ? ec[j] : 0) > "spmv-ecols.csv" }
	print nnz > "spmv-nnz" }' spmv-len.csv spmv-rand.csv
NNZ=$(cat spmv-nnz)
gen 128 18 -1 1 >spmv-vec.csv
"$RWREF" spmv 128 spmv-val.csv spmv-cols.csv spmv-rowdelim.csv spmv-vec.csv >spmv-want.csv
for k in scalar vector; do
	expect 0 "" "$CARSH" run "$S/spmv_csr_$k.xml" NNZ="$NNZ" val=spmv-val.csv vec=spmv-vec.csv \
		cols=spmv-cols.csv rowDelimiters=spmv-rowdelim.csv out=spmv-$k.csv
	close_to spmv-$k.csv spmv-want.csv 1e-5 "shoc spmv_csr_${k}_kernel"
done
expect 0 "" "$CARSH" run "$S/spmv_ellpackr.xml" val=spmv-eval.csv vec=spmv-vec.csv \
	cols=spmv-ecols.csv rowLengths=spmv-len.csv out=spmv-ell.csv
close_to spmv-ell.csv spmv-want.csv 1e-5 "shoc spmv_ellpackr_kernel"
# The same kernels built with USE_TEXTURE read the vector from a 32x4 float image.
for k in scalar vector; do
	expect 0 "" "$CARSH" run "$S/spmv_csr_${k}_tex.xml" NNZ="$NNZ" val=spmv-val.csv vec=spmv-vec.csv \
		cols=spmv-cols.csv rowDelimiters=spmv-rowdelim.csv out=spmv-$k-tex.csv
	close_to spmv-$k-tex.csv spmv-want.csv 1e-5 "shoc spmv_csr_${k}_kernel, USE_TEXTURE"
done
expect 0 "" "$CARSH" run "$S/spmv_ellpackr_tex.xml" val=spmv-eval.csv vec=spmv-vec.csv \
	cols=spmv-ecols.csv rowLengths=spmv-len.csv out=spmv-ell-tex.csv
close_to spmv-ell-tex.csv spmv-want.csv 1e-5 "shoc spmv_ellpackr_kernel, USE_TEXTURE"

# ---- pyopencl's examples ----
P="$RW/pyopencl"
gen 50000 19 0 1 >sum-a.csv
gen 50000 20 0 1 >sum-b.csv
expect 0 "" "$CARSH" run "$P/demo_sum.xml" a_g=sum-a.csv b_g=sum-b.csv res_g=demo-sum.csv
"$RWREF" add sum-a.csv sum-b.csv >demo-sum-want.csv
close_to demo-sum.csv demo-sum-want.csv 2e-7 "pyopencl demo.py sum"

gen $((48 * 32)) 21 -100 100 >tr-a.csv
expect 0 "" "$CARSH" run "$P/transpose_naive.xml" a=tr-a.csv a_t=tr.csv
"$RWREF" transpose 48 32 tr-a.csv >tr-want.csv
close_to tr.csv tr-want.csv 0 "pyopencl transpose.py NaiveTranspose (48x32 in 16x16 groups)"

# Pixels 0..255 with a fraction and a few negative ones: the kernel reads them into ints.
# Its result is the centre of its sorting network, not always the true median (rwref.c).
gen 600 22 -20 256 >med-img.csv
echo 30 >med-w.csv
echo 20 >med-h.csv
expect 0 "" "$CARSH" run "$P/median_filter.xml" img=med-img.csv width=med-w.csv height=med-h.csv \
	result=med.csv
"$RWREF" median 30 20 med-img.csv >med-want.csv
close_to med.csv med-want.csv 0 "pyopencl median-filter.py medianFilter"

finish
