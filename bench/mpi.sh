#!/usr/bin/env bash
# Scale-out on MPI (docs/scale-out.md), three ratios measured in one run, each the ratio of
# medians of RUNS runs taken alternately:
#   1. JOBS (64) independent flow-model jobs (part_mandel, W x W pixels, a batch of
#      background <Exec> steps, on the CPU device or JOBS_DEVICE): 4 ranks of CORES/4 PoCL
#      compute units each against 1 rank of CORES/4 (target >= 3.4); printed beside, the
#      same with the start and end of each taken off (carsh -c echo on 1 and on 4 ranks):
#      mpirun's start is paid once per MPI job, not per job it runs. JOBS_NP (4) ranks of
#      CORES/JOBS_NP: on a 2-core machine CORES=2 JOBS_NP=2 (ideal 2) oversubscribes nothing.
#      Printed too: the 1 rank against JOBS_NP carsh without MPI side by side, each with its
#      share of the jobs on one rank's CPUs (the ranks at no cost: what the machine allows),
#      and the CPUs each rank was bound to;
#   2. a 64 MiB virtual buffer moved between two ranks against bench/mpi_bare's bare
#      MPI_Send/MPI_Recv of the same bytes, per one-way move (target <= 1.2). A batch runs
#      MOVES jobs that each read the buffer the one before wrote, alternately on ranks 1
#      and 0, so that each job's input moves (MOVES moves); the same batch with every job
#      on rank 0 moves nothing; the difference over MOVES is the time of one move, each
#      batch timed inside the shell (`time --wall` on rank 0), after a start both share,
#      untimed as mpi_bare's first round is: a worker on each rank, MPI started, and one
#      move of each buffer each way, so that each rank's first touch of its two copies (a
#      page fault per 4 KiB, paid once per buffer and rank) is in neither (timed as whole
#      mpirun runs, the difference carried their start's spread: 0.3-2.2x the bare move
#      in one afternoon on the H100 machine). Printed beside,
#      the same against mpi_bare sending from a shared-memory object, a virtual buffer's
#      kind of memory (4 KiB pages where malloc's may be 2 MiB ones), with the THP settings;
#   3. the flagship batch (N x N) with -np 1 against without MPI, both with the shell's own
#      warm workers (target <= 1.05); printed beside, the same ratio with the start and end
#      of each taken off (carsh -c echo, under mpirun -np 1 and without): mpirun's own
#      start, 0.07 s on a small machine, is paid once per run, not per step (a rank of a
#      job of one does not initialise MPI, which cost 0.27 s more); and the launcher alone
#      (mpirun -np 1 true) against the flagship without MPI: the part of the ratio that
#      is paid before carsh starts (0.04-0.05 s on the GPU machine, 7 % of its flagship).
#
#   4. the FFT filter pipeline graph (batches/graphs/fft-filter.xml, GN x GN pictures,
#      GITEMS of them) pipelined over 4 ranks of CORES/4 compute units each against
#      serialized (--serial) on 1 rank of CORES/4, per result: the serialized time per
#      picture over the time between two results on rank 0 after the first (each rank
#      firing its runs as their inputs arrive), both from the runner's --report line
#      (target >= 2.5); printed beside, the same 4 ranks step by step (CARSH_GRAPH_STEPS=1:
#      one pass of the repeat batch while the pipeline is full, every rank agreeing on each
#      step), and the graph pipelined on 1 rank of CORES/4, to tell what the ranks add to
#      PEA-ST's own overlap.
#
#   5. partition N-body (flowmodels/part_nbody.xml, PN bodies, PSTEPS time steps, on the
#      cores: --gpu none) over 4 ranks of CORES/4 compute units each against 1 rank of
#      CORES/4: the engine's timed run (every step with its exchanges between the ranks,
#      "time_ms" of rank 0's --json; setup and program builds apart), reported; the outputs
#      of both are compared byte for byte.
#
#   bench/mpi.sh [RUNS]        (default 5; CORES=16 JOBS=64 JOBS_NP=4 W=512 MOVES=20 N=512 GN=256
#                               GITEMS=8, at least 7 for a full pass; PN=12288 PSTEPS=4;
#                               FIGURES="1 2 3 4 5" picks figures, e.g. FIGURES=5)
#
# MPIRUN (default mpirun) is the launcher: where Open MPI is only unpacked (dpkg -x), set
# OPAL_PREFIX, PATH and LD_LIBRARY_PATH and MPIRUN=$PREFIX/bin/mpirun. $CARSH (default:
# carsh/carsh of the source tree) is the carsh measured; bench/mpi_bare is built by make
# when configure found MPI.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
bare=${MPI_BARE:-$top/bench/mpi_bare}
mpirun=${MPIRUN:-mpirun}
runs=${1:-5}
cores=${CORES:-16}
jobs=${JOBS:-64}
jobs_np=${JOBS_NP:-4}
w=${W:-512}
moves=${MOVES:-20}
n=${N:-512}
gn=${GN:-256}
gitems=${GITEMS:-8}
pn=${PN:-12288}
psteps=${PSTEPS:-4}
figures=" ${FIGURES:-1 2 3 4 5} "
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
# Ranks never use the per-user server (docs/scale-out.md): neither does the run without MPI.
export CARSH_SERVER=off

