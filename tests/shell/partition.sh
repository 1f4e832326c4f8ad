#!/bin/sh
# partition (003; docs/partition.md): every scheduler gives the C reference's results on the
# four benchmarks, and its trace covers each step's space exactly once. This machine has a
# CPU device only: `--gpu cpu` lets one core stand in for the GPU (one core, nEU = 1), so
# LogFit, Static, Concord and HDSS all run with a "GPU" and a CPU core; `--gpu none` runs the
# cores alone. Floats are compared with a relative tolerance of 1e-5 (the kernels and the
# reference do the same float operations in the same order, so they usually agree exactly);
# Mandelbrot's counts exactly. 2-D and 3-D spaces are split by rows (planes): the Jacobi
# benchmark against its C reference; the FIR filter, with a local size and a 3-D kernel
# against 'run' on the whole space.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
PREF="$TOP_BUILDDIR/tests/tools/partref"
EX="$TOP_SRCDIR/examples/partition"

# The examples' executables, pointed at this directory's data.
for f in nbody spmv neigh; do
	sed "s|../../flowmodels|$FM|" "$EX/$f.exe.xml" >"$f.exe.xml"
done
mkdir -p data/nbody data/spmv data/neigh data/jacobi
sed "s|../../flowmodels|$FM|" "$EX/jacobi.exe.xml" >jacobi.exe.xml

