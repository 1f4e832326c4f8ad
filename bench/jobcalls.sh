#!/usr/bin/env bash
# What one job of the default executor asks of the kernel and of OpenCL (issue 36): the
# FFT filter's steps at N=16 (as bench/jobcost.sh), one run and RUNS runs; the difference
# divided by the jobs of RUNS-1 runs is per job.
#   - system calls per job of the shell's process and of each worker process (strace -ff;
#     a worker's OpenCL driver threads are counted apart: their futex calls are the driver's)
#   - OpenCL calls per job, all processes together (bench/clcount.c, an LD_PRELOAD counter)
#
#   bench/jobcalls.sh [--device cpu|gpu] [RUNS]     (default: 21 runs)
#
# CARSH names the carsh measured. Both carsh run with CARSH_SERVER=off: the workers are the
# shell's children, traced with it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
fftref=${FFTREF:-$build/tests/tools/fftref}
device=
if [ "${1:-}" = --device ]; then
	device=$2
	shift 2
fi
runs=${1:-21}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" CARSH_SERVER=off

. "$top/bench/jobcost-lib.sh"
per=$((jobs * (runs - 1)))
# shellcheck disable=SC2086
run() { "$carsh" ${device:+--device $device} "$@" >/dev/null; }
echo "carsh: $carsh; device: ${device:-the default}; $jobs jobs a run, $runs runs: per job"
run "$work/one.csh" # the programs built and cached before anything is counted

# ---- system calls: each thread's calls in the RUNS-run session minus the 1-run's ----
calls_of() { # SCRIPT DIR: "thread syscall count" lines
	mkdir -p "$2"
	strace -ff -qq -e trace=all -o "$2/t" "$carsh" ${device:+--device $device} "$1" >/dev/null
	for f in "$2"/t.*; do
		sed -E -n 's/^([a-z_0-9]+)\(.*/\1/p' "$f" | sort | uniq -c |
			awk -v p="${f##*.}" '{ print p, $2, $1 }'
	done
}
if command -v strace >/dev/null; then
	calls_of "$work/one.csh" "$work/s1" >"$work/calls1.txt"
	calls_of "$work/many.csh" "$work/sN" >"$work/callsN.txt"
	# Each thread by what it calls: getcwd (once a job), the shell's main thread; recvmsg
	# or sendmsg, a worker's main thread; the rest, the OpenCL driver's threads, a worker's
	# feeder thread (on a GPU) and the shell's spawner.
	role() { # FILE: "role syscall count", summed over the threads of each role
		awk 'FNR == NR { if ($2 == "getcwd") sh[$1] = 1
				if ($2 == "recvmsg" || $2 == "sendmsg") io[$1] += $3; next }
			{ r = sh[$1] ? "shell" : (io[$1] > 0 ? "worker" : "driver+other")
			  s[r " " $2] += $3 }
			END { for (k in s) print k, s[k] }' "$1" "$1"
	}
	role "$work/calls1.txt" >"$work/r1.txt"
	role "$work/callsN.txt" >"$work/rN.txt"
	awk -v per="$per" 'FNR == NR { a[$1 " " $2] = $3; next }
		{ k = $1 " " $2; d = ($3 - a[k]) / per; if (d >= 0.05) { t[$1] += d; l[$1] = l[$1] sprintf(" %s %.2f", $2, d) } }
		END { for (r in t) printf "syscalls %-14s %6.2f:%s\n", r, t[r], l[r] }' \
		"$work/r1.txt" "$work/rN.txt" | sort
else
	echo "syscalls: strace not installed"
fi

# ---- OpenCL calls ----
if cc -O1 -shared -fPIC -o "$work/clcount.so" "$top/bench/clcount.c" -ldl 2>"$work/cc.txt"; then
	names=$(sed -n -E 's/^\s*X\([0-9]+, (cl[A-Za-z]+)\).*/\1/p' "$top/bench/clcount.c")
	count() { # SCRIPT DIR: the counts summed over processes, in names' order
		mkdir -p "$2"
		CLCOUNT_DIR=$2 LD_PRELOAD=$work/clcount.so run "$1"
		python3 -c 'import glob, struct, sys
n = int(sys.argv[2]); tot = [0] * n
for f in glob.glob(sys.argv[1] + "/cl.*"):
    v = struct.unpack("%dq" % n, open(f, "rb").read()[:8 * n])
    tot = [a + b for a, b in zip(tot, v)]
print(" ".join(map(str, tot)))' "$2" "$(echo "$names" | wc -l)"
	}
	a=$(count "$work/one.csh" "$work/c1")
	b=$(count "$work/many.csh" "$work/cN")
	paste <(echo "$names") <(echo "$a" | tr ' ' '\n') <(echo "$b" | tr ' ' '\n') |
		awk -v per="$per" '{ d = ($3 - $2) / per; if (d >= 0.005) { t += d; l = l sprintf(" %s %.2f", $1, d) } }
			END { printf "opencl   %6.2f:%s\n", t, l }'
else
	echo "opencl: cannot build bench/clcount.c: $(cat "$work/cc.txt")"
fi