. "$top/bench/timing-lib.sh"

[ -x "$bare" ] || { echo "mpi.sh: $bare not built (configure found no MPI?)" >&2; exit 1; }
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
# Each rank bound to CU CPUs of its own (its job workers inherit the binding): a rank with
# "4 cores" whose workers could spread over all 16 would measure nothing of the ranks. CPUs
# as nproc counts them (hardware threads): with 2 threads per core, PE=4 in cores gave a rank
# 8 CPUs, and ranks 2 and 3 the cores of ranks 0 and 1 (4 ranks had 2x the baseline's CPUs,
# not 4x); the CPUs each rank got are printed with the first figure.
mpi() { # NP CU COMMAND...: COMMAND on NP ranks of CU compute units each
	local np=$1 cu=$2
	shift 2
	POCL_CPU_MAX_CU_COUNT=$cu "$mpirun" $root -q --oversubscribe ${MPI_BIND:---use-hwthread-cpus --map-by slot:PE=$cu --bind-to hwthread:overload-allowed} -np "$np" "$@"
}
# cpus_of NP CU: the CPUs each of NP ranks of CU is bound to, in rank order ("0-3 | 4-7").
cpus_of() {
	# shellcheck disable=SC2016 # expanded by each rank's sh
	mpi "$1" "$2" sh -c 'echo "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}} $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"' |
		sort -n | awk '{ printf "%s%s", (NR > 1 ? " | " : ""), $2 }'
}
threads_per_core() { lscpu 2>/dev/null | sed -E -n 's/^Thread\(s\) per core: *//p'; }

# ---- 1. independent jobs ----
jobs_batch() { # COUNT
	echo '<CarshBat>'
	for ((i = 0; i < $1; i++)); do
		echo "  <Exec background=\"true\"><CarshExe><FlowModel file=\"$top/flowmodels/part_mandel.xml\"/>"
		echo "    <Param name=\"W\" value=\"$w\"/><Param name=\"H\" value=\"$w\"/>"
		echo '    <Output name="count"><Discard/></Output></CarshExe></Exec>'
	done
	echo '  <Sync/>'
	echo '</CarshBat>'
}
jobs_batch "$jobs" >"$work/jobs.bat.xml"
# The same jobs split into JOBS_NP batches, for as many carsh without MPI side by side.
jobs_batch $((jobs / jobs_np)) >"$work/jobs-part.bat.xml"

