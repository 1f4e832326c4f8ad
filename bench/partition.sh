#!/usr/bin/env bash
# Issue "Adaptive partitioning" (003): the partition engine's schedulers -- LogFit (003 §4),
# the baselines Static (profiled 0-100 % in 10 % steps), Concord and HDSS (003 §5.1), and the
# CPU cores or the GPU alone -- on four benchmarks: N-body (regular), SpMV on a CSR matrix
# with skewed row lengths (fine-grained irregular), Mandelbrot (coarse-grained irregular),
# cut-off neighbour forces (irregular interaction counts) and a 2-D Jacobi step (regular, a
# W x H space split by rows), for 1 ... cores+1 threads (thread 1
# drives the GPU, the others are single-core sub-devices of the CPU: 003 §5). Prints the time
# (and the energy where NVML or RAPL give it) per scheduler and thread count, the issue's
# targets at the largest thread count run (LogFit vs the best Static, Concord and HDSS), and draws
# time vs threads and the chunk traces with gnuplot. Each configuration runs REPEATS times, in
# rounds of one run of every scheduler (their order turned by one each round), in one carsh
# after one unrecorded warm-up run, and its median counts. Beside each LogFit / Static target
# it prints Static against itself (its odd rounds' median over its even ones: the machine's
# noise) and whether LogFit ran the very chunks Static ran. Static's share
# is chosen by its 0-100 % profile first (PROFILES of them in a row: the share whose
# median over them is least) and then run REPEATS times like the others (the profile's own
# best time is the least of eleven runs, and an unfair reference). Results are
# kept as they come, so a run cut short by its budget still reports what it measured.
# Before the timed runs of each benchmark, one LogFit run with every device writes its
# outputs, which are compared with the C reference (tests/tools/partref) at the end.
#
#   bench/partition.sh [--quick]          (--quick: 4 thread counts, half the problem sizes)
#
# Environment:
#   BUILDDIR   build tree with carsh/carsh (default: the source tree); CARSH overrides the binary
#   OUT        where results, traces and plots go (default $BUILDDIR/bench-partition)
#   BUDGET_S   seconds for the measurements (default 420): each benchmark gets its share, the
#              full thread count and 1 thread first, then the others from high to low; what
#              does not fit is skipped and said so
#   GPU        what plays the GPU: auto (default: every GPU; "cpu" where carsh sees no GPU: a
#              CPU core stands in), none, cpu, or device selectors (0,1)
#   GPUS       several GPUs (issue 23): passed as --gpu (e.g. all, or 0,1) to LogFit on N-body
#              and the 2-D benchmark at the full thread count, against GPU1 (default: gpu, the
#              first GPU) with the same cores, REPEATS times each, alternating; the ratio of
#              the medians is "over all GPUs + cores against 1 GPU + cores" (target >= 1.8 on
#              2 GPUs). Default: all where carsh sees two GPUs or accelerators, else skipped
#   THREADS    thread counts to run (default 1 ... max; --quick: 1 2 max/2+1 max)
#   SCHEDS     schedulers (default: logfit static concord hdss cpu gpu)
#   BENCHES    benchmarks to run (default: nbody spmv mandel neigh jacobi)
#   REPEATS    runs of each configuration, the median counts (default 3)
#   KB         empty: every LogFit and Marrow run starts with an empty knowledge base, as a
#              workload's first run does (default: each run finds what the runs before learnt)
#   PROFILES   Static's 0-100 % profiles per thread count; its share is the one whose median
#              over them is least (default 3: one profile's pick on the H200's Jacobi ran 16 %
#              slower than Static on the cores alone)
#   NBODY_N NBODY_STEPS SPMV_N SPMV_AVG SPMV_STEPS MANDEL_W MANDEL_H MANDEL_MAXIT MANDEL_STEPS
#   NEIGH_N NEIGH_G NEIGH_STEPS JACOBI_W JACOBI_H JACOBI_STEPS   problem sizes (defaults below)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
quick=0
[ "${1:-}" = --quick ] && quick=1
out=${OUT:-$build/bench-partition}
budget=${BUDGET_S:-420}
scheds=${SCHEDS:-logfit static concord hdss cpu gpu}
REPEATS=${REPEATS:-3}
PROFILES=${PROFILES:-3}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache}
fm=$top/flowmodels
t_start=$SECONDS

