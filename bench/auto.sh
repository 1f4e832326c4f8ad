#!/usr/bin/env bash
# The per-job device choice (docs/auto.md) against fixed devices, in one run, alternately,
# on a machine with a GPU and the CPU's cores (issue 21's targets):
#   mid    MID jobs (64) the GPU runs some 3-10x faster than the cores:  auto >= 1.15x faster than all-GPU
#   tiny   TINY jobs (64), launch- and transfer-bound:                   auto <= 1.05x the better fixed choice
#   large  LARGE jobs (8), GPU >> CPU:                                   auto <= 1.05x all-GPU
#   energy auto:energy on the large workload: energy <= 1.05x the best fixed choice (NVML,
#          and RAPL where readable; printed only where a counter exists)
# Every workload is independent background jobs of one carsh, then `sync`, warm: each carsh
# runs it once untimed (builds, and auto's exploration), then once timed by `time --wall`
# from inside (the process's OpenCL start-up left out); the profile history is kept between
# the runs. The modes alternate; prints medians of RUNS runs and the ratios. Energy is warm
# too: one carsh per mode, fed through a FIFO, runs the workload once, then for each of RUNS
# readings of the counters (NVML through a helper kept running, RAPL) as many times as make
# 2 s; the joules are per run of the workload.
#
#   bench/auto.sh [RUNS]        (default 5)
#
# Runs from a build tree carried to another machine: everything is found beside this file
# ($CARSH overrides carsh/carsh). EXEC=thread (default: one runtime, a queue per device) or
# process; MID, TINY, LARGE the job counts; MID_ITER, LARGE_ITER the Mandelbrot iterations;
# MID_W the mid workload's width (default: calibrated with MID_ITER, see below; the GPU/CPU
# ratio is printed), MID_RATIO the ratio the calibration aims at; SPLITS the numbers of mid
# jobs put on the cores by hand (default "4 8 16"), the oracle auto is compared with.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
runs=${1:-5}
mid_n=${MID:-64}
tiny_n=${TINY:-64}
large_n=${LARGE:-8}
mid_iter=${MID_ITER:-512}
mid_w=${MID_W:-}
large_iter=${LARGE_ITER:-4096}
exec_mode=${EXEC:-thread}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
export CARSH_SERVER=off
mkdir -p "$XDG_CACHE_HOME"

. "$top/bench/timing-lib.sh"

opts=()
[ "$exec_mode" = thread ] && opts=(-T)
fm="$top/flowmodels/part_mandel.xml"
seq 1 256 >"$work/x.csv"

# script NAME COUNT LINE: COUNT background jobs of LINE, then sync.
script() {
	{
		for ((i = 0; i < $2; i++)); do echo "$3 &"; done
		echo sync
	} >"$work/$1.csh"
}
script tiny "$tiny_n" "run $top/flowmodels/vadd.xml a=$work/x.csv b=$work/x.csv c=discard N=256"
script large "$large_n" "run $fm count=discard W=2048 H=2048 MAXIT=$large_iter"
# GPU_SEL and CPU_SEL name the fixed devices (default gpu and cpu; a smoke test on a machine
# without a GPU may give two PoCL devices: POCL_DEVICES="pthread basic" GPU_SEL=1 CPU_SEL=0).
sel_of() {
	case $1 in
	gpu) echo "${GPU_SEL:-gpu}" ;;
	cpu) echo "${CPU_SEL:-cpu}" ;;
	*) echo "$1" ;;
	esac
}
# One carsh runs the workload REPS+1 times: the first (untimed) builds the programs and, for
# auto, explores; `time --wall` times the others from inside, so that the process's OpenCL
# start-up (0.2-0.5 s, more with both devices open) is no part of a workload's time.
run_mode() { # WORKLOAD gpu|cpu|auto|auto:energy [REPS]: the times in ms, one a line
	local reps=${3:-1} i
	{
		echo "source $work/$1.csh"
		for ((i = 0; i < reps; i++)); do echo "time --wall source $work/$1.csh"; done
	} >"$work/run.csh"
	"$carsh" "${opts[@]}" --device "$(sel_of "$2")" "$work/run.csh" 2>"$work/err" >/dev/null ||
		{ cat "$work/err" >&2; exit 1; }
	awk '$1 == "real" { print $2 }' "$work/err"
}
# ---- the mid workload: jobs the GPU runs 3-10 times faster than the cores ----
# With the GPU r times as fast as the cores, the best split of independent jobs is at most
# 1 + 1/r times as fast as all-GPU: the target's 1.15 needs r <= 6.7, and the fixed costs of
# each job take some of it, so the ratio aimed at is MID_RATIO (default 3.5), the lower part
# of the target's 3-10. The GPU's jobs must be work, not the fixed cost of a job: on the H100
# a Mandelbrot job of up to 512² pixels took 0.13-0.3 ms whatever its iterations, as long as
# an empty one (the driver's per-job calls), while the cores' time grew with the work, so
# that the ratio of small pictures was one of overheads and the GPU's queue the host's.
# Large pictures with few iterations are work for both: the GPU's read-back of W² counts
# and the cores' iterations. Unless MID_W is given, the width and iterations are chosen
# here: of a few, the one whose ratio is nearest MID_RATIO and at least 3, among those
# whose GPU jobs take MID_GPU_MS (default 0.5) or more each where any does. The picture
# covers the whole set at every width (STEP = 2.5/W).
mid_ratio=${MID_RATIO:-3.5}
mid_line() { # W MAXIT
	echo "run $fm count=discard W=$1 H=$1 STEP=$(awk -v w="$1" 'BEGIN { printf "%.9g", 2.5 / w }') MAXIT=$2"
}
# nearer R B: whether ratio R is nearer MID_RATIO than B
nearer() { awk -v r="$1" -v b="$2" -v t="$mid_ratio" 'BEGIN {
	d = (r - t) < 0 ? t - r : r - t; e = (b - t) < 0 ? t - b : b - t; exit !(d < e) }'; }
