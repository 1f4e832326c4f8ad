#!/bin/sh
# Bad input gets one clear line (where, what) and a non-zero status, never a crash.
# Each file in tests/data/bad differs from good.xml in one place.
. "$TOP_SRCDIR/tests/shell/lib.sh"
B="$DATA/bad"
cd "$T" || exit 1
seq 1 8 >x8.csv

expect 0 "" "$CARSH" run "$B/good.xml" x=x8.csv y=-
expect 1 "malformed.xml:12: malformed XML: Opening and ending tag mismatch: Kernel line 11 and Program" \
	"$CARSH" run "$B/malformed.xml" x=x8.csv y=-
expect 1 "unknown_element.xml:15: unknown element <Inptu> in <Arguments> (allowed: Input Output InOut Constant Local Sampler)" \
	"$CARSH" run "$B/unknown_element.xml"
expect 1 "unknown_attr.xml:15: <Input name=\"x\">: unknown attribute 'cout' (allowed: name type count partition unit image width height depth format channels)" \
	"$CARSH" run "$B/unknown_attr.xml"
expect 1 "unknown_type.xml:15: <Input name=\"x\">: unknown type 'flaot' (types: char uchar short ushort int uint long ulong float double, with widths 2 4 8 16)" \
	"$CARSH" run "$B/unknown_type.xml"
expect 1 "missing_name.xml:15: <Input>: missing attribute 'name'" \
	"$CARSH" run "$B/missing_name.xml"
expect 1 "duplicate_name.xml:16: <Output name=\"x\">: duplicate argument name 'x' (first at line 15)" \
	"$CARSH" run "$B/duplicate_name.xml"
expect 1 "stream 'y' (Output of $B/good.xml) is not bound: add y=FILE, y=- or y=discard" \
	"$CARSH" run "$B/good.xml" x=x8.csv
expect 1 "unbound.exe.xml:2: stream 'y' (Output of $B/good.xml) is not bound: add <Output name=\"y\">" \
	"$CARSH" run "$B/unbound.exe.xml"
expect 1 "wrong_kind.exe.xml:5: 'y' is an Output stream of $B/good.xml; bind it with <Output name=\"y\">" \
	"$CARSH" run "$B/wrong_kind.exe.xml"
expect 1 "unknown parameter 'M' in 'M*2'" "$CARSH" run "$B/unknown_param.xml" x=x8.csv y=-
expect 1 "division by zero in 'N/(N-8)'" "$CARSH" run "$B/div_zero.xml" x=x8.csv y=-
expect 1 "log2(6): 6 is not a power of two" "$CARSH" run "$B/log2.xml" x=x8.csv y=-
expect 1 "kernel 'kk' not found in <inline in $B/no_kernel.xml> (kernels there: k)" \
	"$CARSH" run "$B/no_kernel.xml" x=x8.csv y=-
expect 1 "build failed" "$CARSH" run "$B/compile_error.xml" x=x8.csv y=-
grep -q "undeclared_thing" "$ERR" && pass "the build log names the bad identifier" ||
	fail "build log missing: $(cat "$ERR")"
expect 1 "nonnumber.csv:2:2: 'abc' is not a number" "$CARSH" run "$B/good.xml" x="$B/nonnumber.csv" y=-
expect 1 "fewer.csv: 5 values, expected 8" "$CARSH" run "$B/good.xml" x="$B/fewer.csv" y=- N=8
expect 1 "more.csv: 9 values, expected 8" "$CARSH" run "$B/good.xml" x="$B/more.csv" y=- N=8
expect 1 "nowhere.csv: No such file or directory" "$CARSH" run "$B/good.xml" x=nowhere.csv y=-
expect 1 "nowhere.xml: No such file or directory" "$CARSH" run nowhere.xml
expect 1 "missing_source.xml:5: <Source>: $B/nowhere.cl: No such file or directory" \
	"$CARSH" run "$B/missing_source.xml"
expect 1 "document type declarations (DTDs, entities) are not allowed" "$CARSH" run "$B/dtd.xml"
expect 1 "work size 10 is not divisible by local size 4 in dimension 0" \
	"$CARSH" run "$B/not_divisible.xml" x=x8.csv y=-
expect 1 "stream 'x' needs 68719476736 bytes" "$CARSH" run "$B/too_large.xml" x=x8.csv y=discard N=17179869184
expect 1 "no OpenCL platform found" env OCL_ICD_VENDORS=/nonexistent "$CARSH" run "$B/good.xml" x=x8.csv y=-
expect 1 "no OpenCL device matches 'accelerator' (from --device/CARSH_DEVICE)" \
	"$CARSH" --device accelerator run "$B/good.xml" x=x8.csv y=-
expect 1 "no OpenCL device matches '42' (from --device/CARSH_DEVICE)" \
	env CARSH_DEVICE=42 "$CARSH" run "$B/good.xml" x=x8.csv y=-
expect 1 "'9x' is not a valid parameter name" "$CARSH" run "$B/good.xml" 9x=1 x=x8.csv y=-
expect 127 "frobnicate: command not found (try 'help')" "$CARSH" -c frobnicate
expect 2 "usage: unset NAME..." "$CARSH" -c unset
expect 2 "'--bogus'" "$CARSH" --bogus

# A failed run leaves an InOut file as it was (written through a temporary file).
cp "$B/fewer.csv" io.csv
expect 1 "" "$CARSH" run "$FM/saxpy.xml" x=x8.csv y=io.csv N=8
same_file io.csv "$B/fewer.csv" "a failed run leaves its InOut file untouched"
# A launch of more work-items than a block stream holds (global size x unit > count) is
# refused before the kernel runs; with the count right the same kernel runs.
expect 1 "blockover.xml:20: <Output name=\"y\">: partition=\"block\" with unit=2: the launch of 8 work-items needs 8 x 2 elements, the stream has 8" \
	"$CARSH" run "$DATA/errors/blockover.xml" y=-
[ ! -s "$OUT" ] && pass "a refused launch writes no output" || fail "refused launch wrote: $(head -3 "$OUT")"
expect 0 "" "$CARSH" run "$DATA/errors/blockover.xml" y=- C=16
seq 0 7 | awk '{ print; print }' >pairs.csv
close_to "$OUT" pairs.csv 0 "with count = global size x unit the kernel writes every block"
# A flow-model reached through a symbolic link finds its kernel from the link's folder, and
# says so where the kernel is not there.
mkdir -p lnk
ln -sf "$FM/scale.xml" lnk/scale.xml
expect 1 "lnk/scale.xml:9: <Source>: lnk/../kernels/scale.cl: No such file or directory (lnk/scale.xml is a symbolic link: relative paths in it start from the link's folder 'lnk', not from its target's '$(cd "$FM" && pwd -P)')" \
	"$CARSH" run lnk/scale.xml x=x8.csv y=- N=8
finish
