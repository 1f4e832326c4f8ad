#!/usr/bin/env bash
# Two nodes on one machine (docs/scale-out.md "Across nodes", issue 42): the set-up of
# tests/shell/nodes.sh (network and mount namespaces with a private /dev/shm each, a veth
# pair on 10.200.0.0/24, Open MPI from node1 through an rsh agent), and three figures
# measured in one run, each a ratio of medians of RUNS runs taken alternately:
#   1. a 64 MiB virtual buffer moved between rank 0 (node1) and rank 1 (node2), per one-way
#      move, against bench/mpi_bare's bare MPI_Send/MPI_Recv of the same bytes over the same
#      link (target <= 1.2): MOVES jobs each reading the buffer the one before wrote on the
#      other node, less the same jobs all on rank 0, timed inside the shell (time --wall)
#      after an untimed start, as bench/mpi.sh's second figure;
#   2. JOBS (16) independent flow-model jobs on 2 ranks, one per node, against 2 ranks of
#      node1 (target <= 1.1), whole mpirun runs;
#   3. a rank killed on node2 while rank 0 reads standard input: the time from the kill
#      until every survivor has named it (target <= 3 s), against the 3 s target; beside
#      it, until mpirun's standard error has every line (the launcher's forwarding).
# On one machine both "nodes" share its cores and memory: the figures measure what crossing
# the namespaces' network and the watchdog cost, not a real network.
#
#   bench/nodes.sh [RUNS]   (default 5; MOVES=20 JOBS=16 W=256 NP_KILL=4)
#
# Root only (namespaces). MPIRUN (default mpirun); CARSH (default carsh/carsh of the tree).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
bare=${MPI_BARE:-$top/bench/mpi_bare}
mpirun=${MPIRUN:-mpirun}
runs=${1:-5}
moves=${MOVES:-20}
jobs=${JOBS:-16}
w=${W:-256}
np_kill=${NP_KILL:-4}
net=10.200.0
[ "$(id -u)" = 0 ] || { echo "nodes.sh: needs root (network and mount namespaces)" >&2; exit 1; }
[ -x "$bare" ] || { echo "nodes.sh: $bare not built (configure found no MPI?)" >&2; exit 1; }
work=$(mktemp -d)
. "$top/bench/timing-lib.sh"
export CARSH_SERVER=off

n1='' n2=''
cleanup() {
	for p in $n1 $n2; do kill -KILL "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
make_node() { # NAME: prints the pid holding the node's namespaces
	unshare -n -m -u --propagation private sh -c \
		"mount -t tmpfs -o mode=1777 carsh-$1 /dev/shm && hostname $1 && echo up && exec sleep 3600" \
		>"$work/$1.up" 2>&1 &
	echo $!
}
n1=$(make_node node1)
n2=$(make_node node2)
until grep -q up "$work/node1.up" "$work/node2.up" 2>/dev/null; do sleep 0.05; done
in_node() { nsenter -t "$1" -n -m -u sh -c "cd '$work' && $2"; }
in_node "$n1" "ip link add nd1 type veth peer name nd2 netns /proc/$n2/ns/net"
in_node "$n1" "ip addr add $net.1/24 dev nd1 && ip link set nd1 up && ip link set lo up"
in_node "$n2" "ip addr add $net.2/24 dev nd2 && ip link set nd2 up && ip link set lo up"
cat >"$work/agent" <<EOF
#!/bin/sh
host=\$1
shift
case \$host in node1) pid=$n1 ;; node2) pid=$n2 ;; *) exit 1 ;; esac
exec nsenter -t \$pid -n -m -u sh -c "cd '$work' && XDG_CACHE_HOME='$work/cache-\$host' && export XDG_CACHE_HOME && \$*"
EOF
chmod +x "$work/agent"
printf 'node1 slots=2\nnode2 slots=2\n' >"$work/hosts"
printf 'node1 slots=2\n' >"$work/hosts1"
# Each rank notes its pid, and writes its standard error to a file of its own as well as
# the launcher's (tee), so that a survivor's line is timed when it writes it, not when Open
# MPI's daemon forwards it (up to a second later once a rank of its node died).
printf '#!/bin/bash\necho "$OMPI_COMM_WORLD_RANK $$ $(hostname)" >>"%s/pids"\nexec "%s" "$@" 2> >(tee -a "%s/err.$OMPI_COMM_WORLD_RANK" >&2)\n' \
	"$work" "$carsh" "$work" >"$work/carsh-rank"
chmod +x "$work/carsh-rank"
# run_on HOSTFILE NP [OPTS] -- COMMAND...: from node1, quietly.
run_on() {
	local hosts=$1 np=$2 opts=
	shift 2
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	in_node "$n1" "XDG_CACHE_HOME='$work/cache-node1' POCL_CPU_MAX_CU_COUNT=1 $mpirun ${QUIET--q} \
		--allow-run-as-root --hostfile $hosts -np $np $opts --mca plm_rsh_agent '$work/agent' \
		--mca btl tcp,self --mca btl_tcp_if_include $net.0/24 --mca oob_tcp_if_include $net.0/24 \
		--bind-to none -x POCL_CPU_MAX_CU_COUNT -x CARSH_SERVER $*"
}

