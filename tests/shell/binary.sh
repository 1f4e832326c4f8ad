#!/bin/sh
# Binary streams (docs/formats.md): raw little-endian and .npy files by extension, "-:FORMAT"
# for standard input and output, their errors; CSV read with blank separators and numbers
# printed in full. Bytes are written with printf and read back with od, independently of
# carsh.
. "$TOP_SRCDIR/tests/shell/lib.sh"

cd "$T" || exit 1
SCALE="$FM/scale.xml"

# 1.0f, 2.0f, -0.5f as little-endian bytes.
printf '\000\000\200\077\000\000\000\100\000\000\000\277' >x.raw
cp x.raw x.bin

expect 0 "" "$CARSH" -c "virtbuf create x float 3; virtbuf fill x x.raw; virtbuf dump x"
printf '1\n2\n-0.5\n' >want
same_file "$OUT" want "virtbuf fill from a .raw file"
expect 0 "" "$CARSH" -c "virtbuf create x float 3; virtbuf fill x x.bin; virtbuf dump x out.bin"
same_file out.bin x.raw "virtbuf dump to a .bin file writes the bytes of the floats"

# run NAME=FILE: a .raw input (mapped), a .npy output.
expect 0 "" "$CARSH" run "$SCALE" x=x.raw y=y.npy N=3
od -An -tu1 -N10 y.npy | tr -s ' ' >got
echo ' 147 78 85 77 80 89 1 0 118 0' >want
same_file got want ".npy output: magic, version 1.0, header length 118"
dd if=y.npy bs=1 skip=10 count=57 2>/dev/null >got
printf "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" >want
same_file got want ".npy output: the header's dict"
[ "$(wc -c <y.npy)" -eq 140 ] && pass ".npy output: 128 bytes of header, 12 of data" ||
	fail ".npy output is $(wc -c <y.npy) bytes, expected 140"
tail -c 12 y.npy | od -An -tf4 | tr -s ' ' >got
echo ' 2 4 -1' >want
same_file got want ".npy output: the data, 2*x"
expect 0 "" "$CARSH" run "$SCALE" x=y.npy y=- N=3 A=0.5
printf '1\n2\n-0.5\n' >want
same_file "$OUT" want ".npy input read back"

# An InOut .raw file, mapped: the result replaces the file.
printf '\000\000\200\077\000\000\000\100' >z.raw
cp z.raw x2.raw
expect 0 "" "$CARSH" run "$DATA/fm/addone.xml" x=x2.raw y=discard z=z.raw N=2
od -An -tf4 z.raw | tr -s ' ' >got
echo ' 2 4' >want
same_file got want "an InOut .raw file: z += x written back"

# Standard input and output in a format.
cat x.raw >in.raw
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=-:raw y=- N=3 <in.raw"
printf '2\n4\n-1\n' >want
same_file "$OUT" want "x=-:raw reads raw bytes from standard input"
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=- y=-:raw N=3 A=1 <want"
printf '\000\000\000\100\000\000\200\100\000\000\200\277' >want.raw
same_file "$OUT" want.raw "y=-:raw writes raw bytes to standard output"
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=-:npy y=-:npy N=3 A=0.5 <y.npy"
tail -c 12 "$OUT" | od -An -tf4 | tr -s ' ' >got
echo ' 1 2 -0.5' >want
same_file got want "x=-:npy and y=-:npy through standard input and output"
expect 0 "" sh -c "\"$CARSH\" -c 'virtbuf create x float 3; virtbuf fill x -:raw; virtbuf dump x -:npy --columns 3' <x.raw"
dd if="$OUT" bs=1 skip=10 count=59 2>/dev/null >got
printf "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }" >want
same_file got want "virtbuf dump -:npy --columns 3 writes a 2-D array"

# Errors: the size, a short read, the dtype, the shape, the format's name.
expect 1 "virtbuf fill x: x.raw: 12 bytes, expected 16 (4 float values)" \
	"$CARSH" -c "virtbuf create x float 4; virtbuf fill x x.raw"
expect 1 "stream 'x': <stdin>: 10 bytes of data, expected 12 (3 float values): a short read" \
	sh -c "head -c 10 x.raw | \"$CARSH\" run \"$SCALE\" x=-:raw y=discard N=3"
expect 1 "stream 'x': <stdin>: more than 12 bytes of data (3 float values)" \
	sh -c "cat x.raw x.raw | \"$CARSH\" run \"$SCALE\" x=-:raw y=discard N=3"
expect 1 "y.npy: shape (3,) holds 3 values, expected 4" "$CARSH" run "$SCALE" x=y.npy y=discard N=4
{
	printf '\223NUMPY\001\000\166\000'
	printf "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
	printf "%60s\n" ""
	head -c 24 /dev/zero
} >d.npy
expect 1 "stream 'x': d.npy: dtype '<f8' (double) does not match the stream's float ('<f4')" \
	"$CARSH" run "$SCALE" x=d.npy y=discard N=3
head -c 100 y.npy >short.npy
expect 1 "short.npy: truncated .npy header (100 bytes, the header says 128)" \
	"$CARSH" run "$SCALE" x=short.npy y=discard N=3
expect 1 "x.raw.npy: not a .npy file (no \\x93NUMPY magic)" sh -c "cp x.raw x.raw.npy &&
	\"$CARSH\" run \"$SCALE\" x=x.raw.npy y=discard N=3"
expect 1 "'-:xyz': unknown format 'xyz' (formats: csv npy raw pgm)" \
	"$CARSH" run "$SCALE" x=-:xyz y=discard N=3

# CSV: values separated by blanks (numpy.savetxt), numbers printed in full.
printf '1 2\n3\t4\n' >ws.csv
expect 0 "" "$CARSH" run "$SCALE" x=ws.csv y=- N=4
printf '2\n4\n6\n8\n' >want
same_file "$OUT" want "CSV values separated by spaces and tabs"
printf '1 2 x\n' >bad.csv
expect 1 "bad.csv:1:3: 'x' is not a number" "$CARSH" run "$SCALE" x=bad.csv y=- N=3
printf '500000\n0.00005\n5e15\n' >big.csv
expect 0 "" "$CARSH" run "$SCALE" x=big.csv y=- N=3
printf '1000000\n0.0001\n1e+16\n' >want
same_file "$OUT" want "floats print in full for exponents -4 to 15"

# A PGM output from the command line: its width as FILE,columns=EXPR (an expression over the
# parameters), else the message says how to give it.
seq 1 16 >x16.csv
expect 1 "stream 'y': img.pgm: a PGM image needs its width: give columns=\"WIDTH\" on the <DataFile>, or y=img.pgm,columns=WIDTH on the command line" \
	"$CARSH" run "$FM/scale.xml" x=x16.csv y=img.pgm N=16 A=2
expect 0 "" "$CARSH" run "$FM/scale.xml" x=x16.csv y=img.pgm,columns=N/4 N=16 A=2
printf 'P5\n4 4\n255\n' >img.want
awk 'BEGIN { for (i = 1; i <= 16; i++) printf "%c", 2 * i }' >>img.want
same_file img.pgm img.want "y=img.pgm,columns=N/4 writes a 4x4 image of the values"
expect 0 "" "$CARSH" run "$FM/scale.xml" x=x16.csv y=-,columns=8 N=16 A=1
printf '1,2,3,4,5,6,7,8\n9,10,11,12,13,14,15,16\n' >cols.want
same_file "$OUT" cols.want "y=-,columns=8 writes 8 values a row"
finish
