#!/bin/sh
# The shipped flow-models and the executable format, checked against independent C
# references (tests/tools/ref.c) and closed forms.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

# vadd: one rounding per element, so the device must match the reference exactly.
"$REF" gen 1000 1 >a.csv
"$REF" gen 1000 2 >b.csv
"$REF" vadd a.csv b.csv >c.want
expect 0 "" "$CARSH" run "$FM/vadd.xml" a=a.csv b=b.csv c=c.csv N=1000
close_to c.csv c.want 0 "vadd equals the C reference"

# scale through a pipe, as the README shows.
seq 1 1000 | "$CARSH" run "$FM/scale.xml" x=- y=- >y.csv 2>"$ERR"
[ $? -eq 0 ] || fail "seq | carsh run scale.xml: $(cat "$ERR")"
seq 1 1000 >x.csv
"$REF" scale 2 x.csv >y.want
close_to y.csv y.want 0 "scale through a pipe equals 2*x"
[ "$(wc -l <y.csv)" -eq 1000 ] && pass "scale wrote 1000 rows" || fail "scale row count"

# saxpy updates its InOut file in place; -cl-mad-enable allows a fused multiply-add.
"$REF" gen 4096 3 >x.csv
"$REF" gen 4096 4 >y.csv
"$REF" saxpy 0.75 x.csv y.csv >y.want
expect 0 "" "$CARSH" run "$FM/saxpy.xml" x=x.csv y=y.csv N=4096 A=0.75
close_to y.csv y.want 1e-6 "saxpy updated y.csv in place like the reference"

# 3x3 FIR (004 §2.7) on an odd-sized image.
"$REF" gen $((37 * 53)) 5 0 255 >img.csv
"$REF" gen 9 6 >h.csv
"$REF" fir3x3 37 53 img.csv h.csv >fir.want
expect 0 "" "$CARSH" run "$FM/fir3x3.xml" x=img.csv h=h.csv y=fir.csv M=37 N=53
close_to fir.csv fir.want 1e-5 "fir3x3 equals the C reference"

# An executable file: relative paths, columns, <Device select>.
mkdir -p exe && cp "$DATA/exe/vadd.exe.xml" exe/
sed -i 's|../../../flowmodels|'"$FM"'|' exe/vadd.exe.xml
"$REF" gen 256 7 >exe/a.csv
"$REF" gen 256 8 >exe/b.csv
"$REF" vadd exe/a.csv exe/b.csv >c256.want
expect 0 "" "$CARSH" exe/vadd.exe.xml
close_to exe/c.csv c256.want 0 "vadd.exe.xml wrote c.csv beside itself"
[ "$(wc -l <exe/c.csv)" -eq 16 ] && [ "$(head -1 exe/c.csv | tr ',' '\n' | wc -l)" -eq 16 ] &&
	pass "columns=16 gives 16 rows of 16" || fail "columns layout: $(head -2 exe/c.csv)"

# Parameter precedence (DESIGN §3.1): executable > caller > flow-model default.
expect 0 "" "$CARSH" run "$DATA/exe/precedence.exe.xml" N=100 A=5
printf '15\n15\n15\n15\n15\n15\n15\n15\n' >prec.want
same_file "$OUT" prec.want "exe Param N=8 beats N=100; caller A=5 beats the default A=2"
expect 0 "" "$CARSH" -c "set A=7; run $DATA/exe/precedence.exe.xml"
printf '21\n21\n21\n21\n21\n21\n21\n21\n' >prec7.want
same_file "$OUT" prec7.want "a shell variable is a caller parameter"

# <Fill> and <Discard/>, inline flow-model and kernel source.
expect 0 "" "$CARSH" "$DATA/exe/fill_discard.exe.xml"
printf '2.25,3.25,4.25\n5.25,6.25,7.25\n' >fd.want
same_file "$OUT" fd.want "Fill 1.5 and Discard: sq = x*x + i in rows of 3"

# Types: double, int4 with a vector constant, uchar, long (2^62 + i is exact only as long).
printf '0.1,0.25,-3,1e10,7\n' >d.csv
seq 1 20 >v.csv
expect 0 "" "$CARSH" run "$DATA/fm/types.xml" d=d.csv d2=d2.csv v=v.csv v2=v2.csv u=u.csv l=l.csv
awk 'BEGIN { split("0.1 0.25 -3 1e10 7", d, " "); for (i = 1; i <= 5; i++) printf "%.17g\n", d[i] * 2 + 1 / 3 }' >d2.want
close_to_double d2.csv d2.want 1e-15 "double stream: d*2 + 1/3"
printf '1,-4,9,20\n5,-12,21,40\n9,-20,33,60\n13,-28,45,80\n17,-36,57,100\n' >v2.want
same_file v2.csv v2.want "int4 stream times the int4 constant (1,-2,3,N)"
printf '0\n100\n200\n44\n144\n' >u.want
same_file u.csv u.want "uchar wraps modulo 256"
printf '4611686018427387904\n4611686018427387905\n4611686018427387906\n4611686018427387907\n4611686018427387908\n' >l.want
same_file l.csv l.want "long constant and stream keep all 64 bits"

# 3-D work size with a local size and a __local argument.
expect 0 "" "$CARSH" run "$DATA/fm/ids3d.xml" out=ids.csv
for z in 0 1; do for y in 0 1 2; do for x in 0 1 2 3; do
	echo $((x + 100 * y + 10000 * z))
done; done; done >ids.want
same_file ids.csv ids.want "3-D NDRange: every work-item wrote its own id"

finish
