#!/bin/sh
# <Swap> end to end (DESIGN §3.3; 004 §5.2 and §5.3): the kernel runs S+1 times on the
# device; the three methods (swap, copy-device, copy-host) give byte-identical output files
# for odd and even S, with one pair and with several, an InOut on either side of a pair,
# S = 0, and sinks that are files, virtual buffers and standard output. Results against
# the independent C reference tests/tools/swapref.c: the IIR filter, Jacobi and LU of
# 004 §5.2.2 in float and double, the scenario index of 004 §5.3 (Figure 46), and a
# two-pair ping-pong. The thread executor (-T), where this carsh has it, gives the same
# files and buffers. Also: pairs of different sizes are refused, and `time` and
# `set stats=on` report the launches and the swap time.
#
# Tolerances: float results against the float reference within 1e-5 relative to
# max(1, |want|), double within 1e-12 (measured on PoCL: at most 1.2e-7 and 2.3e-16; the
# kernels may contract a*b+c into fma, the reference does not; the Jacobi residual, which
# cancels, 1.4e-6 and 7.8e-15, see there); integer streams exactly.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

SWAPREF="$TOP_BUILDDIR/tests/tools/swapref"
EX="$TOP_SRCDIR/examples/swap"
METHODS="swap copy-device copy-host"

tol_of() { # PREC
	[ "$1" = float ] && echo 1e-5 || echo 1e-12
}

# close PREC GOT WANT TOL LABEL: numeric comparison in the precision of the result (a float
# is written as the shortest text that reads back as that float, which a double may not).
close() {
	if [ "$1" = float ]; then
		shift
		close_to "$@"
	else
		shift
		close_to_double "$@"
	fi
}

# exe TEMPLATE TAG METHOD COUNT: the executable TAG-METHOD.exe.xml from TEMPLATE, where
# @METHOD@, @COUNT@ and @OUT@ (the output file prefix TAG-METHOD) are filled in.
exe() {
	sed -e "s|@METHOD@|$3|g" -e "s|@COUNT@|$4|g" -e "s|@OUT@|$2-$3|g" "$1" >"$2-$3.exe.xml"
}

# run_methods TEMPLATE TAG COUNT: run the executable with each method.
run_methods() {
	for m in $METHODS; do
		exe "$1" "$2" "$m" "$3"
		expect 0 "" "$CARSH" "$2-$m.exe.xml"
	done
}

# identical TAG NAME...: TAG-METHOD.NAME.csv byte-identical for the three methods.
identical() {
	tag="$1"
	shift
	for f in "$@"; do
		for m in copy-device copy-host; do
			same_file "$tag-$m.$f.csv" "$tag-swap.$f.csv" "$tag: $f by $m equals swap"
		done
	done
}

# equals_int FILE VALUE LABEL: a 1-element integer stream.
equals_int() {
	if [ "$(tr -d ' \n' <"$1")" = "$2" ]; then
		pass "$3 ($2)"
	else
		fail "$3: $1 holds '$(cat "$1")', expected $2"
	fi
}

# ---- IIR filter (004 §5.2.2): one pair, y/y_next ----
"$SWAPREF" iir-gen 64 7 x.csv a.csv b.csv
for prec in float double; do
	tol=$(tol_of $prec)
	cat >iir-$prec.tmpl <<EOF
<CarshExe>
  <FlowModel file="$TOP_SRCDIR/flowmodels/iir_$prec.xml"/>
  <Param name="N" value="64"/>
  <Input  name="x"><DataFile>x.csv</DataFile></Input>
  <Input  name="a"><DataFile>a.csv</DataFile></Input>
  <Input  name="b"><DataFile>b.csv</DataFile></Input>
  <Input  name="y"><Fill value="0"/></Input>
  <Output name="y_next"><DataFile>@OUT@.y.csv</DataFile></Output>
  <Swap count="@COUNT@" method="@METHOD@"><SwapPair input="y" output="y_next"/></Swap>