if [ $quick = 1 ]; then
	: "${NBODY_N:=6144}" "${SPMV_N:=65536}" "${MANDEL_W:=512}" "${MANDEL_H:=512}" "${NEIGH_N:=65536}"
	: "${JACOBI_W:=1024}" "${JACOBI_H:=1024}"
fi
: "${NBODY_N:=12288}" "${NBODY_STEPS:=4}"
: "${SPMV_N:=131072}" "${SPMV_AVG:=8}" "${SPMV_STEPS:=20}"
: "${MANDEL_W:=1024}" "${MANDEL_H:=1024}" "${MANDEL_MAXIT:=2048}" "${MANDEL_STEPS:=2}"
: "${NEIGH_N:=131072}" "${NEIGH_G:=32}" "${NEIGH_STEPS:=2}"
: "${JACOBI_W:=2048}" "${JACOBI_H:=2048}" "${JACOBI_STEPS:=10}"

partref=$build/tests/tools/partref
if [ ! -x "$partref" ]; then
	cc -O2 -ffp-contract=off -o "$work/partref" "$top/tests/tools/partref.c" -lm
	partref=$work/partref
fi

# ---- the machine: a GPU or a core standing in for one, and the thread counts ----
if [ -z "${GPU:-}" ]; then
	if "$carsh" -c devices | awk 'NR > 1 && ($2 == "gpu" || $2 == "accelerator") { f = 1 } END { exit !f }'; then
		GPU=auto
	else
		GPU=cpu
	fi
fi
jget() { # KEY < one JSON line: the value (a number, null, true/false or a string)
	sed -nE 's/.*"'"$1"'":("[^"]*"|null|true|false|-?[0-9][0-9.eE+-]*).*/\1/p' | tr -d '"'
}
probe=$("$carsh" partition --json --no-progress --gpu "$GPU" --sched cpu "$fm/part_mandel.xml" \
	count=discard W=64 H=1 MAXIT=1 2>&1) || { echo "partition does not run: $probe" >&2; exit 1; }
cores=$(jget cpu_cores <<<"$probe")
max=$((cores + 1))
[ "$GPU" = none ] && max=$cores
gpu_name=$("$carsh" partition --json --no-progress --gpu "$GPU" --sched gpu "$fm/part_mandel.xml" \
	count=discard W=64 H=1 MAXIT=1 2>/dev/null | sed -nE 's/.*"label":"gpu0?","name":"([^"]*)".*/\1/p' || true)
cpu_name=$(sed -nE 's/.*"label":"cpu0","name":"([^"]*)".*/\1/p' <<<"$probe")
ngpus=$("$carsh" -c devices 2>/dev/null | awk 'NR > 1 && ($2 == "gpu" || $2 == "accelerator") { n++ } END { print n + 0 }') || ngpus=1
[ -z "${GPUS:-}" ] && [ "$ngpus" -ge 2 ] && GPUS=all
GPU1=${GPU1:-gpu}
if [ -n "${THREADS:-}" ]; then
	threads=$THREADS
elif [ $quick = 1 ]; then
	threads=$(printf '%s\n' 1 2 $((max / 2 + 1)) "$max" | sort -nu | tr '\n' ' ')
else
	threads=$(seq 1 "$max" | tr '\n' ' ')
fi
echo "machine: GPU ${gpu_name:-none} (--gpu $GPU), CPU $cpu_name: $cores cores; threads: $threads"
echo "budget ${budget}s; results in $out"

# ---- data, and executables bound to virtual buffers (filled once per benchmark) ----
mkdir -p "$work"/{nbody,spmv,mandel,neigh,jacobi}
"$partref" nbody-gen "$NBODY_N" 1 "$work/nbody"
SPMV_NNZ=$("$partref" spmv-gen "$SPMV_N" "$SPMV_AVG" 1 "$work/spmv")
NEIGH_RC2=$("$partref" neigh-gen "$NEIGH_N" "$NEIGH_G" 1 "$work/neigh")
"$partref" jacobi2d-gen "$JACOBI_W" "$JACOBI_H" 1 "$work/jacobi"

