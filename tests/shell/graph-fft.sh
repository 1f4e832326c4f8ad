#!/bin/sh
# The 2D-FFT image filter of 004 §3.6 as a pipeline graph (004 §4.3.7, Figures 32-33):
# batches/graphs/fft-filter.xml, 13 flow-models, seven at once in the last repeat stage,
# run over a stream of pictures. Each item is checked against the double-precision
# reference tests/tools/fftref (as tests/shell/fft.sh checks the batch); the pipelined run
# must equal the serial one byte for byte, and the batch fft-filter-swap.bat.xml, which runs
# the same kernels, value for value.
. "$TOP_SRCDIR/tests/shell/lib.sh"
FFTREF="$TOP_BUILDDIR/tests/tools/fftref"
GRAPH="$TOP_SRCDIR/batches/graphs/fft-filter.xml"
cd "$T" || exit 1

# scaled OUT.csv N: the graph's exit is the unscaled inverse transform, N*N times the
# picture; dividing by a power of two is exact.
scaled() {
	awk -F, -v s=$(($2 * $2)) '{ for (i = 1; i <= NF; i++) printf "%s%.17g", (i > 1 ? "," : ""), $i / s; print "" }' "$1"
}

# Seven different pictures, so that the last stage runs all seven of its flow-models: the
# test picture, its negative, half of it, its transpose, and the first three again mixed.
"$FFTREF" picture 64 p.csv
awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) $i = 255 - $i; print }' p.csv >p1.csv
awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) $i = $i / 2; print }' p.csv >p2.csv
awk -F, '{ for (i = 1; i <= NF; i++) v[NR, i] = $i } END {
	for (i = 1; i <= NF; i++) { for (j = 1; j <= NR; j++) printf "%s%s", (j > 1 ? "," : ""), v[j, i]; print "" } }' \
	p.csv >p3.csv
cp p.csv p0.csv
paste -d, p1.csv p2.csv | awk -F, '{ n = NF / 2; for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), ($i + $(i + n)) / 3; print "" }' >p4.csv
awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) $i = (i * NR) % 256; print }' p.csv >p5.csv
awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) $i = ($i > 128) * 255; print }' p.csv >p6.csv

expect 0 "" "$CARSH" "$GRAPH" N=64 CUT=8 --trace re=p{i}.csv re_next=o{i}.csv im_next=discard
grep -q '^graph fft-filter: 7 items, root reorder1, shift 2, 11 startup and 2 repeat stages$' "$ERR" &&
	pass "seven pictures, Figure 33's 11 startup and 2 repeat stages" || fail "plan: $(head -1 "$ERR")"
grep -q '^channel transpose2.re_next (2 buffers): filter.re transpose3.re$' "$ERR" &&
	pass "the filter changes the spectrum in place, so that channel has two buffers" ||
	fail "channels: $(cat "$ERR")"
grep -q '^step 13, repeat stage 13: ifft2#0 transpose4#1 reorder3#2 filter#3 fft2#4 transpose1#5 reorder1#6$' "$ERR" &&
	pass "the last stage runs seven flow-models at once" || fail "steps: $(grep '^step 1[23]' "$ERR")"
for k in 0 1 2 3 4 5 6; do
	"$FFTREF" filter low 8 p$k.csv >want$k.csv
	scaled o$k.csv 64 >got$k.csv
	if "$FFTREF" cmp got$k.csv want$k.csv 1e-5 255 >cmp.out 2>&1; then
		pass "picture $k, low-pass CUT=8, equals the reference ($(cat cmp.out))"
	else
		fail "picture $k: $(cat cmp.out)"
	fi
done
expect 0 "" "$CARSH" "$GRAPH" N=64 CUT=8 --serial re=p{i}.csv re_next=s{i}.csv im_next=discard
for k in 0 1 2 3 4 5 6; do
	same_file o$k.csv s$k.csv "picture $k: pipelined equals serial byte for byte"
done

# N = 256, high-pass, and the batch of the same kernels.
"$FFTREF" picture 256 q0.pgm
sed 's|fft-filter/filter.exe.xml|fft-filter/highpass.exe.xml|' "$GRAPH" >high.xml
sed -i "s|file=\"fft-filter/|file=\"$TOP_SRCDIR/batches/graphs/fft-filter/|; s|exe=\"fft-filter/|exe=\"$TOP_SRCDIR/batches/graphs/fft-filter/|" high.xml
expect 0 "" "$CARSH" high.xml --items 2 N=256 CUT=32 re=q0.pgm re_next=h{i}.csv im_next=discard
expect 0 "" "$CARSH" "$TOP_SRCDIR/batches/fft-filter/fft-filter-swap.bat.xml" N=256 FILTER=high \
	CUT=32 IMAGE=q0.pgm OUT=batch.csv
scaled h1.csv 256 >h1.scaled
close_to h1.scaled batch.csv 0 "N=256 high-pass: the graph's second item equals the batch, float for float"
"$FFTREF" filter high 32 q0.pgm >high.want
"$FFTREF" cmp h1.scaled high.want 1e-5 255 >cmp.out 2>&1 && pass "N=256 high-pass equals the reference" ||
	fail "N=256 high-pass: $(cat cmp.out)"

# The default picture of the graph file, and its exits on the command line.
expect 0 "" "$CARSH" "$GRAPH" re_next=d{i}.csv im_next=discard
"$FFTREF" filter low 16 "$TOP_SRCDIR/examples/fft-filter/picture.pgm" >d.want
scaled d0.csv 128 >d.scaled
"$FFTREF" cmp d.scaled d.want 1e-5 255 >cmp.out 2>&1 && pass "the default picture, N=128 CUT=16" ||
	fail "default picture: $(cat cmp.out)"

finish