</CarshExe>
EOF
	"$SWAPREF" iir $prec x.csv a.csv b.csv >iir-$prec.want
	# S = N-1 (odd): N runs filter N samples exactly; S = N (even): one more run changes
	# no bit.
	for s in 63 64; do
		run_methods iir-$prec.tmpl iir-$prec-$s $s
		identical iir-$prec-$s y
		close $prec iir-$prec-$s-swap.y.csv iir-$prec.want "$tol" \
			"IIR $prec S=$s equals the sequential filter"
	done
	same_file iir-$prec-64-swap.y.csv iir-$prec-63-swap.y.csv \
		"IIR $prec: S=64 (even) gives the bits of S=63 (odd)"
	# S = 4: five runs are exact for the first five samples only; the rest is what five
	# runs of the kernel's iteration give.
	run_methods iir-$prec.tmpl iir-$prec-4 4
	identical iir-$prec-4 y
	"$SWAPREF" iir $prec x.csv a.csv b.csv 5 >iir-$prec-5runs.want
	close $prec iir-$prec-4-swap.y.csv iir-$prec-5runs.want "$tol" \
		"IIR $prec S=4 equals five runs of the iteration"
	if "$REF" cmpd iir-$prec-4-swap.y.csv iir-$prec.want 1e-3 >/dev/null 2>&1; then
		fail "IIR $prec S=4: already the full filter; the test data do not need N runs"
	else
		pass "IIR $prec S=4 is not yet the filter (the runs matter)"
	fi
done

# The impulse response of y_n = x_n + y_{n-1}/2 is 2^-n, exact in binary floating point:
# a check of the kernel that does not go through swapref. After ten runs, only the first
# ten samples are there.
awk 'BEGIN { for (i = 0; i < 64; i++) print (i == 0) }' >impulse.csv
awk 'BEGIN { for (i = 0; i < 16; i++) print (i == 0) }' >unit.csv
awk 'BEGIN { for (i = 0; i < 16; i++) print (i == 0) ? -0.5 : 0 }' >half.csv
awk 'BEGIN { v = 1; for (i = 0; i < 64; i++) { printf "%.17g\n", v; v /= 2 } }' >pow.want
awk 'BEGIN { v = 1; for (i = 0; i < 64; i++) { printf "%.17g\n", i < 10 ? v : 0; v /= 2 } }' \
	>pow10.want
sed -e 's|>x.csv<|>impulse.csv<|' -e 's|>a.csv<|>unit.csv<|' -e 's|>b.csv<|>half.csv<|' \
	iir-float.tmpl >impulse.tmpl
exe impulse.tmpl impulse-63 swap 63
expect 0 "" "$CARSH" impulse-63-swap.exe.xml
close_to impulse-63-swap.y.csv pow.want 0 "IIR impulse response: y_n = 2^-n exactly"
exe impulse.tmpl impulse-9 copy-host 9
expect 0 "" "$CARSH" impulse-9-copy-host.exe.xml
close_to impulse-9-copy-host.y.csv pow10.want 0 "IIR impulse, ten runs: ten samples"

# ---- Jacobi (004 §5.2.2): two pairs, x/x_next and the iteration count k/k_next ----
"$SWAPREF" jacobi-gen 48 11 A.csv jb.csv xtrue.csv
for prec in float double; do
	tol=$(tol_of $prec)
	cat >jacobi-$prec.tmpl <<EOF
<CarshExe>
  <FlowModel file="$TOP_SRCDIR/flowmodels/jacobi_$prec.xml"/>
  <Param name="N" value="48"/>
  <Input  name="A"><DataFile>A.csv</DataFile></Input>
  <Input  name="b"><DataFile>jb.csv</DataFile></Input>
  <Input  name="x"><Fill value="0"/></Input>
  <Input  name="k"><Fill value="0"/></Input>
  <Output name="x_next"><DataFile>@OUT@.x.csv</DataFile></Output>
  <Output name="k_next"><DataFile>@OUT@.k.csv</DataFile></Output>
  <Output name="r"><DataFile>@OUT@.r.csv</DataFile></Output>
  <Swap count="@COUNT@" method="@METHOD@">
    <SwapPair input="x" output="x_next"/>
    <SwapPair input="k" output="k_next"/>
  </Swap>
</CarshExe>
EOF
	for s in 29 30; do
		tag=jacobi-$prec-$s
		run_methods jacobi-$prec.tmpl $tag $s
		identical $tag x k r
		equals_int $tag-swap.k.csv $((s + 1)) "Jacobi $prec S=$s: k counts S+1 runs"
		"$SWAPREF" jacobi $prec $((s + 1)) A.csv jb.csv $tag.x.want $tag.r.want
		close $prec $tag-swap.x.csv $tag.x.want "$tol" \
			"Jacobi $prec S=$s: x equals $((s + 1)) reference iterations"
		# r = b - A x cancels to a few ulp of |b| (up to ~100 here): an absolute error of
		# 1.4e-6 in float was measured, so float gets 1e-4.
		rtol=$([ $prec = float ] && echo 1e-4 || echo "$tol")
		close $prec $tag-swap.r.csv $tag.r.want "$rtol" \
			"Jacobi $prec S=$s: the residual of the last iterate read"
		close_to_double $tag-swap.x.csv xtrue.csv 1e-5 \
			"Jacobi $prec S=$s: converged to the true solution"
	done