exe() { # NAME FLOWMODEL SWAPS STREAMS...: an executable with every stream on a buffer
	local name=$1 f=$2 swaps=$3 s
	shift 3
	{
		echo "<CarshExe><FlowModel file=\"$fm/$f\"/>"
		for s in "$@"; do
			echo "<${s%%:*} name=\"${s#*:}\"><Buffer>${s#*:}</Buffer></${s%%:*}>"
		done
		[ -n "$swaps" ] && echo "<Swap count=\"1\">$swaps</Swap>"
		echo "</CarshExe>"
	} >"$work/$name.exe.xml"
}
exe nbody part_nbody.xml '<SwapPair input="pos" output="pos_next"/><SwapPair input="vel" output="vel_next"/>' \
	Input:pos Input:vel Output:pos_next Output:vel_next
exe spmv part_spmv.xml '<SwapPair input="x" output="y"/>' \
	Input:row_ptr Input:col Input:val Input:x Output:y
exe mandel part_mandel.xml '' Output:count
exe neigh part_neigh.xml '' Input:pos Input:cell_of Input:cell_start Output:force
exe jacobi part_jacobi2d.xml '<SwapPair input="u" output="u_next"/>' Input:u Input:f Output:u_next

# What each benchmark's carsh script starts with: its buffers, filled.
prologue() {
	local d=$work/$1
	case $1 in
	nbody)
		echo "virtbuf create pos float4 $NBODY_N; virtbuf fill pos $d/pos.csv"
		echo "virtbuf create vel float4 $NBODY_N; virtbuf fill vel $d/vel.csv"
		echo "virtbuf create pos_next float4 $NBODY_N; virtbuf create vel_next float4 $NBODY_N"
		;;
	spmv)
		echo "virtbuf create row_ptr int $((SPMV_N + 1)); virtbuf fill row_ptr $d/row_ptr.csv"
		echo "virtbuf create col int $SPMV_NNZ; virtbuf fill col $d/col.csv"
		echo "virtbuf create val float $SPMV_NNZ; virtbuf fill val $d/val.csv"
		echo "virtbuf create x float $SPMV_N; virtbuf fill x $d/x.csv; virtbuf create y float $SPMV_N"
		;;
	mandel) echo "virtbuf create count int $((MANDEL_W * MANDEL_H))" ;;
	neigh)
		echo "virtbuf create pos float4 $NEIGH_N; virtbuf fill pos $d/pos.csv"
		echo "virtbuf create cell_of int $NEIGH_N; virtbuf fill cell_of $d/cell_of.csv"
		echo "virtbuf create cell_start int $((NEIGH_G * NEIGH_G * NEIGH_G + 1))"
		echo "virtbuf fill cell_start $d/cell_start.csv; virtbuf create force float4 $NEIGH_N"
		;;
	jacobi)
		echo "virtbuf create u float $((JACOBI_W * JACOBI_H)); virtbuf fill u $d/u.csv"
		echo "virtbuf create f float $((JACOBI_W * JACOBI_H)); virtbuf fill f $d/f.csv"
		echo "virtbuf create u_next float $((JACOBI_W * JACOBI_H))"
		;;
	esac
}
params() {
	case $1 in
	nbody) echo "--steps $NBODY_STEPS $work/nbody.exe.xml N=$NBODY_N" ;;
	spmv) echo "--steps $SPMV_STEPS $work/spmv.exe.xml N=$SPMV_N NNZ=$SPMV_NNZ" ;;
	mandel) echo "--steps $MANDEL_STEPS $work/mandel.exe.xml W=$MANDEL_W H=$MANDEL_H X0=-2.25 Y0=-1.5 STEP=$(awk -v w="$MANDEL_W" 'BEGIN { printf "%.9g", 3.0 / w }') MAXIT=$MANDEL_MAXIT" ;;
	neigh) echo "--steps $NEIGH_STEPS $work/neigh.exe.xml N=$NEIGH_N GX=$NEIGH_G GY=$NEIGH_G GZ=$NEIGH_G RC2=$NEIGH_RC2" ;;
	jacobi) echo "--steps $JACOBI_STEPS $work/jacobi.exe.xml W=$JACOBI_W H=$JACOBI_H H2=0.0001" ;;
	esac
}

# Before the timed runs (and as their warm-up): LogFit with every device, its outputs
# dumped to be compared with the C reference at the end.
check_run() {
	local d=$work/$1
	echo "partition --no-progress --gpu $GPU $(params "$1") >$d/check.txt"
	case $1 in
	nbody) echo "virtbuf dump pos_next $d/got_pos.csv; virtbuf dump vel_next $d/got_vel.csv" ;;
	spmv) echo "virtbuf dump y $d/got_y.csv" ;;
	mandel) echo "virtbuf dump count $d/got_count.csv" ;;
	neigh) echo "virtbuf dump force $d/got_force.csv" ;;
	jacobi) echo "virtbuf dump u_next $d/got_u.csv" ;;
	esac
}