if [ -z "$mid_w" ]; then
	best='' best_r='' any='' any_r=''
	for ci in ${MID_ITER:-16 32 64 128 256}; do
		for cw in 512 1024 2048; do
			script cal 8 "$(mid_line "$cw" "$ci")"
			run_mode cal gpu >/dev/null
			g=$(run_mode cal gpu)
			c=$(run_mode cal cpu)
			r=$(awk -v g="$g" -v c="$c" 'BEGIN { printf "%.2f", (g > 0) ? c / g : 0 }')
			echo "calibration: W=$cw MAXIT=$ci, GPU/CPU speed ratio $r (8 jobs: GPU $g ms, cores $c ms)"
			awk -v r="$r" 'BEGIN { exit !(r >= 3) }' || continue
			if [ -z "$any" ] || nearer "$r" "$any_r"; then any="$cw $ci" any_r=$r; fi
			awk -v g="$g" -v m="${MID_GPU_MS:-0.5}" 'BEGIN { exit !(g / 8 >= m) }' || continue
			if [ -z "$best" ] || nearer "$r" "$best_r"; then best="$cw $ci" best_r=$r; fi
		done
	done
	[ -n "$best" ] || best=$any best_r=$any_r
	[ -n "$best" ] || best="512 $mid_iter"
	set -- $best
	mid_w=$1
	mid_iter=$2
	echo "calibration: the mid workload is W=$mid_w MAXIT=$mid_iter (ratio ${best_r:-unknown})"
fi
mid_job=$(mid_line "$mid_w" "$mid_iter")
script mid "$mid_n" "$mid_job"
# The oracle's splits of the mid workload by hand: K jobs on the cores (queued first), the
# rest on the GPU, in one script (`set device=`); the best of them is what any choice of
# devices can reach on this machine.
splits=${SPLITS:-4 8 16}
for k in $splits; do
	{
		echo "set device=$(sel_of cpu)"
		for ((i = 0; i < k; i++)); do echo "$mid_job &"; done
		echo "set device=$(sel_of gpu)"
		for ((i = k; i < mid_n; i++)); do echo "$mid_job &"; done
		echo sync
	} >"$work/split$k.csh"
done

# ---- energy: NVML through a small helper where a compiler and the library exist, RAPL ----
nvml_helper=""
if command -v cc >/dev/null 2>&1; then
	cat >"$work/nvml.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	int (*init)(void), (*get)(unsigned, void **), (*energy)(void *, unsigned long long *);
	unsigned long long mj;
	void *dev;
	if (!h) return 1;
	init = (int (*)(void))dlsym(h, "nvmlInit_v2");
	get = (int (*)(unsigned, void **))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	energy = (int (*)(void *, unsigned long long *))dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
	if (!init || !get || !energy || init() || get(0, &dev) || energy(dev, &mj)) return 1;
	printf("%llu\n", mj);
	fflush(stdout);
	/* then one reading a line read: the bench reads around a workload without the start-up
	 * of NVML (tens of ms of an idle GPU's power) in the window */
	while (getchar() != EOF) {
		if (energy(dev, &mj)) return 1;
		printf("%llu\n", mj);
		fflush(stdout);
	}
	return 0;
}
C
	cc -O2 -o "$work/nvml" "$work/nvml.c" -ldl 2>/dev/null && "$work/nvml" </dev/null >/dev/null 2>&1 &&
		nvml_helper="$work/nvml"
fi
rapl_files=(/sys/class/powercap/intel-rapl:[0-9]*/energy_uj)
[ -r "${rapl_files[0]}" ] || rapl_files=()
# The NVML helper and each measured carsh stay up, fed through FIFOs: the energy is of the
# workload in a warm carsh, as its times are (the start-up of a process, 0.2-0.5 s of the
# GPU's idle power, is no part of it).
mkfifo "$work/nv.in" "$work/nv.out" "$work/cs.in" "$work/cs.out"
if [ -n "$nvml_helper" ]; then
	"$nvml_helper" <"$work/nv.in" >"$work/nv.out" &
	exec 7>"$work/nv.in" 8<"$work/nv.out"
	read -r _ <&8