done

# ---- LU (004 §5.2.2, Figure 41): the matrix and the step index as pairs ----
"$SWAPREF" lu-gen 24 13 luA.csv
for prec in float double; do
	tol=$(tol_of $prec)
	cat >lu-$prec.tmpl <<EOF
<CarshExe>
  <FlowModel file="$TOP_SRCDIR/flowmodels/lu_$prec.xml"/>
  <Param name="N" value="24"/>
  <Input  name="a"><DataFile>luA.csv</DataFile></Input>
  <Input  name="step"><Fill value="0"/></Input>
  <Output name="a_next"><DataFile columns="N">@OUT@.lu.csv</DataFile></Output>
  <Output name="step_next"><DataFile>@OUT@.step.csv</DataFile></Output>
  <Swap count="@COUNT@" method="@METHOD@">
    <SwapPair input="a" output="a_next"/>
    <SwapPair input="step" output="step_next"/>
  </Swap>
</CarshExe>
EOF
	"$SWAPREF" lu $prec 24 luA.csv >lu-$prec.want
	# S = n-2 (even) runs steps 0..n-2; S = n-1 (odd) adds step n-1, which changes nothing.
	for s in 22 23; do
		tag=lu-$prec-$s
		run_methods lu-$prec.tmpl $tag $s
		identical $tag lu step
		equals_int $tag-swap.step.csv $((s + 1)) "LU $prec S=$s: the step index advanced"
		close $prec $tag-swap.lu.csv lu-$prec.want "$tol" "LU $prec S=$s equals the reference"
		expect 0 "" "$SWAPREF" lucheck 24 luA.csv $tag-swap.lu.csv "$tol"
	done
	same_file lu-$prec-23-swap.lu.csv lu-$prec-22-swap.lu.csv "LU $prec: S=n-1 gives the bits of S=n-2"
	# Six steps: the active sub-matrix is 18 x 18; rows and columns before it are final.
	run_methods lu-$prec.tmpl lu-$prec-5 5
	identical lu-$prec-5 lu step
	"$SWAPREF" lu $prec 24 luA.csv 6 >lu-$prec-6steps.want
	close $prec lu-$prec-5-swap.lu.csv lu-$prec-6steps.want "$tol" \
		"LU $prec S=5 equals six elimination steps"
done

# ---- scenario-based execution (004 §5.3, Figures 45-46): four pairs ----
cat >scenario.tmpl <<EOF
<CarshExe>
  <FlowModel file="$TOP_SRCDIR/flowmodels/scenario_abc.xml"/>
  <Param name="N" value="16"/>
  <Param name="M" value="8"/>
  <Input  name="scenario"><DataFile>$EX/data/scenario.csv</DataFile></Input>
  <Input  name="index"><Fill value="@START@"/></Input>
  <Input  name="a"><DataFile>$EX/data/scen_a.csv</DataFile></Input>
  <Input  name="b"><DataFile>$EX/data/scen_b.csv</DataFile></Input>
  <Input  name="c"><DataFile>$EX/data/scen_c.csv</DataFile></Input>
  <Input  name="p"><DataFile>$EX/data/scen_p.csv</DataFile></Input>
  <Output name="d"><DataFile>@OUT@.d.csv</DataFile></Output>
  <Output name="e"><DataFile>@OUT@.e.csv</DataFile></Output>
  <Output name="f"><DataFile>@OUT@.f.csv</DataFile></Output>
  <Output name="Aq"><DataFile>@OUT@.Aq.csv</DataFile></Output>
  <Output name="Bq"><DataFile>@OUT@.Bq.csv</DataFile></Output>
  <Output name="Cq"><DataFile>@OUT@.Cq.csv</DataFile></Output>
  <Output name="index_next"><DataFile>@OUT@.index.csv</DataFile></Output>
  <Swap count="@COUNT@" method="@METHOD@">
    <SwapPair input="a" output="d"/>
    <SwapPair input="b" output="e"/>
    <SwapPair input="c" output="f"/>
    <SwapPair input="index" output="index_next"/>
  </Swap>
