#!/bin/sh
# pack (004 §5.3, scenario-based execution): a batch's flow packed into one kernel driven by
# a scenario gives the same buffers and files as the batch itself. Four small flows
# (tests/data/pack: a chain over two sources, a loop with <Repeat> and an executable with
# <Swap>, steps of other sizes with a buffer only some steps touch, steps with local memory
# and the same NDRange) are compared value by value, every buffer dumped; the FFT image
# filter (and its one-job-per-pass variant) against the unpacked run; --explain; refusals.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

P="$TOP_SRCDIR/tests/data/pack"
FFTREF="$TOP_BUILDDIR/tests/tools/fftref"
BATCHES="$TOP_SRCDIR/batches/fft-filter"

awk 'BEGIN { for (i = 0; i < 64; i++) printf "%.6g\n", sin(i * 0.37) * 10 + i * 0.01 }' >in.csv

# flow NAME: run tests/data/pack/NAME.bat.xml, pack it with --explain, run the packed batch;
# every file the batch dumped, and its standard output, must be the same.
flow() {
	mkdir -p "$1/orig" "$1/packed"
	expect 0 "" "$CARSH" "$P/$1.bat.xml" IN=in.csv OUT="$1/orig" || return 1
	cp "$OUT" "$1/orig.stdout"
	expect 0 "" "$CARSH" pack "$P/$1.bat.xml" -o "$1/pk" --explain IN=in.csv \
		OUT="$1/packed" || return 1
	cp "$OUT" "$1/explain.txt"
	expect 0 "" "$CARSH" "$1/pk/$1.packed.bat.xml" || return 1
	same_file "$OUT" "$1/orig.stdout" "$1: the packed batch prints what the batch prints"
	for f in "$1"/orig/*.csv; do
		[ -e "$f" ] || continue
		close_to "$1/packed/${f##*/}" "$f" 0 "$1: ${f##*/} is the same, value by value"
	done
}

# explains NAME TEXT...: --explain of flow NAME says each TEXT.
explains() {
	name=$1
	shift
	for want in "$@"; do
		if grep -qF -- "$want" "$name/explain.txt"; then
			pass "$name --explain: $want"
		else
			fail "$name --explain lacks '$want': $(cat "$name/explain.txt")"
		fi
	done
}

# A chain a -> b -> c -> d -> e -> q: one slot carries it, each intermediate is saved for the
# dumps afterwards; the two sources both define twice(), so one is renamed.
flow chain
explains chain "one kernel, 5 runs, <Swap count=\"4\">" "work size: 64 (every step's own)" \
	"b_in / b_out" "scenario: 0 1 2 3 4" "saves c for after the flow"
grep -q "twice__s2" chain/pk/chain.packed.cl && pass "chain: the second twice() is renamed" ||
	fail "chain: no twice__s2 in the packed source"

# A loop: <Repeat> of a step and an in-place accumulation, a fill in the middle, an
# executable with <Swap count="2">, names swapped an odd number of times.
flow loop
explains loop "one kernel, 14 runs, <Swap count=\"13\">" "acc_in / acc_out" \
	"(its run 3)" "<Virtbuf op=\"swap\" name=\"it\" with=\"it_next\"/>" \
	"scenario: 0 1 0 1 0 1 0 1 0 2 3 0 4 5"
[ "$(grep -c 'step done' loop/orig.stdout)" = 5 ] &&
	pass "loop: the batch's echoes print (and the packed batch prints them too, above)" ||
	fail "loop: $(cat loop/orig.stdout)"

# Steps of 64, 32 and 8 x 8 work-items; 'side' only two steps touch (in place); 'w' only
# filled; a result nobody reads; a flow-model run by <Command> writing a file.
flow partial
explains partial "work size: 64 (the largest step's" "<Fill> 2" "<Discard/>" \
	"<Virtbuf op=\"fill\" name=\"w\" value=\"7\"/>"
grep -q "if (pk_l < 32)" partial/pk/partial.packed.cl &&
	pass "partial: the half-size step runs on the first 32 work-items" ||
	fail "partial: no bound for the half-size step"
close_to partial/packed/file.csv partial/orig/file.csv 0 \
	"partial: the file a step writes is the same, value by value"

# Local memory and a barrier: fine when every step has the same NDRange.
flow local
explains local "work size: 64 (every step's own)" "local (Local)"

# The last step prints its result; the Echo after it stays after it.
flow printing
grep -q "printed after the result" printing/orig.stdout &&
	[ "$(wc -l <printing/orig.stdout)" = 9 ] &&
	pass "printing: the result and the echo are printed" ||
	fail "printing: $(cat printing/orig.stdout)"

