#!/usr/bin/env bash
# The per-job device choice (docs/auto.md) against fixed devices, in one run, alternately,
# on a machine with a GPU and the CPU's cores (issue 21's targets):
#   mid    MID jobs (64) the GPU runs some 3-10x faster than the cores:  auto >= 1.15x faster than all-GPU
#   tiny   TINY jobs (64), launch- and transfer-bound:                   auto <= 1.05x the better fixed choice
#   large  LARGE jobs (8), GPU >> CPU:                                   auto <= 1.05x all-GPU
#   energy auto:energy on the large workload: energy <= 1.05x the best fixed choice (NVML,
#          and RAPL where readable; printed only where a counter exists)
# Every workload is independent background jobs of one carsh, then `sync`, warm: one
# untimed run of each mode first builds the programs and, for auto, fills the profile
# history (each device explored once). Prints medians of RUNS runs and the ratios.
#
#   bench/auto.sh [RUNS]        (default 5)
#
# Runs from a build tree carried to another machine: everything is found beside this file
# ($CARSH overrides carsh/carsh). EXEC=thread (default: one runtime, a queue per device) or
# process; MID, TINY, LARGE the job counts; MID_ITER, LARGE_ITER tune the Mandelbrot iterations (the mid workload's
# GPU/CPU ratio is printed: aim for 3-10).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
runs=${1:-5}
mid_n=${MID:-64}
tiny_n=${TINY:-64}
large_n=${LARGE:-8}
mid_iter=${MID_ITER:-64}
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
script mid "$mid_n" "run $fm count=discard W=512 H=512 MAXIT=$mid_iter"
script tiny "$tiny_n" "run $top/flowmodels/vadd.xml a=$work/x.csv b=$work/x.csv c=discard N=256"
script large "$large_n" "run $fm count=discard W=2048 H=2048 MAXIT=$large_iter"

# GPU_SEL and CPU_SEL name the fixed devices (default gpu and cpu; a smoke test on a machine
# without a GPU may give two PoCL devices: POCL_DEVICES="pthread basic" GPU_SEL=1 CPU_SEL=0).
run_mode() { # WORKLOAD gpu|cpu|auto|auto:energy
	local sel=$2
	[ "$sel" = gpu ] && sel=${GPU_SEL:-gpu}
	[ "$sel" = cpu ] && sel=${CPU_SEL:-cpu}
	"$carsh" "${opts[@]}" --device "$sel" "$work/$1.csh" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
}

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
	return 0;
}
C
	cc -O2 -o "$work/nvml" "$work/nvml.c" -ldl 2>/dev/null && "$work/nvml" >/dev/null 2>&1 &&
		nvml_helper="$work/nvml"
fi
rapl_files=(/sys/class/powercap/intel-rapl:[0-9]*/energy_uj)
[ -r "${rapl_files[0]}" ] || rapl_files=()
energy_now() { # joules, GPU + CPU packages where readable
	local g=0 c=0 f
	[ -n "$nvml_helper" ] && g=$("$nvml_helper")
	for f in "${rapl_files[@]}"; do c=$((c + $(cat "$f"))); done
	awk -v g="$g" -v c="$c" 'BEGIN { printf "%.3f", g / 1000 + c / 1e6 }'
}
energy_of() { # FILE WORKLOAD DEVICE: append the joules of one run
	local e0 e1
	e0=$(energy_now)
	run_mode "$2" "$3"
	e1=$(energy_now)
	awk -v a="$e0" -v b="$e1" 'BEGIN { print b - a }' >>"$1"
}

# ---- warm-up: builds, and auto's exploration ----
for w in mid tiny large; do
	for d in gpu cpu auto; do run_mode $w $d; done
	run_mode $w auto
done

for ((r = 0; r < runs; r++)); do
	for w in mid tiny large; do
		for d in gpu cpu auto; do timed "$work/$w-$d" run_mode $w $d; done
	done
done

med() { median <"$work/$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
echo "bench/auto.sh: $runs runs, EXEC=$exec_mode, medians (ms)"
printf '%-6s %10s %10s %10s\n' workload all-gpu all-cpu auto
for w in mid tiny large; do
	printf '%-6s %10.1f %10.1f %10.1f\n' $w "$(med $w-gpu)" "$(med $w-cpu)" "$(med $w-auto)"
done
echo "mid: GPU/CPU speed ratio $(ratio "$(med mid-cpu)" "$(med mid-gpu)") (aim 3-10; MID_ITER tunes it)"
echo "mid: all-GPU / auto = $(ratio "$(med mid-gpu)" "$(med mid-auto)") (target >= 1.15)"
best_tiny=$(awk -v a="$(med tiny-gpu)" -v b="$(med tiny-cpu)" 'BEGIN { print (a < b) ? a : b }')
echo "tiny: auto / best fixed = $(ratio "$(med tiny-auto)" "$best_tiny") (target <= 1.05)"
echo "large: auto / all-GPU = $(ratio "$(med large-auto)" "$(med large-gpu)") (target <= 1.05)"

if [ -z "$nvml_helper" ] && [ ${#rapl_files[@]} -eq 0 ]; then
	echo "energy: no counter (neither NVML nor RAPL readable): auto:energy not measured"
	exit 0
fi
run_mode large auto:energy
for ((r = 0; r < runs; r++)); do
	for d in gpu cpu auto:energy; do energy_of "$work/energy-$d" large $d; done
done
eg=$(med energy-gpu)
ec=$(med energy-cpu)
ea=$(med energy-auto:energy)
best=$(awk -v a="$eg" -v b="$ec" 'BEGIN { print (a < b) ? a : b }')
echo "energy (J, ${nvml_helper:+NVML}${nvml_helper:+ }${rapl_files[*]:+RAPL}): all-gpu $eg all-cpu $ec auto:energy $ea"
echo "energy: auto:energy / best fixed = $(ratio "$ea" "$best") (target <= 1.05)"