# ---- 2. a buffer moved: the same jobs, placed alternately (moves) or on rank 0 (none) ----
move_step() { # RANK: a job on RANK reads b and writes c; then they swap names
	echo "  <Exec rank=\"$1\"><CarshExe><FlowModel file=\"$top/flowmodels/scale.xml\"/>"
	echo "    <Param name=\"N\" value=\"$count\"/><Param name=\"A\" value=\"1\"/>"
	echo '    <Input name="x"><Buffer>b</Buffer></Input><Output name="y"><Buffer>c</Buffer></Output>'
	echo '  </CarshExe></Exec>'
	echo '  <Virtbuf op="swap" name="b" with="c"/>'
}
count=$((64 * 1024 * 1024 / 4))
# The buffers, and the start both variants share, untimed: a worker on each rank (a job on
# rank 1, one on rank 0), each buffer moved once each way (b to rank 1, its successor back to
# rank 0), and MPI started (at the first move); only the moves that follow differ.
{
	echo '<CarshBat>'
	echo "  <Virtbuf op=\"create\" name=\"b\" type=\"float\" count=\"$count\"/>"
	echo "  <Virtbuf op=\"create\" name=\"c\" type=\"float\" count=\"$count\"/>"
	echo '  <Virtbuf op="fill" name="b" value="1"/>'
	move_step 1
	move_step 0
	echo '</CarshBat>'
} >"$work/move-start.bat.xml"
move_batch() { # RANK_OF_EVEN_STEPS (1: every step's input moves; 0: none does)
	echo '<CarshBat>'
	for ((i = 0; i < moves; i++)); do
		move_step $((i % 2 ? 0 : $1))
	done
	echo '</CarshBat>'
}
move_batch 1 >"$work/move.bat.xml"
move_batch 0 >"$work/stay.bat.xml"

# ---- 3. the flagship on an N x N picture ----
awk -v n="$n" 'BEGIN { print "P2"; print n, n; print 255
	for (y = 0; y < n; y++) for (x = 0; x < n; x++) print (x * 7 + y * 13 + int(x * y / 5)) % 256 }' \
	>"$work/pic.pgm"
flag=("$top/batches/fft-filter/fft-filter.bat.xml" N="$n" IMAGE="$work/pic.pgm" OUT="$work/out.pgm")

# ---- 4. the FFT filter graph: GITEMS different pictures ----
for ((i = 0; i < gitems; i++)); do
	awk -v n="$gn" -v k="$i" 'BEGIN { print "P2"; print n, n; print 255
		for (y = 0; y < n; y++) for (x = 0; x < n; x++) print (x * (7 + k) + y * 13 + int(x * y / (5 + k))) % 256 }' \
		>"$work/g-$i.pgm"
done
graph=("$top/batches/graphs/fft-filter.xml" --items "$gitems" --report N="$gn" CUT=$((gn / 8))
	re="$work/g-{i}.pgm" re_next=discard im_next=discard)

# ---- 5. partition N-body: the data of tests/tools/partref (built here where make has not) ----
nbody_setup() {
	local partref=$top/tests/tools/partref
	if [ ! -x "$partref" ]; then
		cc -O2 -ffp-contract=off -o "$work/partref" "$top/tests/tools/partref.c" -lm
		partref=$work/partref
	fi
	mkdir -p "$work/nbody"
	"$partref" nbody-gen "$pn" 1 "$work/nbody"
	cat >"$work/nbody.exe.xml" <<EOF
<CarshExe>
  <FlowModel file="$top/flowmodels/part_nbody.xml"/>
  <Input  name="pos"><DataFile>nbody/pos.csv</DataFile></Input>
  <Input  name="vel"><DataFile>nbody/vel.csv</DataFile></Input>
  <Output name="pos_next"><DataFile>nbody/pos_out.csv</DataFile></Output>
  <Output name="vel_next"><DataFile>nbody/vel_out.csv</DataFile></Output>
  <Swap count="$((psteps - 1))">
    <SwapPair input="pos" output="pos_next"/><SwapPair input="vel" output="vel_next"/>
  </Swap>
</CarshExe>
EOF
}
if [[ $figures == *" 5 "* ]]; then nbody_setup; fi