</CarshExe>
EOF
# The whole scenario A B B C A C B A (S = M-1 = 7, odd), and entries 1..5 (B B C A C: S = 4,
# even, every program at least once, so Aq, Bq, Cq are all written).
for run in "0 7" "1 4"; do
	set -- $run
	tag=scenario-$1-$2
	sed "s|@START@|$1|" scenario.tmpl >$tag.tmpl
	run_methods $tag.tmpl $tag $2
	identical $tag d e f Aq Bq Cq index
	mkdir -p $tag.want
	"$SWAPREF" scenario "$EX/data/scenario.csv" $1 $(($2 + 1)) "$EX/data/scen_a.csv" \
		"$EX/data/scen_b.csv" "$EX/data/scen_c.csv" "$EX/data/scen_p.csv" $tag.want
	for f in d e f Aq Bq Cq index; do
		close_to_double $tag-swap.$f.csv $tag.want/$f.csv 0 \
			"scenario from entry $1, S=$2: $f equals the reference"
	done
done

# ---- two pairs, an InOut on each side; S = 0 (one run, no swap) to 5 ----
printf '%s\n' 1 2 3 4 5 6 7 4000000000 >pa.csv
printf '%s\n' 10 20 30 40 50 60 70 300000000 >pb.csv
printf '%s\n' 9 9 9 9 9 9 9 9 >junk.csv
cat >pingpong.tmpl <<EOF
<CarshExe>
  <FlowModel file="$TOP_SRCDIR/tests/data/swap/pingpong.xml"/>
  <InOut  name="a"><DataFile>@OUT@.a.csv</DataFile></InOut>
  <Input  name="b"><DataFile>pb.csv</DataFile></Input>
  <Output name="a2"><DataFile>@OUT@.a2.csv</DataFile></Output>
  <InOut  name="b2"><DataFile>@OUT@.b2.csv</DataFile></InOut>
  <Swap count="@COUNT@" method="@METHOD@">
    <SwapPair input="a" output="a2"/>
    <SwapPair input="b" output="b2"/>
  </Swap>
</CarshExe>
EOF
for s in 0 1 2 5; do
	tag=pingpong-$s
	for m in $METHODS; do
		cp pa.csv $tag-$m.a.csv
		cp junk.csv $tag-$m.b2.csv
	done
	run_methods pingpong.tmpl $tag $s
	identical $tag a a2 b2
	mkdir -p $tag.want
	"$SWAPREF" pingpong $((s + 1)) pa.csv pb.csv $tag.want
	for f in a a2 b2; do
		close_to_double $tag-swap.$f.csv $tag.want/$f.csv 0 "ping-pong S=$s: $f equals the reference"
	done
done

# The same with virtual buffers as sources and sinks, for both parities of S; the Input b
# of a pair is never written back. Also with the thread executor (-T), where it exists.
sed -e 's|<DataFile>@OUT@.a.csv</DataFile>|<Buffer>a</Buffer>|' -e 's|<DataFile>pb.csv</DataFile>|<Buffer>b</Buffer>|' \
	-e 's|<DataFile>@OUT@.a2.csv</DataFile>|<Buffer>a2</Buffer>|' \
	-e 's|<DataFile>@OUT@.b2.csv</DataFile>|<Buffer>b2</Buffer>|' pingpong.tmpl >vbuf.tmpl
executors="process"
"$CARSH" -T -c "echo" >/dev/null 2>&1 && executors="process thread"
for x in $executors; do
	flag=$([ $x = thread ] && echo -T || true)
	for s in 1 2; do
		for m in $METHODS; do
			exe vbuf.tmpl vbuf-$s $m $s
			v=vbuf-$x-$s-$m
			expect 0 "" "$CARSH" $flag -c "virtbuf create a uint 8; virtbuf create b uint 8
virtbuf create a2 uint 8; virtbuf create b2 uint 8
virtbuf fill a pa.csv; virtbuf fill b pb.csv; virtbuf fill b2 junk.csv
run vbuf-$s-$m.exe.xml
virtbuf dump a $v.a.csv; virtbuf dump a2 $v.a2.csv; virtbuf dump b2 $v.b2.csv; virtbuf dump b $v.b.csv"
			for f in a a2 b2; do
				same_file $v.$f.csv pingpong-$s-swap.$f.csv \
					"virtual buffers, $x executor, S=$s, $m: $f as with files"
			done
			same_file $v.b.csv pb.csv "virtual buffers, $x executor, S=$s, $m: Input b unchanged"
		done
	done
done