# The order of the runs: the full thread count and 1 first, then from high to low.
ordered_threads() {
	local t
	for t in $threads; do [ "$t" = "$max" ] && echo "$t"; done
	for t in $threads; do [ "$t" = 1 ] && [ "$max" != 1 ] && echo 1; done
	for t in $(printf '%s\n' $threads | sort -nr); do [ "$t" != "$max" ] && [ "$t" != 1 ] && echo "$t"; done
	return 0
}
rotate() { # R WORD...: the words turned left by R - 1
	local r=$1
	shift
	local n=$#
	[ "$n" -gt 0 ] || return 0
	local k=$(((r - 1) % n)) i
	for ((i = 0; i < n; i++)); do
		echo "${@:$(((k + i) % n + 1)):1}"
	done
}
commands() { # BENCH [profile]: one partition command per line, "SCHED THREADS" first; with
	# "profile", only Static's 0-100 % profiles; else every scheduler REPEATS times, Static at the
	# share its profile chose ($work/BENCH.shares: "THREADS SHARE" lines)
	local b=$1 t s extra pre r n=1
	n=$REPEATS
	[ "${2:-}" = profile ] && n=$PROFILES
	for t in $(ordered_threads); do
		# Round by round, every scheduler once a round: a machine that drifts during the
		# benchmark (an H100's clocks, the host's other work) moves all of them alike.
		# The order turns by one each round, so that no scheduler always follows the same one.
		for r in $(seq 1 "$n"); do
			for s in $(rotate "$r" $scheds); do
				case $s in
				gpu) [ "$t" = 1 ] || [ "$GPU" = none ] || continue ;; # the GPU alone: once
				cpu) [ "$GPU" = none ] || [ "$t" -ge 2 ] || continue ;;
				esac
				[ "$GPU" = none ] && [ "$s" = gpu ] && continue
				if [ "${2:-}" = profile ]; then
					[ "$s" = static ] && echo "$s $t partition --json --no-progress --gpu $GPU --threads $t --sched static --gpu-share auto $(params "$b")"
					continue
				fi
				extra=
				if [ "$s" = static ]; then
					extra=$(awk -v t="$t" '$1 == t { printf "--gpu-share %g", 100 * $2 }' "$work/$b.shares" 2>/dev/null)
					[ -n "$extra" ] || continue # its profile did not run
				fi
				# the trace of the last round at the full thread count
				[ "$r" = "$n" ] && [ "$t" = "$max" ] && case $s in logfit | static | concord | hdss) extra="$extra --trace $out/trace-$b-$s.csv" ;; esac
				pre=
				[ "${KB:-}" = empty ] && case $s in logfit | marrow) pre="partition --profile forget $work/$b.exe.xml >/dev/null; " ;; esac
				echo "$s $t ${pre}partition --json --no-progress --gpu $GPU --threads $t --sched $s $extra $(params "$b")"
			done
		done
	done
}

# Runs a list of commands (commands' output) after the benchmark's prologue in one carsh,
# within SECONDS; appends the JSON lines to JSONL. The first command list also runs the check
# run; every list starts with one unrecorded LogFit run, so that no measured run pays a cold
# GPU (an H100 idle for a while runs its first kernels 2-3 times slower: measured, mandel
# 18.9 ms cold, 5.3 ms warm) or the first compilation of a kernel variant.
run_list() { # BENCH CMDS JSONL SECONDS [check]
	local b=$1 rc t0=$SECONDS
	{
		prologue "$b"
		[ "${5:-}" = check ] && check_run "$b"
		echo "partition --no-progress --gpu $GPU $(params "$b") >/dev/null"
		sed -E 's/^[a-z]+ [0-9]+ //' "$2"
	} >"$work/$b.csh"
	echo "== $b: $(wc -l <"$2") runs, up to ${4}s"
	set +e
	timeout --signal=TERM "$4" "$carsh" "$work/$b.csh" >>"$3" 2>"$work/$b.err"
	rc=$?
	set -e
	if [ $rc = 124 ]; then
		echo "   budget spent after $((SECONDS - t0))s: $(grep -c '"sched"' "$3") of $(wc -l <"$2") runs done; the rest is skipped"
	elif [ $rc != 0 ]; then
		echo "   carsh failed ($rc): $(tail -3 "$work/$b.err")"
	fi
}