# ---- 1. the 64 MiB move (bench/mpi.sh's batches) ----
count=$((64 * 1024 * 1024 / 4))
move_step() {
	echo "  <Exec rank=\"$1\"><CarshExe><FlowModel file=\"$top/flowmodels/scale.xml\"/>"
	echo "    <Param name=\"N\" value=\"$count\"/><Param name=\"A\" value=\"1\"/>"
	echo '    <Input name="x"><Buffer>b</Buffer></Input><Output name="y"><Buffer>c</Buffer></Output>'
	echo '  </CarshExe></Exec>'
	echo '  <Virtbuf op="swap" name="b" with="c"/>'
}
{
	echo '<CarshBat>'
	echo "  <Virtbuf op=\"create\" name=\"b\" type=\"float\" count=\"$count\"/>"
	echo "  <Virtbuf op=\"create\" name=\"c\" type=\"float\" count=\"$count\"/>"
	echo '  <Virtbuf op="fill" name="b" value="1"/>'
	move_step 1
	move_step 0
	echo '</CarshBat>'
} >"$work/start.bat.xml"
move_batch() {
	echo '<CarshBat>'
	for ((i = 0; i < moves; i++)); do move_step $((i % 2 ? 0 : $1)); done
	echo '</CarshBat>'
}
move_batch 1 >"$work/move.bat.xml"
move_batch 0 >"$work/stay.bat.xml"
moves_ms() { # BATCH: its time inside the shell, in ms
	run_on hosts 2 --map-by node -- "$carsh" -c "'run start.bat.xml; time --wall run $1'" \
		2>&1 >/dev/null | awk '$1 == "real" { print $2 }'
}

# ---- 2. independent jobs ----
{
	echo '<CarshBat>'
	for ((i = 0; i < jobs; i++)); do
		echo "  <Exec background=\"true\"><CarshExe><FlowModel file=\"$top/flowmodels/part_mandel.xml\"/>"
		echo "    <Param name=\"W\" value=\"$w\"/><Param name=\"H\" value=\"$w\"/>"
		echo '    <Output name="count"><Discard/></Output></CarshExe></Exec>'
	done
	echo '  <Sync/>'
	echo '</CarshBat>'
} >"$work/jobs.bat.xml"
jobs_nodes() { CARSH_DEVICE=cpu run_on hosts 2 --map-by node -- "$carsh" jobs.bat.xml; }
jobs_node() { CARSH_DEVICE=cpu run_on hosts1 2 -- "$carsh" jobs.bat.xml; }

# ---- 3. a rank killed on node2 ----
cat >"$work/wait.bat.xml" <<'EOF'
<CarshBat>
  <Sync/>
  <Virtbuf op="create" name="a" type="float" count="4"/>
  <Command>virtbuf fill a -</Command>
</CarshBat>
EOF
kill_ms() { # the ms from the kill of rank NP_KILL-1 (node2) to the last survivor's line,
	# as the survivors wrote them, then as the launcher delivered them
	local m victim=$((np_kill - 1)) vpid t0 t1 t2
	: >"$work/pids"
	rm -f "$work"/err.*
	rm -f "$work/in.fifo"
	mkfifo "$work/in.fifo"
	QUIET= run_on hosts "$np_kill" -- ./carsh-rank wait.bat.xml <"$work/in.fifo" \
		>/dev/null 2>"$work/kill.err" &
	m=$!
	exec 7>"$work/in.fifo"
	until [ "$(in_node "$n1" 'ls /dev/shm' | wc -l)$(in_node "$n2" 'ls /dev/shm' | wc -l)" = \
		"$(((np_kill + 1) / 2))$((np_kill / 2))" ]; do sleep 0.05; done
	vpid=$(awk -v r=$victim '$1 == r { print $2 }' "$work/pids")
	t0=$(now_ms)
	kill -KILL "$vpid"
	until [ "$(cat "$work"/err.* | grep -c "lost rank $victim on node2")" -ge $((np_kill - 1)) ]; do
		sleep 0.01
	done
	t1=$(now_ms)
	until [ "$(grep -c "lost rank $victim on node2" "$work/kill.err")" -ge $((np_kill - 1)) ]; do
		sleep 0.01
	done
	t2=$(now_ms)
	wait "$m" || true
	exec 7>&-
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }'
	awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.1f\n", b - a }' >>"$work/kill-delivered"
}

jobs_nodes >/dev/null && jobs_node >/dev/null # the kernels built on each node
for ((r = 0; r < runs; r++)); do
	moves_ms move.bat.xml >>"$work/move"
	moves_ms stay.bat.xml >>"$work/stay"
	run_on hosts 2 --map-by node -- "$bare" $((count * 4)) "$moves" >>"$work/bare"
	timed "$work/jobs2" jobs_nodes
	timed "$work/jobs1" jobs_node
	kill_ms >>"$work/kill"
done
mv=$(median <"$work/move")
st=$(median <"$work/stay")
br=$(median <"$work/bare")
per=$(awk -v a="$mv" -v b="$st" -v n="$moves" 'BEGIN { printf "%.2f", (a - b) / n }')
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "nodes: $runs runs, medians; 2 nodes = network namespaces joined by a veth pair"
echo "1. 64 MiB move node1 -> node2, per move: $per ms (batch $mv - $st ms over $moves) / bare MPI $br ms = $(ratio "$per" "$br") (target <= 1.2)"
j2=$(median <"$work/jobs2")
j1=$(median <"$work/jobs1")
echo "2. $jobs jobs, 2 ranks on 2 nodes $j2 ms / 2 ranks on one node $j1 ms = $(ratio "$j2" "$j1") (target <= 1.1)"
k=$(median <"$work/kill")
echo "3. rank killed on node2, until every survivor named it: $k ms (max $(sort -g "$work/kill" | tail -1)) / 3000 ms = $(ratio "$k" 3000) (target <= 1)"
echo "   ... until the launcher delivered every line to mpirun's standard error: $(median <"$work/kill-delivered") ms"