# The thread executor (one runtime, buffers kept on the device) gives the same files, for
# a sample of the cases above: both parities, one to four pairs, InOut on both sides.
if [ "$executors" = "process thread" ]; then
	for tag in iir-double-63 iir-double-64 lu-float-22 lu-float-23 scenario-0-7 pingpong-0 \
		pingpong-5; do
		for m in $METHODS; do
			sed "s|>$tag-$m\.|>thread-$tag-$m.|g" $tag-$m.exe.xml >thread-$tag-$m.exe.xml
			[ -e $tag-$m.a.csv ] && cp pa.csv thread-$tag-$m.a.csv && cp junk.csv thread-$tag-$m.b2.csv
			expect 0 "" "$CARSH" -T thread-$tag-$m.exe.xml
			for f in $tag-$m.*.csv; do
				same_file thread-$f $f "thread executor: $f"
			done
		done
	done
fi

# ---- refusals ----
sed -e 's|<SwapPair input="y" output="y_next"/>|<SwapPair input="a" output="y_next"/>|' \
	iir-float.tmpl >size.tmpl
exe size.tmpl size swap 3
expect 1 "<SwapPair>: 'a' has 64 bytes but 'y_next' has 256; the streams of a pair must have the same size" \
	"$CARSH" size-swap.exe.xml
[ ! -e size-swap.y.csv ] && pass "a refused pair writes no output" || fail "size-swap.y.csv was written"
sed -e 's|<SwapPair input="x" output="x_next"/>|<SwapPair input="x" output="x_next"/><SwapPair input="b" output="x_next"/>|' \
	jacobi-float.tmpl >twice.tmpl
exe twice.tmpl twice swap 3
expect 1 "<SwapPair>: a stream is in two swap pairs" "$CARSH" twice-swap.exe.xml
exe iir-float.tmpl badmethod copy 3
expect 1 "unknown swap method 'copy' (swap, copy-device or copy-host)" "$CARSH" badmethod-copy.exe.xml

# ---- statistics: the launches and the swap time ----
for m in $METHODS; do
	expect 0 "" "$CARSH" -c "time run iir-float-63-$m.exe.xml" &&
		if grep -q "kernel [0-9.]* ms (64 launches)  swap [0-9.]* ms" "$ERR"; then
			pass "time: $m shows 64 launches and the swap time"
		else
			fail "time run with $m: no '64 launches ... swap' line: $(cat "$ERR")"
		fi
done
# The copies are device commands with a duration; 63 of them cannot take 0 ms.
for m in copy-device copy-host; do
	expect 0 "" "$CARSH" -c "set stats=on; run lu-double-23-$m.exe.xml"
	swap_ms=$(sed -n 's/.*(24 launches)  swap \([0-9.]*\) ms.*/\1/p' "$ERR")
	if [ -n "$swap_ms" ] && awk -v t="$swap_ms" 'BEGIN { exit !(t > 0) }'; then
		pass "set stats=on: $m reports 24 launches and swap $swap_ms ms"
	else
		fail "set stats=on with $m: $(cat "$ERR")"
	fi
done

# ---- the examples as shipped ----
D="$EX/data"
for prec in float double; do
	tol=$(tol_of $prec)
	expect 0 "" "$CARSH" "$EX/iir_$prec.exe.xml" && cp "$OUT" ex-iir-$prec.csv &&
		"$SWAPREF" iir $prec "$D/iir_x.csv" "$D/iir_a.csv" "$D/iir_b.csv" >ex-iir.want &&
		close $prec ex-iir-$prec.csv ex-iir.want "$tol" "examples/swap/iir_$prec.exe.xml"
	expect 0 "" "$CARSH" "$EX/jacobi_$prec.exe.xml" && cp "$OUT" ex-jacobi-$prec.csv &&
		"$SWAPREF" jacobi $prec 40 "$D/jacobi_A.csv" "$D/jacobi_b.csv" ex-jacobi.want ex-r.want &&
		close $prec ex-jacobi-$prec.csv ex-jacobi.want "$tol" \
			"examples/swap/jacobi_$prec.exe.xml" &&
		close_to_double ex-jacobi-$prec.csv "$D/jacobi_x_true.csv" 1e-5 \
			"examples/swap/jacobi_$prec.exe.xml reaches the true solution"
	expect 0 "" "$CARSH" "$EX/lu_$prec.exe.xml" && cp "$OUT" ex-lu-$prec.csv &&
		"$SWAPREF" lu $prec 32 "$D/lu_A.csv" >ex-lu.want &&
		close $prec ex-lu-$prec.csv ex-lu.want "$tol" "examples/swap/lu_$prec.exe.xml"
done
expect 0 "" "$CARSH" "$EX/scenario.exe.xml" &&
	close_to_double "$OUT" scenario-0-7.want/d.csv 0 "examples/swap/scenario.exe.xml"

finish