fi
energy_now() { # joules, GPU + CPU packages where readable
	local g=0 c=0 f
	if [ -n "$nvml_helper" ]; then
		echo >&7
		read -r g <&8
	fi
	for f in "${rapl_files[@]}"; do c=$((c + $(cat "$f"))); done
	awk -v g="$g" -v c="$c" 'BEGIN { printf "%.3f", g / 1000 + c / 1e6 }'
}
to_carsh() { # LINES...: run them in the warm carsh, return when it has
	printf '%s\n' "$@" "echo @@done" >&5
	while read -r line <&6; do [ "$line" = @@done ] && return 0; done
	cat "$work/err" >&2
	exit 1
}
# NVML's counter moves in steps (on the H100 a window of four 5 ms workloads read 0 J): each
# reading spans at least 2 s of the workload, repeated REPS times, and is divided by REPS.
energy_of() { # WORKLOAD DEVICE REPS: joules per run of the workload, RUNS readings, one a line
	local e0 e1 r i lines=()
	"$carsh" "${opts[@]}" --device "$(sel_of "$2")" <"$work/cs.in" >"$work/cs.out" 2>"$work/err" &
	exec 5>"$work/cs.in" 6<"$work/cs.out"
	to_carsh "source $work/$1.csh"
	for ((i = 0; i < $3; i++)); do lines+=("source $work/$1.csh"); done
	for ((r = 0; r < runs; r++)); do
		e0=$(energy_now)
		to_carsh "${lines[@]}"
		e1=$(energy_now)
		awk -v a="$e0" -v b="$e1" -v n="$3" 'BEGIN { print (b - a) / n }'
	done
	exec 5>&- 6<&-
	wait $!
}
reps_for() { # MEDIAN_MS: how many runs of it make 2 s
	awk -v m="$1" 'BEGIN { n = int(2000 / (m > 0 ? m : 1)) + 1; print (n < 1) ? 1 : n }'
}

# ---- warm-up: the binary cache, and auto's exploration kept in the history ----
for w in mid tiny large; do
	for d in gpu cpu auto; do run_mode $w $d >/dev/null; done
done
for k in $splits; do run_mode split$k gpu >/dev/null; done

for ((r = 0; r < runs; r++)); do
	for w in mid tiny large; do
		for d in gpu cpu auto; do run_mode $w $d >>"$work/$w-$d"; done
	done
	for k in $splits; do run_mode split$k gpu >>"$work/split$k"; done
done

med() { median <"$work/$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
echo "bench/auto.sh: $runs runs, EXEC=$exec_mode, medians (ms)"
printf '%-6s %10s %10s %10s\n' workload all-gpu all-cpu auto
for w in mid tiny large; do
	printf '%-6s %10.1f %10.1f %10.1f\n' $w "$(med $w-gpu)" "$(med $w-cpu)" "$(med $w-auto)"
done
echo "mid: GPU/CPU speed ratio $(ratio "$(med mid-cpu)" "$(med mid-gpu)") (the target assumes 3-10; MID_W and MID_ITER set it)"
echo "mid: all-GPU / auto = $(ratio "$(med mid-gpu)" "$(med mid-auto)") (target >= 1.15)"
for k in $splits; do
	echo "mid: all-GPU / $k jobs on the cores by hand = $(ratio "$(med mid-gpu)" "$(med split$k)") ($(med split$k) ms)"
done
best_tiny=$(awk -v a="$(med tiny-gpu)" -v b="$(med tiny-cpu)" 'BEGIN { print (a < b) ? a : b }')
echo "tiny: auto / best fixed = $(ratio "$(med tiny-auto)" "$best_tiny") (target <= 1.05)"
echo "large: auto / all-GPU = $(ratio "$(med large-auto)" "$(med large-gpu)") (target <= 1.05)"

if [ -z "$nvml_helper" ] && [ ${#rapl_files[@]} -eq 0 ]; then
	echo "energy: no counter (neither NVML nor RAPL readable): auto:energy not measured"
	exit 0
fi
run_mode large auto:energy >/dev/null
energy_of large gpu "$(reps_for "$(med large-gpu)")" >"$work/energy-gpu"
energy_of large cpu "$(reps_for "$(med large-cpu)")" >"$work/energy-cpu"
energy_of large auto:energy "$(reps_for "$(med large-auto)")" >"$work/energy-auto:energy"
eg=$(med energy-gpu)
ec=$(med energy-cpu)
ea=$(med energy-auto:energy)
best=$(awk -v a="$eg" -v b="$ec" 'BEGIN { print (a < b) ? a : b }')
echo "energy (J a run of the workload, ${nvml_helper:+NVML}${nvml_helper:+ }${rapl_files[*]:+RAPL}): all-gpu $eg all-cpu $ec auto:energy $ea"
echo "energy: auto:energy / best fixed = $(ratio "$ea" "$best") (target <= 1.05)"
