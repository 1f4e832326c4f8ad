#!/usr/bin/env bash
# The GPU figures of the docs in one device-tool call (the device time is scarce): each part
# has its own time limit and writes its output to $OUT as it goes, so a part cut short still
# leaves what it measured.
#   bench/gpu-session.sh           (from the repository root, on the GPU machine)
# Expects the build in $BUILDDIR (carsh/carsh, tests/tools/fftref) and libcsv on
# LD_LIBRARY_PATH; registers NVIDIA's OpenCL driver with the ICD loader.
set -uo pipefail
out=${OUT:-/tmp/gpu-session}
mkdir -p "$out" /etc/OpenCL/vendors
[ -e /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
export OPENCL_LIBS=${OPENCL_LIBS:--l:libOpenCL.so.1}
carsh=${BUILDDIR:?}/carsh/carsh
part() { # NAME SECONDS COMMAND...
	local name=$1 secs=$2
	shift 2
	echo "== $name" | tee -a "$out/summary.txt"
	timeout "$secs" "$@" >"$out/$name.txt" 2>&1
	echo "   exit $? after $SECONDS s in all" | tee -a "$out/summary.txt"
	tail -25 "$out/$name.txt"
}
{ nproc; nvidia-smi -L; "$carsh" -c devices; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
part threads-gpu 230 bench/threads.sh --device gpu 3 128 256 512 1024
cp docs/img/threads-gpu.png "$out/" 2>/dev/null
part fft-batch-gpu 150 env CARSH_DEVICE=gpu bench/fft-batch.sh 2 128 512 1024
part threads-cpu16 150 bench/threads.sh --device cpu 3 128 512 1024
cp docs/img/threads-cpu.png "$out/" 2>/dev/null