results=$out/results.csv
echo "bench,sched,threads,time_ms,gpu_j,cpu_j,gpu_share,setup_ms" >"$results"
benches=${BENCHES:-nbody spmv mandel neigh jacobi}
left=$(echo $benches | wc -w)
for b in $benches; do
	share=$(((budget - (SECONDS - t_start)) / left))
	left=$((left - 1))
	[ "$share" -gt 10 ] || share=10
	t_bench=$SECONDS
	# Static's profiles first (with the check run), a third of the benchmark's time at most.
	commands "$b" profile >"$work/$b.pcmds"
	: >"$out/$b-profile.jsonl"
	run_list "$b" "$work/$b.pcmds" "$out/$b-profile.jsonl" $((share / 3 > 5 ? share / 3 : 5)) check
	# Static's share at each thread count: the least median over the profiles (one device
	# only: nothing was profiled, the share that ran)
	grep '"sched"' "$out/$b-profile.jsonl" | while read -r line; do
		p=$(sed -nE 's/.*"profile_ms":\[([^]]*)\].*/\1/p' <<<"$line" | tr , ' ')
		echo "$(jget threads <<<"$line") ${p:-S $(jget gpu_share <<<"$line")}"
	done | awk '
		function median(t, i,   m, k, j, x, a) {
			m = c[t, i]
			for (k = 1; k <= m; k++) a[k] = v[t, i, k]
			for (k = 2; k <= m; k++) { x = a[k]; for (j = k - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		{ if (!($1 in seen)) { seen[$1] = 1; ts[++nt] = $1 } }
		$2 == "S" { fixed[$1] = $3; next }
		{ for (i = 0; i < NF - 1; i++) v[$1, i, ++c[$1, i]] = $(i + 2); np[$1] = NF - 1 }
		END {
			for (k = 1; k <= nt; k++) {
				t = ts[k]
				if (t in fixed) { print t, fixed[t]; continue }
				best = -1
				for (i = 0; i < np[t]; i++) { m = median(t, i); if (best < 0 || m < bm) { best = i; bm = m } }
				print t, best / (np[t] - 1)
			}
		}' >"$work/$b.shares"
	commands "$b" >"$work/$b.cmds"
	: >"$out/$b.jsonl"
	left_s=$((share - (SECONDS - t_bench)))
	run_list "$b" "$work/$b.cmds" "$out/$b.jsonl" $((left_s > 5 ? left_s : 5))
	# the median of each configuration's repeats
	while read -r line; do
		printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$b" "$(jget sched <<<"$line")" "$(jget threads <<<"$line")" \
			"$(jget time_ms <<<"$line")" "$(jget gpu_j <<<"$line")" "$(jget cpu_j <<<"$line")" \
			"$(jget gpu_share <<<"$line")" "$(jget setup_ms <<<"$line")"
	done < <(grep '"sched"' "$out/$b.jsonl") >"$work/$b.runs.csv"
	sort -t, -k2,2 -k3,3n -k4,4g "$work/$b.runs.csv" | awk -F, '
		{ k = $2 "," $3; n[k]++; row[k, n[k]] = $0; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k } }
		END { for (i = 1; i <= nk; i++) { k = keys[i]; print row[k, int((n[k] + 1) / 2)] } }' >>"$results"
done

# ---- several GPUs (issue 23): all GPUs + cores against one GPU + cores ----
# LogFit at the full thread count (every core; each GPU has a thread of its own), in one
# carsh per benchmark after its warm-up, the two device sets alternating; the outputs of
# the last run over all GPUs are compared with the C reference below.
multi_gpu() { # BENCH SECONDS
	local b=$1 r
	{
		prologue "$b"
		echo "partition --no-progress --gpu $GPUS $(params "$b") >/dev/null"
		echo "partition --no-progress --gpu $GPU1 $(params "$b") >/dev/null"
		for r in $(seq 1 "$REPEATS"); do
			echo "partition --json --no-progress --gpu $GPU1 --sched logfit $(params "$b")"
			echo "partition --json --no-progress --gpu $GPUS --sched logfit $(params "$b")"
		done
		case $b in
		nbody) echo "virtbuf dump pos_next $work/nbody/mg_pos.csv" ;;
		jacobi) echo "virtbuf dump u_next $work/jacobi/mg_u.csv" ;;
		esac
	} >"$work/$b-mg.csh"
	set +e
	timeout --signal=TERM "$2" "$carsh" "$work/$b-mg.csh" >"$out/$b-multigpu.jsonl" 2>"$work/$b-mg.err"
	[ $? = 0 ] || echo "   $b over several GPUs: carsh failed or ran out of time: $(tail -2 "$work/$b-mg.err")"
	set -e
	grep '"sched"' "$out/$b-multigpu.jsonl" | while read -r line; do
		n=$(jget gpus <<<"$line")
		echo "$b,${n:-1},$(jget time_ms <<<"$line")"
	done
}
if [ -n "${GPUS:-}" ]; then
	echo
	echo "== several GPUs: --gpu $GPUS against --gpu $GPU1, $max threads, logfit"
	echo "bench,gpus,time_ms" >"$out/multigpu.csv"
	for b in nbody jacobi; do
		multi_gpu "$b" $((budget / 4 > 30 ? budget / 4 : 30)) >>"$out/multigpu.csv"
	done
	awk -F, 'NR > 1 { v[$1, $2, ++n[$1, $2]] = $3; if ($2 > g[$1]) g[$1] = $2 }
		function median(b, k,   m, i, j, x, a) {
			m = n[b, k]; for (i = 1; i <= m; i++) a[i] = v[b, k, i]
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
			return a[int((m + 1) / 2)]
		}
		END {
			split("nbody jacobi", B, " ")
			for (i = 1; i <= 2; i++) {
				b = B[i]
				if (!n[b, 1] || g[b] < 2 || !n[b, g[b]]) { print "  " b ": not measured"; continue }
				one = median(b, 1); all = median(b, g[b])
				printf "  %-7s over all GPUs + cores against 1 GPU + cores: %.2fx (%d GPUs %.2f ms, 1 GPU %.2f ms; target >= 1.8 on 2 GPUs: %s)\n",
					b, one / all, g[b], all, one, (one / all >= 1.8) ? "met" : "MISSED"
			}
		}' "$out/multigpu.csv" | tee "$out/multigpu.txt"