cu=$((cores / 4))
[ "$cu" -ge 1 ] || cu=1
# On the cores (the figure is of ranks of CU cores each; a GPU would be shared by every rank).
jcu=$((cores / jobs_np))
[ "$jcu" -ge 1 ] || jcu=1
jobs1() { CARSH_DEVICE=${JOBS_DEVICE:-cpu} mpi 1 "$jcu" "$carsh" "$work/jobs.bat.xml"; }
jobs4() { CARSH_DEVICE=${JOBS_DEVICE:-cpu} mpi "$jobs_np" "$jcu" "$carsh" "$work/jobs.bat.xml"; }
# moves FILE BATCH: the start, then BATCH timed inside the shell (`time --wall` on rank 0:
# mpirun's and MPI's start and end, 100 ms and more from run to run, are no part of it);
# its time in ms appended to FILE.
moves() {
	mpi 2 "$cu" "$carsh" -c "run $work/move-start.bat.xml; time --wall run $2" \
		2>"$work/moves.err" >/dev/null || {
		echo "mpi.sh: the moves failed:" >&2
		cat "$work/moves.err" >&2
		exit 1
	}
	awk '$1 == "real" { print $2 }' "$work/moves.err" >>"$1"
}
# The third figure's one rank as the run without MPI: unbound (Open MPI binds one rank to a
# core by default), PoCL's compute units its own; mpirun is the only difference.
mpi_one() { "$mpirun" $root -q --bind-to none -np 1 "$@"; }
flag_mpi() { mpi_one "$carsh" "${flag[@]}"; }
flag_plain() { "$carsh" "${flag[@]}"; }
mpi_true() { mpi_one "$carsh" -c echo; }
# The launcher alone, no carsh: what any rank of a job of one pays before its program runs.
launcher_only() { mpi_one true; }
jobs1_true() { mpi 1 "$jcu" "$carsh" -c echo; }
jobs4_true() { mpi "$jobs_np" "$jcu" "$carsh" -c echo; }
# JOBS_NP carsh without MPI at once, each with its share of the jobs on the CPUs of one rank
# (rank_cpus): what the ranks would give if they cost nothing; beside the ranks' figure it
# tells the ranks' own cost from the machine's (drivers, memory, clocks).
jobs_apart() {
	local c pids=()
	for c in "${rank_cpus[@]}"; do
		CARSH_DEVICE=${JOBS_DEVICE:-cpu} POCL_CPU_MAX_CU_COUNT=$jcu taskset -c "$c" \
			"$carsh" "$work/jobs-part.bat.xml" &
		pids+=($!)
	done
	wait "${pids[@]}"
}
# graph NP MODE...: the graph on NP ranks; its --report line (rank 0's standard error).
graph_run() {
	local np=$1
	shift
	mpi "$np" "$cu" "$carsh" "${graph[@]}" "$@" 2>"$work/graph.err" >/dev/null || {
		echo "mpi.sh: the graph failed on $np rank(s) $*:" >&2
		cat "$work/graph.err" >&2
		exit 1
	}
	grep '^graph fft-filter:' "$work/graph.err"
}
field() { sed -E -n "s/.*$2.*/\1/p" <<<"$1"; }
graph_time() { # FILE REGEX NP MODE...: the number REGEX catches in the graph's report
	local out=$1 re=$2 line
	shift 2
	line=$(graph_run "$@")
	field "$line" "$re" >>"$out"
}
graph_serial() { graph_time "$work/g-serial" '; ([0-9.]+) ms per item' 1 --serial; }
graph_pipe1() { graph_time "$work/g-pipe1" 'passes ([0-9.]+) ms each' 1; }
graph_pipe4() { graph_time "$work/g-pipe4" 'after it ([0-9.]+) ms each' 4; }
# The same 4 ranks, step by step (every rank agrees on each step's outcome before the next).
graph_step4() { CARSH_GRAPH_STEPS=1 graph_time "$work/g-step4" 'passes ([0-9.]+) ms each' 4; }
# part NP: partition N-body on NP ranks of CU cores; appends rank 0's time_ms to part-NP and
# keeps the outputs as out-NP.
part() {
	local np=$1 out
	out=$(mpi "$np" "$cu" "$carsh" partition --no-progress --gpu none --json \
		"$work/nbody.exe.xml" N="$pn") || {
		echo "mpi.sh: partition failed on $np rank(s)" >&2
		exit 1
	}
	sed -E -n 's/.*"time_ms":([0-9.]+).*/\1/p' <<<"$out" >>"$work/part-$np"
	cat "$work/nbody/pos_out.csv" "$work/nbody/vel_out.csv" >"$work/out-$np"
}
want() { [[ $figures == *" $1 "* ]]; }
# The huge-page settings: malloc's 64 MiB gets 2 MiB pages where THP is "always", a
# shared-memory object only where shmem's is (docs/scale-out.md "Where the time goes").
thp() {
	local d=/sys/kernel/mm/transparent_hugepage
	printf 'THP %s, shmem %s' "$(sed -E 's/.*\[(.*)\].*/\1/' $d/enabled 2>/dev/null || echo ?)" \
		"$(sed -E 's/.*\[(.*)\].*/\1/' $d/shmem_enabled 2>/dev/null || echo ?)"
}
plain_true() { "$carsh" -c echo; }

