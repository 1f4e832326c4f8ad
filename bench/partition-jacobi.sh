#!/usr/bin/env bash
# The partition engine on the 2-D Jacobi step (flowmodels/part_jacobi2d.xml), W x H, STEPS
# steps, at the full thread count: LogFit twice, Static at a few GPU shares and the cores
# alone, in one carsh after an unrecorded warm-up run, with a chunk trace of each
# (bench/results/2026-11-partition-notes.md, "On the H100 after the tail chunks ...").
# Prints each run's time (ms).
#
#   bench/partition-jacobi.sh [OUT]     (W=4096 H=4096 STEPS=10 SHARES="0 10 30 50")
#
# $CARSH (default carsh/carsh of the tree) and $PARTREF (tests/tools/partref) are used; the
# traces trace-logfit-N.csv and trace-static-P.csv go to OUT (default a temporary directory).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
partref=${PARTREF:-$top/tests/tools/partref}
w=${W:-4096}
h=${H:-4096}
steps=${STEPS:-10}
shares=${SHARES:-0 10 30 50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${1:-$work}
mkdir -p "$out"
"$partref" jacobi2d-gen "$w" "$h" 1 "$work" >/dev/null
cat >"$work/j.exe.xml" <<X
<CarshExe><FlowModel file="$top/flowmodels/part_jacobi2d.xml"/>
<Input name="u"><Buffer>u</Buffer></Input><Input name="f"><Buffer>f</Buffer></Input>
<Output name="u_next"><Buffer>u_next</Buffer></Output>
<Swap count="1"><SwapPair input="u" output="u_next"/></Swap></CarshExe>
X
e="--steps $steps $work/j.exe.xml W=$w H=$h H2=0.0001"
{
	echo "virtbuf create u float $((w * h)); virtbuf fill u $work/u.csv"
	echo "virtbuf create f float $((w * h)); virtbuf fill f $work/f.csv"
	echo "virtbuf create u_next float $((w * h))"
	echo "partition --no-progress $e >/dev/null"
	for r in 1 2; do echo "partition --json --no-progress --sched logfit --trace $out/trace-logfit-$r.csv $e"; done
	for p in $shares; do echo "partition --json --no-progress --sched static --gpu-share $p --trace $out/trace-static-$p.csv $e"; done
	echo "partition --json --no-progress --sched cpu $e"
} >"$work/run.csh"
"$carsh" "$work/run.csh" | sed -nE 's/.*"sched":"([a-z]+)".*"threads":([0-9]+).*"time_ms":([0-9.]+).*"gpu_share":([0-9.]+).*/\1 \2 threads, share \4: \3 ms/p'
