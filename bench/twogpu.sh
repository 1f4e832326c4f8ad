#!/usr/bin/env bash
# Two GPUs against one (docs/partition.md, "Several GPUs"): `partition --sched logfit` over
# both GPUs and the cores against one GPU and the same cores, on N-body and the 2-D Jacobi
# step at sizes where one GPU runs for 100 ms or more, REPEATS times each (alternating, in
# one carsh per benchmark after a warm-up of each), the ratio of the medians; and the
# hand-written two-GPU N-body (bench/host_nbody2.c: a thread and a context per GPU, each GPU
# its half of the bodies) at the same size: what two GPUs can give. One run prints all:
#
#   2 GPUs + cores / 1 GPU + cores: nbody 1.83x (...)  jacobi ...
#   hand-written two GPUs / one GPU (nbody, N ...): 1.95x
#
# Every output of the runs over both GPUs is compared with the C reference
# (tests/tools/partref).
#
# Environment:
#   BUILDDIR  build tree with carsh/carsh (default: the source tree); CARSH overrides it
#   GPUS      the two GPUs as --gpu takes them (default 0,1: the first two GPUs of
#             `carsh -c devices`; with PoCL standing in, e.g. POCL_DEVICES="pthread basic basic"
#             GPUS=1,2)
#   GPU1      the one GPU (default: the first of GPUS)
#   HOSTDEV   the two devices of host_nbody2 as `carsh -c devices` numbers them (default:
#             the first two GPUs)
#   THREADS   --threads of both (default: every core and a thread per GPU)
#   REPEATS   runs of each, the median counts (default 5)
#   NBODY_N NBODY_STEPS JACOBI_W JACOBI_H JACOBI_STEPS   sizes (defaults: 49152 bodies,
#             4 steps; 4096 x 4096, 40 steps; an H200 takes about 150 ms on either)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
GPUS=${GPUS:-0,1}
GPU1=${GPU1:-${GPUS%%,*}}
REPEATS=${REPEATS:-5}
: "${NBODY_N:=49152}" "${NBODY_STEPS:=4}" "${JACOBI_W:=4096}" "${JACOBI_H:=4096}" "${JACOBI_STEPS:=40}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache}
fm=$top/flowmodels
threads=${THREADS:+--threads $THREADS}

partref=$build/tests/tools/partref
[ -x "$partref" ] || { cc -O2 -ffp-contract=off -o "$work/partref" "$top/tests/tools/partref.c" -lm && partref=$work/partref; }
refcmp=$build/tests/tools/ref
[ -x "$refcmp" ] || { cc -O2 -o "$work/ref" "$top/tests/tools/ref.c" "$top/tests/tools/csvread.c" -lm && refcmp=$work/ref; }
host=$build/bench/host_nbody2
[ -x "$host" ] || { cc -O2 -pthread -o "$work/host_nbody2" "$top/bench/host_nbody2.c" ${OPENCL_LIBS:--lOpenCL} && host=$work/host_nbody2; }

mkdir -p "$work"/{nbody,jacobi}
"$partref" nbody-gen "$NBODY_N" 1 "$work/nbody"
"$partref" jacobi2d-gen "$JACOBI_W" "$JACOBI_H" 1 "$work/jacobi"
cat >"$work/nbody.exe.xml" <<EOF
<CarshExe><FlowModel file="$fm/part_nbody.xml"/>
<Input name="pos"><Buffer>pos</Buffer></Input><Input name="vel"><Buffer>vel</Buffer></Input>
<Output name="pos_next"><Buffer>pos_next</Buffer></Output><Output name="vel_next"><Buffer>vel_next</Buffer></Output>
<Swap count="1"><SwapPair input="pos" output="pos_next"/><SwapPair input="vel" output="vel_next"/></Swap></CarshExe>
EOF
cat >"$work/jacobi.exe.xml" <<EOF
<CarshExe><FlowModel file="$fm/part_jacobi2d.xml"/>
<Input name="u"><Buffer>u</Buffer></Input><Input name="f"><Buffer>f</Buffer></Input>
<Output name="u_next"><Buffer>u_next</Buffer></Output>
<Swap count="1"><SwapPair input="u" output="u_next"/></Swap></CarshExe>
EOF