# The packed files: the executable swaps (scenario index, slots) runs - 1 times.
runs=$(wc -l <loop/pk/loop.scenario.csv)
grep -q "<Swap count=\"$((runs - 1))\" method=\"swap\">" loop/pk/loop.packed.exe.xml &&
	grep -q '<SwapPair input="index_in" output="index_out"/>' loop/pk/loop.packed.exe.xml &&
	pass "loop: $runs scenario entries, <Swap count=\"$((runs - 1))\"> with the index pair" ||
	fail "loop: the executable's swaps: $(grep -i swap loop/pk/loop.packed.exe.xml)"
grep -q "switch (pk_scenario\[pk_step\])" loop/pk/loop.packed.cl &&
	grep -q "pk_index_out\[0\] = pk_step + 1" loop/pk/loop.packed.cl &&
	! grep -q "__kernel void smooth" loop/pk/loop.packed.cl &&
	pass "loop: one kernel switching on the scenario, work-item 0 advancing the index" ||
	fail "loop: the packed kernel is not as described"

# The FFT image filter (004 §5.3.4): the packed batch gives the unpacked batch's image.
for n in 64 128; do
	"$FFTREF" picture $n pic$n.pgm
done
fft_same() { # LABEL GOT WANT
	if "$FFTREF" cmp "$2" "$3" 1e-5 255 >"$T/cmp.out" 2>&1; then
		pass "$1 ($(cat "$T/cmp.out"))"
	else
		fail "$1: $(cat "$T/cmp.out")"
	fi
}
for case in "64 low 8" "128 high 16"; do
	set -- $case
	expect 0 "" "$CARSH" "$BATCHES/fft-filter.bat.xml" N=$1 FILTER=$2 CUT=$3 IMAGE=pic$1.pgm \
		OUT=fft$1.csv &&
		expect 0 "" "$CARSH" pack "$BATCHES/fft-filter.bat.xml" -o fftpk$1 N=$1 FILTER=$2 \
			CUT=$3 IMAGE=pic$1.pgm OUT=fft$1.packed.csv &&
		expect 0 "" "$CARSH" fftpk$1/fft_filter.packed.bat.xml &&
		fft_same "FFT filter N=$1 $2-pass: packed equals unpacked" fft$1.packed.csv fft$1.csv
	"$FFTREF" filter $2 $3 pic$1.pgm >fft$1.want
	fft_same "FFT filter N=$1 $2-pass: packed equals the reference" fft$1.packed.csv fft$1.want
done
expect 0 "" "$CARSH" pack "$BATCHES/fft-filter.bat.xml" --explain N=128
for want in "one kernel, 39 runs" "re_in / re_out" "im_in / im_out" "stage_in / stage_out" \
	"1 copy run before in-place steps" \
	"scenario: 0 1 1 1 1 1 1 1 2 0 1 1 1 1 1 1 1 2 3 4 2 0 5 5 5 5 5 5 5 2 0 5 5 5 5 5 5 5 6"; do
	grep -qF -- "$want" "$OUT" && pass "FFT --explain: $want" ||
		fail "FFT --explain lacks '$want': $(head -40 "$OUT")"
done
# One job per pass (<Swap> executables inside the flow) packs to the same image.
expect 0 "" "$CARSH" pack "$BATCHES/fft-filter-swap.bat.xml" -o fftswap N=64 FILTER=low CUT=8 \
	IMAGE=pic64.pgm OUT=fftswap.csv &&
	expect 0 "" "$CARSH" fftswap/fft_filter_swap.packed.bat.xml &&
	fft_same "fft-filter-swap.bat.xml packed equals the unpacked filter" fftswap.csv fft64.csv

# Refusals say where and why.
expect 1 "bad_dump.bat.xml:8: <Virtbuf op=\"dump\">: virtbuf dump between the first and the last Exec" \
	"$CARSH" pack "$P/bad_dump.bat.xml" -o bad
expect 1 "work size 64 (local 8) differs from 64 of" "$CARSH" pack "$P/bad_group.bat.xml" -o bad
grep -qF "takes the Local argument 'tmp'" "$ERR" && pass "the refusal names the Local argument" ||
	fail "bad_group: $(cat "$ERR")"
expect 1 "a command that sets variables between the first and the last Exec" \
	"$CARSH" pack "$P/bad_set.bat.xml" -o bad
expect 1 "no <Exec>" "$CARSH" pack "$P/bad_noexec.bat.xml" -o bad
[ ! -e bad ] && pass "a refused pack writes nothing" || fail "a refused pack wrote bad/"
expect 2 "give -o DIR or --explain" "$CARSH" pack "$P/chain.bat.xml"
expect 2 "expected NAME=VALUE" "$CARSH" pack "$P/chain.bat.xml" -o x extra
expect 1 "pack takes a batch" "$CARSH" pack "$P/affine.fm.xml" -o x

finish