NB=384
"$PREF" nbody-gen $NB 7 data/nbody
mkdir -p ref/nbody && cp data/nbody/pos.csv data/nbody/vel.csv ref/nbody/
"$PREF" nbody $NB 4 0.001 0.0001 ref/nbody
SN=3000
NNZ=$("$PREF" spmv-gen $SN 8 3 data/spmv)
mkdir -p ref/spmv && cp data/spmv/*.csv ref/spmv/
"$PREF" spmv $SN 4 ref/spmv
MW=96 MH=64
MANDEL="W=$MW H=$MH X0=-2.0 Y0=-1.0 STEP=0.03125 MAXIT=300"
"$PREF" mandel $MW $MH -2.0 -1.0 0.03125 300 >ref/mandel.csv
NN=2000 NG=5
RC2=$("$PREF" neigh-gen $NN $NG 5 data/neigh)
mkdir -p ref/neigh && cp data/neigh/*.csv ref/neigh/
"$PREF" neigh $NN $NG "$RC2" 0.0001 ref/neigh
JW=48 JH=40 # rows of 48: a granule of 4 rows (local size 16 x 4)
"$PREF" jacobi2d-gen $JW $JH 9 data/jacobi
mkdir -p ref/jacobi && cp data/jacobi/*.csv ref/jacobi/
"$PREF" jacobi2d $JW $JH 4 0.001 ref/jacobi

# check NAME ITEMS STEPS OPTIONS...: run, compare with the reference, check the trace.
check() {
	local name="$1" items="$2" steps="$3"
	shift 3
	case $name in
	nbody) set -- "$@" nbody.exe.xml N=$NB ;;
	spmv) set -- "$@" spmv.exe.xml N=$SN NNZ="$NNZ" ;;
	mandel) set -- "$@" "$FM/part_mandel.xml" count=data/mandel.csv $MANDEL ;;
	neigh) set -- "$@" neigh.exe.xml N=$NN GX=$NG GY=$NG GZ=$NG RC2="$RC2" ;;
	jacobi) set -- "$@" jacobi.exe.xml W=$JW H=$JH H2=0.001 ;;
	esac
	rm -f trace.csv
	expect 0 "" "$CARSH" partition --no-progress --trace trace.csv "$@" || return
	case $name in
	nbody)
		close_to data/nbody/pos_out.csv ref/nbody/pos_ref.csv 1e-5 "$name $*: positions"
		close_to data/nbody/vel_out.csv ref/nbody/vel_ref.csv 1e-5 "$name $*: velocities"
		;;
	spmv) close_to data/spmv/y_out.csv ref/spmv/y_ref.csv 1e-5 "$name $*: y = A^4 x" ;;
	mandel) close_to data/mandel.csv ref/mandel.csv 0 "$name $*: counts" ;;
	neigh) close_to data/neigh/force_out.csv ref/neigh/force_ref.csv 1e-5 "$name $*: forces" ;;
	jacobi) close_to data/jacobi/u_out.csv ref/jacobi/u_ref.csv 0 "$name $*: u after 4 steps" ;;
	esac
	if "$PREF" trace-check trace.csv "$items" "$steps" >tc.out 2>&1; then
		pass "$name $*: trace covers $steps x $items items once ($(cat tc.out))"
	else
		fail "$name $*: trace: $(cat tc.out)"
	fi
}

for b in "nbody $NB 4" "spmv $SN 4" "mandel $((MW * MH)) 1" "neigh $NN 1" "jacobi $JH 4"; do
	# shellcheck disable=SC2086
	set -- $b
	for s in logfit concord hdss gpu cpu marrow; do
		check "$1" "$2" "$3" --gpu cpu --threads 2 --sched $s
	done
	check "$1" "$2" "$3" --gpu cpu --sched static
	check "$1" "$2" "$3" --gpu cpu --sched static --gpu-share 40
	check "$1" "$2" "$3" --gpu none --sched logfit
	check "$1" "$2" "$3" --gpu none --threads 1 --sched cpu
done

# A local size: chunks are multiples of its rows (2 here), launched with it.
sed -e 's|<WorkSize global="W, H"/>|<WorkSize global="W, H" local="8, 2"/>|' \
	-e "s|\.\./kernels|$TOP_SRCDIR/kernels|" "$FM/part_jacobi2d.xml" >jlocal.xml
sed "s|$FM/part_jacobi2d.xml|jlocal.xml|" jacobi.exe.xml >jlocal.exe.xml
for s in logfit hdss; do
	expect 0 "" "$CARSH" partition --no-progress --gpu cpu --threads 2 --sched $s --json \
		jlocal.exe.xml W=$JW H=$JH H2=0.001 || continue
	close_to data/jacobi/u_out.csv ref/jacobi/u_ref.csv 0 "jacobi, local size 8 x 2, --sched $s"
	grep -qF '"granule":2,' "$OUT" && pass "the local size's rows are the granule" ||
		fail "granule with local size 8 x 2: $(cat "$OUT")"
done

# Rows of 2048 work-items: a core launches a chunk in pieces of 31 rows (under 65536
# work-items each).
mkdir -p data/wide ref/wide
"$PREF" jacobi2d-gen 2048 64 5 data/wide && cp data/wide/*.csv ref/wide/
"$PREF" jacobi2d 2048 64 4 0.001 ref/wide
sed 's|data/jacobi|data/wide|' jacobi.exe.xml >wide.exe.xml
expect 0 "" "$CARSH" partition --no-progress --gpu none --threads 1 --sched cpu \
	wide.exe.xml W=2048 H=64 H2=0.001 &&
	close_to data/wide/u_out.csv ref/wide/u_ref.csv 0 "jacobi 2048 x 64: chunks in pieces"

# The 3x3 FIR filter (2-D, an Input read around each pixel, so a copy stream) and a 3-D
# kernel split by planes (8 x 4 x 10, a granule of 2 planes; a copy stream read on the
# plane below, block streams of unit 2)
# give what 'run' gives on the whole space.
awk 'BEGIN { for (i = 0; i < 22 * 20; i++) printf "%.9g\n", (i * 37 % 101) / 7.0 }' >fx.csv
printf '%s\n' 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 >fh.csv
expect 0 "" "$CARSH" run "$FM/fir3x3.xml" x=fx.csv h=fh.csv y=fir_ref.csv M=22 N=20
cat >k3.xml <<'EOF'
<FlowModel>
  <Program><Source><![CDATA[
__kernel void k3(__global const int *a, __global const int *b, __global int *c,
                 const int nx, const int ny)
{
	int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
	int i = (z * ny + y) * nx + x;

	c[2 * i] = 3 * b[2 * i] + x + 10 * y + 100 * z;
	c[2 * i + 1] = b[2 * i + 1] - (z > 0 ? a[i - nx * ny] : 0);
}]]></Source><Kernel name="k3"/></Program>
  <WorkSize global="8, 4, 10"/>
  <Arguments>
    <Input    name="a"  type="int" count="320"/>
    <Input    name="b"  type="int" count="640" partition="block" unit="2"/>
    <Output   name="c"  type="int" count="640" partition="block" unit="2"/>
    <Constant name="nx" type="int" value="8"/>
    <Constant name="ny" type="int" value="4"/>
  </Arguments>
</FlowModel>
EOF
seq 0 319 | awk '{ print $1 * 7 % 31 }' >ka.csv
seq 0 639 | awk '{ print $1 * 13 % 97 }' >kb.csv
expect 0 "" "$CARSH" run k3.xml a=ka.csv b=kb.csv c=k3_ref.csv
for s in logfit static concord hdss cpu gpu; do
	expect 0 "" "$CARSH" partition --no-progress --gpu cpu --threads 2 --sched $s \
		--trace trace.csv "$FM/fir3x3.xml" x=fx.csv h=fh.csv y=fir.csv M=22 N=20 &&
		same_file fir.csv fir_ref.csv "fir3x3 (2-D) --sched $s: as 'run' gives" &&
		"$PREF" trace-check trace.csv 20 1 >/dev/null &&
		pass "fir3x3 --sched $s: the trace covers its 20 rows once"
	expect 0 "" "$CARSH" partition --no-progress --gpu cpu --threads 2 --sched $s \
		--trace trace.csv k3.xml a=ka.csv b=kb.csv c=k3.csv &&
		same_file k3.csv k3_ref.csv "3-D --sched $s: as 'run' gives" &&
		"$PREF" trace-check trace.csv 10 1 >/dev/null &&
		pass "3-D --sched $s: the trace covers its 10 planes once"
done

# --steps overrides the executable's swap count: two N-body steps.
cp data/nbody/pos.csv data/nbody/vel.csv ref/nbody/ && "$PREF" nbody $NB 2 0.001 0.0001 ref/nbody
expect 0 "" "$CARSH" partition --no-progress --gpu cpu --steps 2 nbody.exe.xml N=$NB
close_to data/nbody/pos_out.csv ref/nbody/pos_ref.csv 1e-5 "--steps 2 runs two time steps"

# The summary: each device's share.
expect 0 "" "$CARSH" partition --no-progress --gpu cpu --sched logfit spmv.exe.xml N=$SN NNZ="$NNZ"
grep -q '^time ' "$OUT" && grep -q '^gpu ' "$OUT" && grep -q '^cpu0 ' "$OUT" &&
	pass "summary lists the time and each device" || fail "summary: $(cat "$OUT")"
awk '$1 == "gpu" || $1 ~ /^cpu/ { s += $4 } END { exit !(s > 99.8 && s < 100.2) }' "$OUT" &&
	pass "the devices' shares add up to 100 %" || fail "shares: $(cat "$OUT")"
# Earlier runs of this executable taught the knowledge base (a run of the thread executor's
# test too): forget them, or the run below starts from them instead of sampling.
expect 0 "" "$CARSH" partition --profile forget spmv.exe.xml
# With the GPU alone (one thread) it gets its samples (8, 16, 32, 64 items: nEU = 1 rounded
# up to the granule 8), then chunks from the fit. Fewer than four when the samples cost more
# than 2 % of the step's predicted time (docs/partition.md), as on this small space: two at
# least, then only fitted chunks.
expect 0 "" "$CARSH" partition --no-progress --gpu cpu --threads 1 --trace t1.csv \
	spmv.exe.xml N=$SN NNZ="$NNZ"
grep -q '^fit  *throughput = ' "$OUT" && pass "summary shows LogFit's fit" ||
	fail "no fit in the summary: $(cat "$OUT")"
case "$(awk -F, '$8 == "sample" { printf "%s ", $4 }' t1.csv)" in
"8 16 " | "8 16 32 " | "8 16 32 64 ") ok=1 ;;
*) ok= ;;
esac
[ -n "$ok" ] && awk -F, 'NR > 1 && $8 == "sample" && s { exit 1 } $8 == "fit" { s = 1 }
	NR > 1 && $8 != "fit" && $8 != "sample" { exit 1 }' t1.csv &&
	pass "the trace shows the samples nEU·2^(k-1), then fitted chunks" ||
	fail "LogFit's first chunks: $(head -8 t1.csv)"

# --json: one object with the fields the benchmark reads.
# shellcheck disable=SC2086
expect 0 "" "$CARSH" partition --json --gpu cpu --sched static --gpu-share 50 \
	"$FM/part_mandel.xml" count=discard $MANDEL
for k in '"sched":"static"' '"time_ms":' '"gpu_j":null' '"devices":[' '"gpu_share":0.500' \
	'"threads":2'; do
	grep -qF "$k" "$OUT" && pass "--json has $k" || fail "--json lacks $k: $(cat "$OUT")"
done
[ "$(wc -l <"$OUT")" -eq 1 ] && pass "--json is one line" || fail "--json: $(cat "$OUT")"
grep -qF '"core_cost":null' "$OUT" && pass "Static learns no fixed cost" ||
	fail "Static's core_cost: $(cat "$OUT")"

# LogFit's cores measure their fixed cost a chunk (profiling events) and report it with the
# smallest chunk it allows, 3 x fixed / (time an item besides it), both non-negative.
# shellcheck disable=SC2086
expect 0 "" "$CARSH" partition --json --gpu none --sched logfit "$FM/part_mandel.xml" \
	count=discard $MANDEL
if sed -n 's/.*"core_cost":{"fixed_ms":\([0-9.]*\),"min_chunk":\([0-9]*\)}.*/\1 \2/p' \
	"$OUT" | awk 'NF == 2 && $1 >= 0 && $2 >= 0 { ok = 1 } END { exit !ok }'; then
	pass "LogFit reports the cores' fixed cost: $(grep -o '"core_cost":{[^}]*}' "$OUT")"