script() { # BENCH: the carsh script of one benchmark
	local b=$1 d=$work/$1 p r
	case $b in
	nbody)
		echo "virtbuf create pos float4 $NBODY_N; virtbuf fill pos $d/pos.csv"
		echo "virtbuf create vel float4 $NBODY_N; virtbuf fill vel $d/vel.csv"
		echo "virtbuf create pos_next float4 $NBODY_N; virtbuf create vel_next float4 $NBODY_N"
		p="--steps $NBODY_STEPS $work/nbody.exe.xml N=$NBODY_N"
		;;
	jacobi)
		echo "virtbuf create u float $((JACOBI_W * JACOBI_H)); virtbuf fill u $d/u.csv"
		echo "virtbuf create f float $((JACOBI_W * JACOBI_H)); virtbuf fill f $d/f.csv"
		echo "virtbuf create u_next float $((JACOBI_W * JACOBI_H))"
		p="--steps $JACOBI_STEPS $work/jacobi.exe.xml W=$JACOBI_W H=$JACOBI_H H2=0.0001"
		;;
	esac
	echo "partition --no-progress $threads --gpu $GPUS $p >/dev/null"
	echo "partition --no-progress $threads --gpu $GPU1 $p >/dev/null"
	for r in $(seq 1 "$REPEATS"); do
		echo "partition --json --no-progress $threads --gpu $GPU1 --sched logfit $p"
		echo "partition --json --no-progress $threads --gpu $GPUS --sched logfit $p"
	done
	case $b in
	nbody) echo "virtbuf dump pos_next $d/got.csv" ;;
	jacobi) echo "virtbuf dump u_next $d/got.csv" ;;
	esac
}

# The median of the time_ms of the JSON lines with (2) or without (1) "gpus":N.
median() { # 1|2 < JSON lines
	local want=$1 n
	sed -nE 's/.*"time_ms":([0-9.eE+-]+).*/\1 &/p' | while read -r t line; do
		case $line in *'"gpus":'*) n=2 ;; *) n=1 ;; esac
		if [ "$n" = "$want" ]; then echo "$t"; fi
	done | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

echo "2 GPUs (--gpu $GPUS) + cores against 1 GPU (--gpu $GPU1) + cores, logfit, median of $REPEATS:"
for b in nbody jacobi; do
	script "$b" >"$work/$b.csh"
	if ! "$carsh" "$work/$b.csh" >"$work/$b.jsonl" 2>"$work/$b.err"; then
		echo "  $b: carsh failed: $(tail -2 "$work/$b.err")"
		continue
	fi
	one=$(median 1 <"$work/$b.jsonl")
	two=$(median 2 <"$work/$b.jsonl")
	awk -v b="$b" -v one="$one" -v two="$two" 'BEGIN {
		printf "  %-7s 2 GPUs + cores / 1 GPU + cores: %.2fx (2 GPUs %.1f ms, 1 GPU %.1f ms; target >= 1.8: %s)%s\n",
			b, one / two, two, one, (one / two >= 1.8) ? "met" : "MISSED",
			(one < 100) ? "; one GPU ran < 100 ms: raise the size" : "" }'
done

echo "the outputs over both GPUs against the C reference:"
d=$work/nbody
mkdir -p "$d/ref" && cp "$d/pos.csv" "$d/vel.csv" "$d/ref/"
"$partref" nbody "$NBODY_N" "$NBODY_STEPS" 0.001 0.0001 "$d/ref"
echo "  nbody:  $("$refcmp" cmp "$d/got.csv" "$d/ref/pos_ref.csv" 1e-3 2>&1 || echo FAILED)"
d=$work/jacobi
mkdir -p "$d/ref" && cp "$d"/u.csv "$d"/f.csv "$d/ref/"
"$partref" jacobi2d "$JACOBI_W" "$JACOBI_H" "$JACOBI_STEPS" 0.0001 "$d/ref"
echo "  jacobi: $("$refcmp" cmp "$d/got.csv" "$d/ref/u_ref.csv" 1e-5 2>&1 || echo FAILED)"

echo "the hand-written N-body (bench/host_nbody2.c), N $NBODY_N, $NBODY_STEPS steps:"
"$host" "$NBODY_N" "$NBODY_STEPS" "$REPEATS" "$top/kernels/part_nbody.cl" "${HOSTDEV:--}" |
	sed 's/^/  /; s/^  ratio 1 device \/ 2 devices: \(.*\)/  hand-written two GPUs \/ one GPU: \1x (the limit)/'