# One untimed run of each builds the programs into the binary cache.
if want 1; then
	jobs1 >/dev/null
	jobs_cpus=$(cpus_of "$jobs_np" "$jcu")
	IFS='|' read -r -a rank_cpus <<<"${jobs_cpus// /}"
	command -v taskset >/dev/null || rank_cpus=()
fi
if want 2; then moves /dev/null "$work/move.bat.xml" && moves /dev/null "$work/stay.bat.xml"; fi
if want 3; then flag_plain >/dev/null && flag_mpi >/dev/null; fi
if want 4; then graph_run 1 >/dev/null; fi
if want 5; then part 1 && rm -f "$work/part-1"; fi
for ((r = 0; r < runs; r++)); do
	if want 1; then
		timed "$work/jobs1" jobs1
		timed "$work/jobs4" jobs4
		timed "$work/jobs1-true" jobs1_true
		timed "$work/jobs4-true" jobs4_true
		if [ ${#rank_cpus[@]} -gt 0 ]; then timed "$work/jobs-apart" jobs_apart; fi
	fi
	if want 2; then
		moves "$work/moved" "$work/move.bat.xml"
		moves "$work/stayed" "$work/stay.bat.xml"
		mpi 2 "$cu" "$bare" $((64 * 1024 * 1024)) 20 >>"$work/bare"
		mpi 2 "$cu" "$bare" $((64 * 1024 * 1024)) 20 shm >>"$work/bare-shm"
	fi
	if want 3; then
		timed "$work/flag-plain" flag_plain
		timed "$work/flag-mpi" flag_mpi
		timed "$work/true" mpi_true
		timed "$work/plain-true" plain_true
		timed "$work/launcher" launcher_only
	fi
	if want 4; then
		graph_serial
		graph_pipe4
		graph_step4
		graph_pipe1
	fi
	if want 5; then
		part 1
		part 4
	fi
done

m() { median <"$work/$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "bench/mpi.sh: median of $runs runs (ms); $cores cores, $cu compute units per rank in 1."
printf '%-58s %10s %10s %7s %s\n' figure measured against ratio target
if want 1; then
	j1=$(m jobs1) j4=$(m jobs4)
	printf '%-58s %10.1f %10.1f %7s %s\n' "1. $jobs jobs: 1 rank / $jobs_np ranks of $jcu CU (speed-up)" \
		"$j1" "$j4" "$(ratio "$j1" "$j4")" ">= 3.4"
	t1=$(m jobs1-true) t4=$(m jobs4-true)
	j10=$(awk -v a="$j1" -v b="$t1" 'BEGIN { print a - b }')
	j40=$(awk -v a="$j4" -v b="$t4" 'BEGIN { print a - b }')
	printf '%-58s %10.1f %10.1f %7s %s\n' "   the same, start and end taken off ($t1 / $t4 ms)" \
		"$j10" "$j40" "$(ratio "$j10" "$j40")" ">= 3.4"
	if [ -s "$work/jobs-apart" ]; then
		ja=$(m jobs-apart)
		printf '%-58s %10.1f %10.1f %7s %s\n' "   1 rank / $jobs_np carsh without MPI side by side" \
			"$j1" "$ja" "$(ratio "$j1" "$ja")" "(the ranks at no cost)"
	fi
	echo "   CPUs of the rank: $(cpus_of 1 "$jcu"); of the $jobs_np ranks: $jobs_cpus ($(threads_per_core) threads per core)"
fi
if want 2; then
	move=$(awk -v a="$(m moved)" -v b="$(m stayed)" -v k="$moves" 'BEGIN { printf "%.3f", (a - b) / k }')
	bare_ms=$(m bare)
	printf '%-58s %10.3f %10.3f %7s %s\n' "2. 64 MiB buffer move / bare MPI_Send+Recv (per move)" \
		"$move" "$bare_ms" "$(ratio "$move" "$bare_ms")" "<= 1.2"
	bare_shm=$(m bare-shm)
	printf '%-58s %10.3f %10.3f %7s %s\n' "   bare from shm instead ($(thp))" \
		"$move" "$bare_shm" "$(ratio "$move" "$bare_shm")" "(a buffer's pages)"
fi
if want 3; then
	fp=$(m flag-plain) fm=$(m flag-mpi) mt=$(m true) pt=$(m plain-true)
	printf '%-58s %10.1f %10.1f %7s %s\n' "3. flagship N=$n: -np 1 / without MPI" \
		"$fm" "$fp" "$(ratio "$fm" "$fp")" "<= 1.05"
	fm0=$(awk -v a="$fm" -v b="$mt" 'BEGIN { print a - b }')
	fp0=$(awk -v a="$fp" -v b="$pt" 'BEGIN { print a - b }')
	printf '%-58s %10.1f %10.1f %7s %s\n' "   the same, start and end taken off ($mt / $pt ms)" \
		"$fm0" "$fp0" "$(ratio "$fm0" "$fp0")" "<= 1.05"
	lo=$(m launcher)
	printf '%-58s %10.1f %10.1f %7s %s\n' "   the launcher alone (mpirun -np 1 true) / the flagship" \
		"$lo" "$fp" "$(ratio "$lo" "$fp")" "(paid before carsh starts)"
fi
if want 4; then
	gs=$(m g-serial) g4=$(m g-pipe4) g1=$(m g-pipe1) gt=$(m g-step4)
	printf '%-58s %10.1f %10.1f %7s %s\n' \
		"4. FFT graph N=$gn per result: serial 1 rank / pipelined 4" "$gs" "$g4" \
		"$(ratio "$gs" "$g4")" ">= 2.5"
	printf '%-58s %10.1f %10.1f %7s %s\n' "   4 ranks step by step / as inputs arrive" \
		"$gt" "$g4" "$(ratio "$gt" "$g4")" "(> 1: arriving wins)"
	printf '%-58s %10.1f %10.1f %7s %s\n' "   serial 1 rank / 4 ranks step by step" "$gs" "$gt" \
		"$(ratio "$gs" "$gt")" "(before)"
	printf '%-58s %10.1f %10.1f %7s %s\n' "   the same against pipelined on 1 rank of $cu CU" \
		"$gs" "$g1" "$(ratio "$gs" "$g1")" "(PEA-ST alone)"
fi
if want 5; then
	p1=$(m part-1) p4=$(m part-4)
	same=no
	cmp -s "$work/out-1" "$work/out-4" && same=yes
	printf '%-58s %10.1f %10.1f %7s %s\n' \
		"5. partition N-body N=$pn: 1 rank / 4 ranks of $cu CU" "$p1" "$p4" \
		"$(ratio "$p1" "$p4")" "(reported; outputs identical: $same)"
fi