else
	fail "LogFit's core_cost: $(cat "$OUT")"
fi
# shellcheck disable=SC2086
expect 0 "" "$CARSH" partition --gpu none --sched logfit "$FM/part_mandel.xml" count=discard \
	$MANDEL
grep -qE '^cores    fixed cost [0-9.]+ ms a chunk; no chunk below [0-9]+ items$' "$OUT" &&
	pass "the summary has the cores' fixed cost" || fail "summary: $(cat "$OUT")"

# Virtual buffers: the output goes to a buffer. The engine ran in a process of its own (a
# forked child under the process executor, a fresh carsh under -T), so OpenCL has not
# started in the shell and it may still change executor after.
cat >vb.csh <<EOF
virtbuf create cnt int $((MW * MH))
partition --no-progress --gpu cpu $FM/part_mandel.xml count=buffer:cnt $MANDEL
virtbuf dump cnt vb.csv
set exec=process
EOF
expect 0 "" "$CARSH" vb.csh
close_to vb.csv ref/mandel.csv 0 "partition writes a virtual buffer"

# The knowledge base (001 §3.2) in a cache of its own: logfit and marrow learn in it, a
# second run starts from it, --profile shows and forgets it.
KB="$T/kb"
mkdir -p "$KB/carsh"
kbrun() { XDG_CACHE_HOME="$KB" "$CARSH" "$@"; }
expect 0 "" kbrun partition --profile show
[ ! -s "$OUT" ] && pass "--profile show: an empty knowledge base" || fail "show: $(cat "$OUT")"
# shellcheck disable=SC2086
expect 0 "" kbrun partition --no-progress --gpu cpu --threads 2 --sched marrow --steps 6 \
	"$FM/part_mandel.xml" count=data/mandel.csv $MANDEL
