#!/bin/sh
# partition over several GPUs (docs/partition.md, "Several GPUs"). PoCL stands in for them:
# POCL_DEVICES="pthread basic basic" gives three CPU devices: 0 and 1 basic (one compute
# unit), 2 pthread (two); the core of device 0 runs beside devices 1 and 2, each driven as a
# GPU (`--gpu 1,2`: its own host thread, context, queue, buffers, copy streams). Every scheduler gives the C reference's results on N-body (1-D) and the
# 2-D Jacobi step, each trace covers every step once, and the summary, the JSON and the trace
# show gpu0 and gpu1. With POCL_DEVICES="pthread pthread", `--gpu 0,1` makes a core of the
# split CPU one GPU and the second device the other. The knowledge base keys on both GPUs;
# the errors of a list.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
PREF="$TOP_BUILDDIR/tests/tools/partref"
EX="$TOP_SRCDIR/examples/partition"
XDG_CACHE_HOME="$T/xdg"
POCL_DEVICES="pthread basic basic"
export POCL_DEVICES XDG_CACHE_HOME
mkdir -p "$XDG_CACHE_HOME/carsh"

if [ "$("$CARSH" -c devices | grep -c ' cpu ')" -ne 3 ]; then
	echo "POCL_DEVICES='$POCL_DEVICES' gives no three devices here: skipped"
	exit 77
fi