fi

# ---- the results of the check runs against the C references ----
refcmp=$build/tests/tools/ref
if [ ! -x "$refcmp" ]; then
	cc -O2 -o "$work/ref" "$top/tests/tools/ref.c" -lm
	refcmp=$work/ref
fi
check() { # BENCH GOT WANT TOL
	if [ ! -s "$2" ]; then
		echo "  $1: no output to check (the check run did not finish)"
	elif "$refcmp" cmp "$2" "$3" "$4" >"$work/cmp.txt" 2>&1; then
		echo "  $1: $(cat "$work/cmp.txt") (tolerance $4): ok"
	else
		echo "  $1: $(cat "$work/cmp.txt") (tolerance $4): FAILED"
	fi
}
echo
echo "results of 'partition --sched logfit' with every device against the C references:"
{
	d=$work/nbody
	mkdir -p "$d/ref" && cp "$d/pos.csv" "$d/vel.csv" "$d/ref/"
	"$partref" nbody "$NBODY_N" "$NBODY_STEPS" 0.001 0.0001 "$d/ref"
	check nbody "$d/got_pos.csv" "$d/ref/pos_ref.csv" 1e-3
	d=$work/spmv
	mkdir -p "$d/ref" && cp "$d"/*.csv "$d/ref/"
	"$partref" spmv "$SPMV_N" "$SPMV_STEPS" "$d/ref"
	check spmv "$d/got_y.csv" "$d/ref/y_ref.csv" 1e-5
	"$partref" mandel "$MANDEL_W" "$MANDEL_H" -2.25 -1.5 "$(awk -v w="$MANDEL_W" 'BEGIN { printf "%.9g", 3.0 / w }')" \
		"$MANDEL_MAXIT" >"$work/mandel/ref_count.csv"
	check mandel "$work/mandel/got_count.csv" "$work/mandel/ref_count.csv" 0
	d=$work/neigh
	mkdir -p "$d/ref" && cp "$d"/*.csv "$d/ref/"
	"$partref" neigh "$NEIGH_N" "$NEIGH_G" "$NEIGH_RC2" 0.0001 "$d/ref"
	check neigh "$d/got_force.csv" "$d/ref/force_ref.csv" 1e-4
	d=$work/jacobi
	mkdir -p "$d/ref" && cp "$d"/*.csv "$d/ref/"
	"$partref" jacobi2d "$JACOBI_W" "$JACOBI_H" "$JACOBI_STEPS" 0.0001 "$d/ref"
	check jacobi "$d/got_u.csv" "$d/ref/u_ref.csv" 1e-5
	if [ -n "${GPUS:-}" ]; then
		check "jacobi over --gpu $GPUS" "$d/mg_u.csv" "$d/ref/u_ref.csv" 1e-5
		check "nbody over --gpu $GPUS" "$work/nbody/mg_pos.csv" "$work/nbody/ref/pos_ref.csv" 1e-3
	fi
} | tee "$out/check.txt"

# ---- tables ----
table() { # COLUMN TITLE
	local col=$1
	echo
	echo "$2"
	for b in $benches; do
		awk -F, -v b="$b" -v col="$col" -v scheds="$scheds" -v threads="$threads" '
			$1 == b && $col != "null" && $col != "" { v[$2 " " $3] = $col; if ($2 == "gpu") g = $col }
			END {
				ns = split(scheds, S, " "); nt = split(threads, T, " ")
				printf "%-7s %7s", b, "threads"; for (i = 1; i <= ns; i++) printf " %10s", S[i]; printf "\n"
				for (j = 1; j <= nt; j++) {
					printf "%-7s %7d", "", T[j]
					for (i = 1; i <= ns; i++) {
						k = S[i] " " T[j]; x = (k in v) ? v[k] : (S[i] == "gpu" && g != "" ? g : "")
						if (x == "") printf " %10s", "-"; else printf " %10.2f", x
					}
					printf "\n"
				}
			}' "$results"
	done
}
table 4 "time (ms, median of $REPEATS warm runs; all steps, transfers included; static: at the share its 0-100 % profile chose; gpu: the GPU alone)"
if awk -F, 'NR > 1 && $5 != "null" && $5 != "" { f = 1 } END { exit !f }' "$results"; then
	table 5 "GPU energy (J, NVML) over the timed run"
else
	echo
	echo "GPU energy: not available here ($(jget gpu_note <<<"$probe"))"
fi
if awk -F, 'NR > 1 && $6 != "null" && $6 != "" { f = 1 } END { exit !f }' "$results"; then
	table 6 "CPU package energy (J, RAPL) over the timed run"
else
	echo "CPU energy: not available here ($(jget cpu_note <<<"$probe"))"
fi
echo
echo "static: the GPU share its profile chose"
awk -F, 'NR > 1 && $2 == "static" { printf "  %-7s %3d threads: %3.0f %%\n", $1, $3, 100 * $7 }' "$results"

# ---- the targets (at the largest thread count run; issue 20) ----
echo
# at the largest thread count run (THREADS=2 with a core standing in: both devices)
most=$(printf '%s\n' $threads | sort -n | tail -1)
# What tells a loss from the machine's noise, per benchmark: whether LogFit ran the very chunks
# Static ran (the same chunks and items on every device in every run), and Static against
# itself (the median of its odd rounds over that of its even ones).
chunks_of() { # < JSON lines: each run's chunks and items per device that ran any, a line each
	while read -r line; do
		grep -oE '"label":"[^"]*"|"chunks":[0-9]+|"items":[0-9]+' <<<"${line#*\"devices\"}" |
			paste -d ' ' - - - | grep -v '"chunks":0 ' | tr '\n' ' '
		echo
	done
}
for b in $benches; do
	at_most() { grep "\"sched\":\"$1\"" "$out/$b.jsonl" | grep "\"threads\":$most," || true; }
	same=$( { at_most logfit; at_most static; } | chunks_of | sort -u | wc -l)
	at_most static | jget time_ms | awk -v b="$b" -v same="$same" '
		function median(a, m,   i, j, x) {
			for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		{ if (NR % 2) o[++no] = $1; else e[++ne] = $1 }
		END { print b, (same == 1), (ne ? median(o, no) / median(e, ne) : 0) }'
done >"$work/noise.txt"
echo "targets at $most threads (medians; speedup of LogFit = time(other) / time(logfit) - 1):"
awk -F, -v max="$most" -v noise="$work/noise.txt" '
	BEGIN { while ((getline l <noise) > 0) { split(l, f, " "); same[f[1]] = f[2]; aa[f[1]] = f[3] } }
	$3 == max && $4 != "" && $4 != "null" { t[$1 " " $2] = $4 }
	function has(b, s) { return (b " " s) in t }
	END {
		split("nbody spmv mandel neigh jacobi", B, " ")
		for (i = 1; i <= 5; i++) {
			if (!has(B[i], "logfit") || !has(B[i], "static")) { print "  " B[i] ": logfit or static not measured"; continue }
			x = t[B[i] " logfit"] / t[B[i] " static"]
			printf "  %-7s logfit / best static  = %.3f  (target <= 1.05: %s)", B[i], x, (x <= 1.05) ? "met" : "MISSED"
			if (aa[B[i]] > 0) printf "; static / itself %.3f", aa[B[i]]
			if (same[B[i]]) printf "; the same chunks as static in every run"
			printf "\n"
			if (has(B[i], "marrow")) {
				x = t[B[i] " marrow"] / t[B[i] " static"]
				printf "  %-7s marrow / best static  = %.3f  (target <= 1.02: %s)\n", B[i], x, (x <= 1.02) ? "met" : "MISSED"
			}
		}
		split("spmv mandel neigh", I, " ")
		for (i = 1; i <= 3; i++) for (k = 1; k <= 2; k++) {
			s = (k == 1) ? "concord" : "hdss"
			if (!has(I[i], "logfit") || !has(I[i], s)) continue
			x = t[I[i] " " s] / t[I[i] " logfit"] - 1
			printf "  %-7s logfit vs %-8s %+7.1f %%  (target >= +25 %%: %s)\n", I[i], s, 100 * x, (100 * x >= 25) ? "met" : "MISSED"
		}
	}' "$results" | tee "$out/targets.txt"

# ---- plots ----
if command -v gnuplot >/dev/null; then
	for b in $benches; do
		for s in $scheds; do
			awk -F, -v b="$b" -v s="$s" '$1 == b && $2 == s && $4 != "" { print $3, $4 }' "$results" |
				sort -n >"$work/plot-$b-$s.dat"
		done
	done
	{
		echo "set terminal pngcairo size 1100,1200 noenhanced"
		echo "set output '$out/partition-time.png'"
		echo "set multiplot layout 3,2 title 'partition: time vs threads (GPU ${gpu_name:-none}, $cores cores of $cpu_name)'"
		echo "set logscale y; set grid; set xlabel 'threads (1 = the GPU alone)'; set ylabel 'ms'; set key top right"
		for b in $benches; do
			echo "set title '$b'"
			printf "plot"
			sep=" "
			for s in $scheds; do
				printf "%s'%s' using 1:2 with linespoints title '%s'" "$sep" "$work/plot-$b-$s.dat" "$s"
				sep=", "
			done
			echo
		done
		echo "unset multiplot"
	} >"$work/time.gp"
	gnuplot "$work/time.gp" && echo "plot: $out/partition-time.png"
	for b in $benches; do
		for s in logfit static; do
			tr=$out/trace-$b-$s.csv
			[ -s "$tr" ] || continue
			# device rows: gpu at 0, cpuN at N+1; one segment per chunk
			awk -F, 'NR > 1 { d = $2 == "gpu" ? 0 : substr($2, 4) + 1; print $5, d, $6 - $5, $4, $8 == "sample" ? 1 : 0, $2 == "gpu" }' "$tr" >"$work/tr.dat"
			xmax=$(awk -F, 'NR > 1 && $6 > m { m = $6 } END { print m + 0 }' "$tr")
			gnuplot <<GP && echo "plot: $out/partition-trace-$b-$s.png"
set terminal pngcairo size 1100,700 noenhanced
set output "$out/partition-trace-$b-$s.png"
set multiplot layout 2,1 title "partition --sched $s, $b, $max threads: chunk trace"
set xlabel "ms"
set xrange [0:$xmax]
set ylabel "device (0 = gpu, k = cpu k-1)"
set yrange [-0.5:$max]
set grid x
unset key
plot "$work/tr.dat" using 1:2:3:(0):(int(\$2) % 8 + 1) with vectors nohead lw 6 lc variable
set ylabel "chunk size (items, log)"
set logscale y
set key top right
set yrange [*:*]
plot "$work/tr.dat" using 1:(\$6 == 1 ? \$4 : 1/0) with points pt 7 title "gpu", \
     "" using 1:(\$6 == 0 ? \$4 : 1/0) with points pt 6 title "cpu cores"
unset multiplot
GP
		done
	done
fi
echo "done in $((SECONDS - t_start))s"