close_to data/mandel.csv ref/mandel.csv 0 "marrow, 6 steps: counts"
expect 0 "" kbrun partition --no-progress --gpu cpu --threads 2 --sched logfit \
	spmv.exe.xml N=$SN NNZ="$NNZ"
# LogFit keeps a profile only when it timed a large chunk of the GPU's (sched_profile); on a
# loaded machine a run on so small a space can end before it did and learn nothing (seen
# once in a full suite): one more run then.
if ! kbrun partition --profile show | grep -q "part_spmv.xml"; then
	expect 0 "" kbrun partition --no-progress --gpu cpu --threads 2 --sched logfit \
		spmv.exe.xml N=$SN NNZ="$NNZ"
fi
expect 0 "" kbrun partition --profile show
grep -q "part_mandel.xml part_mandel .* $((MW * MH)) items: GPU " "$OUT" &&
	grep -q "part_spmv.xml .* $SN items: GPU " "$OUT" && [ "$(wc -l <"$OUT")" -eq 2 ] &&
	pass "--profile show lists what marrow and logfit learnt" || fail "show: $(cat "$OUT")"
head -1 "$KB/carsh/profiles.txt" | grep -qx "carsh-profiles 1" &&
	pass "the knowledge base file starts with its version" ||
	fail "kb file: $(head -3 "$KB/carsh/profiles.txt")"