sed "s|../../flowmodels|$FM|" "$EX/nbody.exe.xml" >nbody.exe.xml
mkdir -p data/nbody data/jacobi ref/nbody ref/jacobi
sed "s|../../flowmodels|$FM|" "$EX/jacobi.exe.xml" >jacobi.exe.xml
NB=384
"$PREF" nbody-gen $NB 7 data/nbody
cp data/nbody/pos.csv data/nbody/vel.csv ref/nbody/
"$PREF" nbody $NB 4 0.001 0.0001 ref/nbody
JW=48 JH=40
"$PREF" jacobi2d-gen $JW $JH 9 data/jacobi
cp data/jacobi/*.csv ref/jacobi/
"$PREF" jacobi2d $JW $JH 4 0.001 ref/jacobi

# check NAME ITEMS OPTIONS...: run (4 steps), compare with the reference, check the trace.
check() {
	local name="$1" items="$2"
	shift 2
	case $name in
	nbody) set -- "$@" nbody.exe.xml N=$NB ;;
	jacobi) set -- "$@" jacobi.exe.xml W=$JW H=$JH H2=0.001 ;;
	esac
	rm -f trace.csv
	expect 0 "" "$CARSH" partition --no-progress --trace trace.csv "$@" || return
	case $name in
	nbody)
		close_to data/nbody/pos_out.csv ref/nbody/pos_ref.csv 1e-5 "$name $*: positions"
		close_to data/nbody/vel_out.csv ref/nbody/vel_ref.csv 1e-5 "$name $*: velocities"
		;;
	jacobi) close_to data/jacobi/u_out.csv ref/jacobi/u_ref.csv 0 "$name $*: u after 4 steps" ;;
	esac
	if "$PREF" trace-check trace.csv "$items" 4 >tc.out 2>&1; then
		pass "$name $*: trace covers 4 x $items items once ($(cat tc.out))"
	else
		fail "$name $*: trace: $(cat tc.out)"
	fi
}

for s in logfit static concord hdss gpu marrow; do
	check nbody $NB --gpu 1,2 --sched $s
	check jacobi $JH --gpu 1,2 --sched $s
done
check jacobi $JH --gpu 1,2 --sched static --gpu-share 70

# The summary and the trace name each GPU; the shares add up to 100 %.
check nbody $NB --gpu 1,2 --sched static --gpu-share 80
grep -q '^partition .*: 2 GPUs + 1 CPU core$' "$OUT" && grep -q '^gpu0 ' "$OUT" &&
	grep -q '^gpu1 ' "$OUT" && grep -q '^cpu0 ' "$OUT" &&
	pass "the summary lists gpu0, gpu1 and cpu0" || fail "summary: $(cat "$OUT")"
awk '$1 ~ /^gpu[01]$/ || $1 ~ /^cpu/ { s += $4 } END { exit !(s > 99.8 && s < 100.2) }' "$OUT" &&
	pass "the devices' shares add up to 100 %" || fail "shares: $(cat "$OUT")"
[ "$(awk -F, 'NR > 1 { print $2 }' trace.csv | sort -u | tr '\n' ' ')" = "cpu0 gpu0 gpu1 " ] &&
	pass "the trace names gpu0, gpu1 and cpu0" ||
	fail "trace devices: $(cut -d, -f2 trace.csv | sort -u)"
# Static splits its share by compute units: 80 % of 384 items in granules of 64 is 320, a
# third to gpu0 (PoCL's basic device: one compute unit) and two to gpu1 (pthread: the two
# cores), rounded to granules (128 and 192), one chunk each.
gpus=$(awk -F, '$1 == 0 && $2 ~ /^gpu/ { print $2 ":" $3 "+" $4 }' trace.csv | sort | tr '\n' ' ')
[ "$gpus" = "gpu0:0+128 gpu1:128+192 " ] &&
	pass "static: one chunk per GPU, split by compute units" || fail "static's GPU chunks: $gpus"

# --json: the device list and each GPU's fit.
expect 0 "" "$CARSH" partition --json --gpu 1,2 --sched logfit nbody.exe.xml N=$NB
for k in '"gpus":2' '"fits":[' '"label":"gpu0"' '"label":"gpu1"' '"label":"cpu0"'; do
	grep -qF "$k" "$OUT" && pass "--json has $k" || fail "--json lacks $k: $(cat "$OUT")"
done

# --threads N: N-1 cores beside every GPU; 1: the GPUs alone.
check jacobi $JH --gpu 1,2 --threads 1
grep -q '^partition .*, 1 thread: 2 GPUs$' "$OUT" && pass "--threads 1: the two GPUs alone" ||
	fail "--threads 1: $(head -1 "$OUT")"

# The knowledge base keys on the device set: both GPUs' names, then the cores.
expect 0 "" "$CARSH" partition --profile show
grep -q '\[basic-[^]]* + pthread-[^]]* + 1 x basic-' "$OUT" &&
	pass "the knowledge base's key names both GPUs" || fail "--profile show: $(cat "$OUT")"

# A core of the split CPU standing in as gpu0 beside a device as gpu1.
POCL_DEVICES="pthread pthread"
if [ "$("$CARSH" -c devices | grep -c ' cpu ')" -eq 2 ]; then
	check jacobi $JH --gpu 0,1 --sched logfit
	grep -q '2 GPUs (gpu0 a CPU core standing in) + 1 CPU core$' "$OUT" &&
		pass "--gpu 0,1: a core as gpu0, the second device as gpu1" ||
		fail "--gpu 0,1: $(head -1 "$OUT")"
	check nbody $NB --gpu 1,cpu --sched marrow
	# No GPU or accelerator here: all (and auto) run the cores alone.
	check nbody $NB --gpu all
	grep -q 'ran as cpu), 2 threads: 2 CPU cores$' "$OUT" &&
		pass "--gpu all without a GPU: the cores" || fail "--gpu all: $(head -1 "$OUT")"
fi
POCL_DEVICES="pthread basic basic"

# What goes to each GPU: Jacobi's u (a copy stream changed by every swap) whole at each of the
# 4 steps, 48 x 40 floats; f (a block input no swap changes) only once, the rows of the
# device's chunk: Static at 100 % gives gpu0 (one compute unit) rows 0-11 and gpu1 (two)
# rows 12-39 at every step. Written at every step, f was 4 times that.
check jacobi $JH --gpu 1,2 --sched static --gpu-share 100 --json
u=$((JW * JH * 4 * 4))
for g in "gpu0 $((u + 12 * JW * 4))" "gpu1 $((u + 28 * JW * 4))"; do
	grep -q "\"label\":\"${g% *}\"[^}]*\"in_bytes\":${g#* }}" "$OUT" &&
		pass "${g% *}: ${g#* } bytes in (u at every step, f once)" ||
		fail "${g% *}: not ${g#* } bytes in: $(cat "$OUT")"
done

# Errors of a list.
expect 2 "partition: --gpu 'all,1': auto, all and none stand alone, not in a list" \
	"$CARSH" partition --gpu all,1 nbody.exe.xml N=$NB
expect 2 "partition: --gpu '1,,2': an empty selector in the list" \
	"$CARSH" partition --gpu 1,,2 nbody.exe.xml N=$NB
expect 1 "partition: nbody.exe.xml: --gpu: device 1 ('basic-" \
	"$CARSH" partition --no-progress --gpu 1,1 nbody.exe.xml N=$NB
grep -q "') is named twice$" "$ERR" && pass "a device named twice" || fail "twice: $(cat "$ERR")"
expect 1 "partition: nbody.exe.xml: --gpu: no OpenCL device matches '7'" \
	"$CARSH" partition --no-progress --gpu 1,7 nbody.exe.xml N=$NB
finish