# A second run starts from what the first learnt: logfit takes no samples. A profile primes
# LogFit only when both the GPU's and a core's throughput are in it: where the first run's
# core sat out (a slow build, under the sanitizers, took its chunks too late), the second
# run learns again, and that is what the check then says.
core_rate=$(grep "part_spmv.xml" "$OUT" | sed -n 's/.* core \([0-9.e+-]*\) items\/ms.*/\1/p')
rm -f trace.csv
expect 0 "" kbrun partition --no-progress --gpu cpu --threads 2 --sched logfit \
	--trace trace.csv spmv.exe.xml N=$SN NNZ="$NNZ"
close_to data/spmv/y_out.csv ref/spmv/y_ref.csv 1e-5 "logfit from the knowledge base: y"
if awk -v r="${core_rate:-0}" 'BEGIN { exit !(r > 0) }'; then
	! grep -q ',sample$' trace.csv && pass "a known profile: no samples" ||
		fail "samples in a primed run (core rate $core_rate): $(head -5 trace.csv)"
else
	grep -q ',sample$' trace.csv && pass "a profile without a core's rate primes nothing: LogFit samples" ||
		fail "a profile without a core's rate, yet no samples: $(head -5 trace.csv)"
fi
# shellcheck disable=SC2086
expect 0 "" kbrun partition --no-progress --gpu cpu --threads 2 --sched marrow --trace trace.csv \
	"$FM/part_mandel.xml" count=data/mandel.csv $MANDEL
close_to data/mandel.csv ref/mandel.csv 0 "marrow from the knowledge base: counts"
"$PREF" trace-check trace.csv $((MW * MH)) 1 >tc.out 2>&1 && grep -q ',balance$' trace.csv &&
	pass "marrow's trace covers the space once, its chunks 'balance'" ||
	fail "marrow trace: $(cat tc.out) $(head -3 trace.csv)"
expect 0 "" kbrun partition --profile forget spmv.exe.xml
grep -qx "forgot 1 entry" "$OUT" && pass "--profile forget EXE.xml forgets its flow-model's" ||
	fail "forget: $(cat "$OUT")"
expect 0 "" kbrun partition --profile show
[ "$(wc -l <"$OUT")" -eq 1 ] && grep -q part_mandel "$OUT" && pass "the other entry stays" ||
	fail "after forget: $(cat "$OUT")"
# The cores alone keep a cost map of the space (sched-map.c): an entry of its own, with 64
# regions, that --profile forget forgets too.
# shellcheck disable=SC2086
expect 0 "" kbrun partition --no-progress --gpu none --threads 2 --sched logfit --steps 2 \
	"$FM/part_mandel.xml" count=data/mandel.csv $MANDEL
close_to data/mandel.csv ref/mandel.csv 0 "logfit, the cores alone, 2 steps: counts"
expect 0 "" kbrun partition --profile show
grep -q "part_mandel .*\[2 x .*\]  $((MW * MH)) items: a cost map of 64 regions: a core [0-9.e-]*-[0-9.e-]* ms an item\$" "$OUT" &&
	[ "$(awk -F '\t' '$1 == "partition-map" && $4 ~ /^2 x / { print NF }' "$KB/carsh/profiles.txt")" = 69 ] &&
	pass "the cores alone: a cost map of 64 regions in the knowledge base" ||
	fail "cost map: $(cat "$OUT") $(cut -c1-200 "$KB/carsh/profiles.txt")"
# shellcheck disable=SC2086
expect 0 "" kbrun partition --no-progress --gpu none --threads 2 --sched logfit --steps 2 \
	"$FM/part_mandel.xml" count=data/mandel.csv $MANDEL
close_to data/mandel.csv ref/mandel.csv 0 "logfit, the cores alone, from the cost map: counts"
expect 0 "" kbrun partition --profile forget "$FM/part_mandel.xml"
grep -qx "forgot 2 entries" "$OUT" && ! grep -q "^partition" "$KB/carsh/profiles.txt" &&
	pass "--profile forget forgets the cost map with the profile" ||
	fail "forget: $(cat "$OUT") $(cut -c1-200 "$KB/carsh/profiles.txt")"
# A corrupt file and one of another version are rebuilt, with a warning.
printf 'carsh-profiles 1\ngarbage\n' >"$KB/carsh/profiles.txt"
expect 0 "partition: warning: $KB/carsh/profiles.txt:2: not an entry (it is rebuilt)" \
	kbrun partition --profile show
[ "$(wc -l <"$ERR")" -eq 1 ] && pass "a corrupt knowledge base: one line of warning" ||
	fail "warning: $(cat "$ERR")"
# Marrow: its 50 % split gives both sides work in every step, so the run always learns an
# entry; LogFit's stand-in GPU could take nothing of a small space on a loaded machine, and
# the run then had nothing to write (CI's sanitizer build, twice).
printf 'carsh-profiles 2\nwhatever\n' >"$KB/carsh/profiles.txt"
expect 0 "has version 2, not 1 (it is rebuilt)" kbrun partition --no-progress --gpu cpu \
	--threads 2 --sched marrow spmv.exe.xml N=$SN NNZ="$NNZ"
close_to data/spmv/y_out.csv ref/spmv/y_ref.csv 1e-5 "a foreign knowledge base: y"
# (its entry: a profile, and the cost map its core and the stand-in measured, a core's too)
head -1 "$KB/carsh/profiles.txt" | grep -qx "carsh-profiles 1" &&
	[ "$(awk -F '\t' '$1 == "partition"' "$KB/carsh/profiles.txt" | wc -l)" -eq 1 ] &&
	[ "$(grep -cv '^partition' "$KB/carsh/profiles.txt")" -eq 1 ] &&
	pass "a foreign knowledge base is rebuilt with this run's entry" ||
	fail "rebuilt: $(cat "$KB/carsh/profiles.txt")"
expect 0 "" kbrun partition --profile forget
grep -qx "forgot 1 entry" "$OUT" && pass "--profile forget forgets all" || fail "$(cat "$OUT")"
expect 2 "--profile 'list': expected show or forget" "$CARSH" partition --profile list
expect 2 "--profile show: too many operands" "$CARSH" partition --profile show x.xml

# Errors: one line each, with what to do.
expect 2 "--sched 'fast': expected logfit, static" "$CARSH" partition --sched fast nbody.exe.xml
expect 2 "--gpu-share is for --sched static" "$CARSH" partition --gpu-share 30 nbody.exe.xml
expect 2 "--threads '0'" "$CARSH" partition --threads 0 nbody.exe.xml
expect 1 "--threads 9: this machine has" "$CARSH" partition --gpu none --threads 9 \
	nbody.exe.xml N=$NB
expect 1 "--sched gpu: there is no GPU" "$CARSH" partition --gpu none --sched gpu \
	nbody.exe.xml N=$NB
cat >copyout.xml <<EOF
<FlowModel>
  <Program><Source>__kernel void k(__global float *y) { y[get_global_id(0)] = 1.0f; }</Source>
    <Kernel name="k"/></Program>
  <WorkSize global="64"/>
  <Arguments><Output name="y" type="float" count="64" partition="copy"/></Arguments>
</FlowModel>
EOF
expect 1 "stream 'y': an Output must be partition=\"block\"" "$CARSH" partition copyout.xml \
	y=discard
sed 's|partition="copy"|partition="block" unit="2"|' copyout.xml >unit.xml
expect 1 "needs 64 x 2 elements" "$CARSH" partition unit.xml y=discard
expect 2 "no executable given" "$CARSH" partition --json

# --help: status 0, and every option of the usage line explained.
"$CARSH" -c "partition --help" >help.txt || fail "partition --help failed"
for o in $("$CARSH" -c "help partition" | head -1 | grep -o -- '--[a-z-]*' | sort -u); do
	grep -q "^  $o " help.txt || fail "partition --help does not explain $o"
done

finish
