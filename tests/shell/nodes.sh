#!/bin/sh
# Two nodes in one machine (docs/scale-out.md "Across nodes", issue 42): two network
# namespaces, each with a mount namespace whose /dev/shm is a tmpfs of its own (the nodes
# share nothing but the network and the file system), joined by a veth pair on 10.200.0.0/24
# and no other link; Open MPI launched from node1 with a hostfile (2 slots each), reaching
# node2 through an rsh agent that enters its namespaces. Batches, a buffer written on a
# node1 rank and read on a node2 rank, a graph and a partition on 2 and 4 ranks give the
# bytes of a run without MPI; a rank killed on the other node is named by every survivor
# (rank, host, pid, the step) within a bounded time, and neither node's /dev/shm keeps a
# carsh segment; a rank alone on its node killed so has its node cleaned by the next rank
# there; with the link down, node1's ranks name a rank of node2 after CARSH_MPI_WATCH_MS
# without a heartbeat and node2's ranks remove their segments. Root only: skipped (77)
# where namespaces cannot be made or carsh has no MPI.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

if [ "$(id -u)" != 0 ] || ! command -v nsenter >/dev/null || ! command -v ip >/dev/null ||
	! unshare -n -m true 2>/dev/null; then
	echo "SKIP: needs root, unshare, nsenter and ip (network and mount namespaces)"
	exit 77
fi
if ! mpi_ready; then
	echo "SKIP: carsh built without MPI (configure found none) or no ${MPIRUN:-mpirun}"
	exit 77
fi

NET=10.200.0
N1='' N2=''
# Everything the test made goes, whatever happened: the launcher, the namespaces' holders
# (the veth pair and the tmpfs go with their namespaces).
teardown() {
	local p
	for p in $N1 $N2; do in_nodes "$p"; done | xargs -r kill -KILL 2>/dev/null
	[ -n "${MPID:-}" ] && kill -KILL "$MPID" 2>/dev/null
	wait 2>/dev/null
}
# in_nodes PID: every process in the network namespace of PID, PID itself too (a launcher
# that lost a node may outlive the test's wait).
in_nodes() {
	local ns q
	ns=$(readlink "/proc/$1/ns/net" 2>/dev/null) || return 0
	for q in /proc/[0-9]*; do
		[ "$(readlink "$q/ns/net" 2>/dev/null)" = "$ns" ] && echo "${q#/proc/}"
	done
}
trap teardown EXIT
trap 'exit 1' INT TERM HUP

# make_node NAME: a process holding new network, mount and UTS namespaces, /dev/shm a
# private tmpfs, hostname NAME; its pid is printed.
make_node() {
	unshare -n -m -u --propagation private sh -c \
		"mount -t tmpfs -o mode=1777 carsh-$1 /dev/shm && hostname $1 && echo up && exec sleep 600" \
		>"$T/$1.up" 2>&1 &
	echo $!
}
N1=$(make_node node1)
N2=$(make_node node2)
wait_until "the two nodes to start" grep -q up "$T/node1.up" "$T/node2.up" ||
	{ echo "SKIP: could not make the nodes: $(cat "$T"/node*.up)"; exit 77; }
# in_node PID COMMAND: COMMAND (a shell string) in the node's namespaces, from $T: entering a
# mount namespace resets the working directory.
in_node() {
	nsenter -t "$1" -n -m -u sh -c "cd '$T' && $2"
}
in_node "$N1" "ip link add nd1 type veth peer name nd2 netns /proc/$N2/ns/net" &&
	in_node "$N1" "ip addr add $NET.1/24 dev nd1 && ip link set nd1 up && ip link set lo up" &&
	in_node "$N2" "ip addr add $NET.2/24 dev nd2 && ip link set nd2 up && ip link set lo up" ||
	{ echo "SKIP: could not link the nodes"; exit 77; }
[ "$(in_node "$N2" hostname)" = node2 ] && [ -z "$(in_node "$N1" 'ls /dev/shm')" ] &&
	pass "two nodes: node1 and node2, each with an empty /dev/shm of its own" ||
	fail "the nodes: $(in_node "$N2" hostname), $(in_node "$N1" 'ls /dev/shm')"

# The rsh agent: mpirun calls it as `agent HOST COMMAND...`, as it would call ssh. Each node
# has its own binary cache (XDG_CACHE_HOME), as nodes that share no disk would.
cat >agent <<EOF
#!/bin/sh
host=\$1
shift
case \$host in
node1) pid=$N1 ;;
node2) pid=$N2 ;;
*) echo "agent: no node \$host" >&2; exit 1 ;;
esac
exec nsenter -t \$pid -n -m -u sh -c "cd '$T' && XDG_CACHE_HOME='$T/cache-\$host' && export XDG_CACHE_HOME && \$*"
EOF
chmod +x agent
printf 'node1 slots=2\nnode2 slots=2\n' >hosts
# Each rank notes its rank, pid and node, so that the test can find and check them.
printf '#!/bin/sh\necho "$OMPI_COMM_WORLD_RANK $$ $(hostname)" >>"%s/pids"\nexec "%s" "$@"\n' \
	"$T" "$CARSH" >carsh-rank
chmod +x carsh-rank
: >pids

# In a --enable-sanitizers build the ranks do not check for leaks: Open MPI's components
# keep memory no suppression can name (tests/tools/mpi-run says more).
case "${ASAN_OPTIONS:-}" in
*detect_leaks=1*) ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" && export ASAN_OPTIONS ;;
esac
# nodes_run NP [MPIRUN OPTIONS...] -- COMMAND...: COMMAND on NP ranks from node1 (2 per node
# in order: ranks 0 and 1 on node1; --map-by node alternates), bounded in time.
nodes_run() {
	local np=$1 opts=
	shift
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	in_node "$N1" "XDG_CACHE_HOME='$T/cache-node1' POCL_CPU_MAX_CU_COUNT=1 timeout -k 5 ${MPI_LIMIT:-300} \
		${MPIRUN:-mpirun} ${QUIET--q} --allow-run-as-root --hostfile hosts -np $np $opts \
		--mca plm_rsh_agent '$T/agent' --mca btl tcp,self \
		--mca btl_tcp_if_include $NET.0/24 --mca oob_tcp_if_include $NET.0/24 \
		--bind-to none -x POCL_CPU_MAX_CU_COUNT $*"
}

# shm_of NODE-PID: the carsh segments in that node's /dev/shm.
shm_of() {
	in_node "$1" 'ls /dev/shm' | grep '^carsh-' || true
}
nothing_left() {
	local left
	left="$(shm_of "$N1")$(shm_of "$N2")"
	[ -z "$left" ] && pass "$1: no carsh segment on either node" || fail "$1: segments left: $left"
	: >pids
}

# ---- batches: independent chains (buffers gathered on rank 0), 2 and 4 ranks ----
seq 1 1000 >x.csv
expect 0 "" "$CARSH" "$DATA/mpi/chains.bat.xml" X=x.csv && cp "$OUT" chains.plain
expect 0 "" nodes_run 2 --map-by node -- ./carsh-rank "$DATA/mpi/chains.bat.xml" X=x.csv &&
	same_file "$OUT" chains.plain "chains on 2 ranks, one a node: the bytes without MPI"
[ "$(awk '{ print $1 "@" $3 }' pids | sort | tr '\n' ' ')" = "0@node1 1@node2 " ] &&
	pass "2 ranks: rank 0 on node1, rank 1 on node2" || fail "2 ranks: $(cat pids)"
nothing_left "chains on 2 ranks"
expect 0 "" nodes_run 4 -- ./carsh-rank "$DATA/mpi/chains.bat.xml" X=x.csv &&
	same_file "$OUT" chains.plain "chains on 4 ranks, 2 a node: the bytes without MPI"
[ "$(awk '{ print $1 "@" $3 }' pids | sort | tr '\n' ' ')" = "0@node1 1@node1 2@node2 3@node2 " ] &&
	pass "4 ranks: 0 and 1 on node1, 2 and 3 on node2" || fail "4 ranks: $(cat pids)"
nothing_left "chains on 4 ranks"
[ -n "$(ls cache-node1 2>/dev/null)" ] && [ -n "$(ls cache-node2 2>/dev/null)" ] &&
	pass "each node filled its own binary cache" || fail "binary caches: $(ls cache-node1 cache-node2)"

# ---- a buffer written on a node1 rank (1) and read on a node2 rank (2) ----
# p = X on rank 0; rank 1 writes q = p + 1; rank 2 reads q and writes r = q + 1 = X + 2.
cat >cross.bat.xml <<EOF
<CarshBat>
  <Param name="N" value="1000"/>
  <Virtbuf op="create" name="p" type="float" count="N"/>
  <Virtbuf op="create" name="q" type="float" count="N"/>
  <Virtbuf op="create" name="r" type="float" count="N"/>
  <Virtbuf op="create" name="z" type="float" count="N"/>
  <Command>virtbuf fill p x.csv</Command>
  <Exec rank="1"><CarshExe><FlowModel file="$DATA/fm/addone.xml"/>
    <Input name="x"><Buffer>p</Buffer></Input><Output name="y"><Buffer>q</Buffer></Output>
    <InOut name="z"><Buffer>z</Buffer></InOut></CarshExe></Exec>
  <Exec rank="2"><CarshExe><FlowModel file="$DATA/fm/addone.xml"/>
    <Input name="x"><Buffer>q</Buffer></Input><Output name="y"><Buffer>r</Buffer></Output>
    <InOut name="z"><Buffer>z</Buffer></InOut></CarshExe></Exec>
  <Virtbuf op="dump" name="r"/>
</CarshBat>
EOF
awk '{ print $1 + 2 }' x.csv >cross.want
expect 0 "" "$CARSH" cross.bat.xml && same_file "$OUT" cross.want "a buffer across ranks without MPI: X + 2"
expect 0 "" nodes_run 4 -- ./carsh-rank cross.bat.xml &&
	same_file "$OUT" cross.want "a buffer written on node1 (rank 1), read on node2 (rank 2): X + 2"
nothing_left "a buffer across nodes"

# ---- a pipeline graph (k-means, a feedback edge) and a partition (N-body) ----
KMEANS="$TOP_SRCDIR/batches/graphs/kmeans.xml"
expect 0 "" "$CARSH" "$KMEANS" --items 4 image=k{i}.csv
for np in 2 4; do
	expect 0 "" nodes_run $np --map-by node -- ./carsh-rank "$KMEANS" --items 4 image=k$np-{i}.csv
	for k in 0 1 2 3; do
		same_file k$np-$k.csv k$k.csv "k-means graph on $np ranks over 2 nodes, item $k: the bytes without MPI"
	done
	nothing_left "k-means on $np ranks"
done
sed "s|../../flowmodels|$FM|" "$TOP_SRCDIR/examples/partition/nbody.exe.xml" >nbody.exe.xml
mkdir -p data/nbody
"$TOP_BUILDDIR/tests/tools/partref" nbody-gen 384 7 data/nbody
expect 0 "" "$CARSH" partition --no-progress nbody.exe.xml N=384 &&
	cat data/nbody/pos_out.csv data/nbody/vel_out.csv >nbody.plain
for np in 2 4; do
	rm -f data/nbody/*_out.csv
	expect 0 "" nodes_run $np --map-by node -- ./carsh-rank partition --no-progress nbody.exe.xml N=384 &&
		cat data/nbody/pos_out.csv data/nbody/vel_out.csv >nbody.np$np &&
		same_file nbody.np$np nbody.plain "partition N-body on $np ranks over 2 nodes: the bytes without MPI"
	nothing_left "partition on $np ranks"
done

# ---- a rank killed on the other node ----
# Every rank agrees once (<Sync/>: every rank has joined MPI and the watchdog), makes its
# buffers, places a job on the rank to be killed, then rank 0 reads standard input (no MPI
# call of its own: the state of issue 42) while the others wait to agree on that step.
wait_batch() { # RANK: the rank that runs the job
	cat <<EOF
<CarshBat>
  <Sync/>
  <Virtbuf op="create" name="a" type="float" count="4"/>
  <Virtbuf op="create" name="b" type="float" count="4"/>
  <Virtbuf op="create" name="z" type="float" count="4"/>
  <Exec rank="$1" background="true"><CarshExe><FlowModel file="$DATA/fm/addone.xml"/>
    <Param name="N" value="4"/><Input name="x"><Buffer>a</Buffer></Input>
    <Output name="y"><Buffer>b</Buffer></Output><InOut name="z"><Buffer>z</Buffer></InOut>
  </CarshExe></Exec>
  <Command>virtbuf fill a -</Command>
  <Virtbuf op="dump" name="a"/>
</CarshBat>
EOF
}
# kill_rank NP OPTS RANK LABEL: start wait.bat.xml on NP ranks, kill RANK once every rank
# made its buffers (and RANK's job was placed); then every survivor must name it within 5 s ($said: its lines).
kill_rank() {
	local np=$1 opts=$2 victim=$3 vpid vnode i
	wait_batch "$victim" >wait.bat.xml
	rm -f in.fifo
	mkfifo in.fifo
	# shellcheck disable=SC2086
	QUIET= nodes_run "$np" $opts -- ./carsh-rank wait.bat.xml <in.fifo >kill.out 2>kill.err &
	MPID=$!
	exec 7>in.fifo
	for i in $(seq 600); do # every rank made its three buffers (60 s at most)
		[ "$( (shm_of "$N1"; shm_of "$N2") | wc -l)" -ge $((3 * np)) ] && break
		sleep 0.1
	done
	vpid=$(awk -v r="$victim" '$1 == r { print $2 }' pids)
	vnode=$(awk -v r="$victim" '$1 == r { print $3 }' pids)
	kill -KILL "$vpid"
	said=
	for i in $(seq 50); do # 5 s at most
		said=$(grep -c "lost rank $victim on $vnode (pid $vpid)" kill.err)
		[ "$said" -ge $((np - 1)) ] && break
		sleep 0.1
	done
	[ "$said" -ge $((np - 1)) ] &&
		pass "$4: all $((np - 1)) survivors named rank $victim on $vnode within 5 s" ||
		fail "$4: $said of $((np - 1)) survivors named rank $victim in 5 s: $(cat kill.err)"
	wait $MPID
	KSTATUS=$?
	MPID=
	exec 7>&-
	VPID=$vpid
}
kill_rank 4 "" 2 "rank 2 killed on node2"
[ "$KSTATUS" -ne 0 ] && pass "the job failed ($KSTATUS)" || fail "the job ended with 0"
grep -q "carsh: rank 0: lost rank 2 on node2 (pid $VPID): its connection closed; its last job: wait.bat.xml, placed at wait.bat.xml:6: <Exec>; the ranks were at wait.bat.xml:10: <Command>; stopping every rank" kill.err &&
	pass "rank 0's message: $(grep 'carsh: rank 0:' kill.err)" ||
	fail "rank 0's message: $(cat kill.err)"
nothing_left "rank 2 killed on node2"

# Rank 1 alone on node2, killed by SIGKILL, leaves its segments there (nothing of it ran
# afterwards); the next rank started on node2 removes them.
kill_rank 2 "--map-by node" 1 "rank 1 alone on node2 killed"
left=$(shm_of "$N2")
[ -n "$left" ] && [ -z "$(echo "$left" | grep -v "^carsh-$VPID-")" ] && [ -z "$(shm_of "$N1")" ] &&
	pass "node2 holds only the killed rank's segments, node1 none" ||
	fail "after the kill: node1 $(shm_of "$N1"), node2 $left"
: >pids
expect 0 "" nodes_run 2 --map-by node -- ./carsh-rank -c 'echo ok'
nothing_left "the next rank on node2 removed them"

# ---- a rank lost before it joined MPI: the launcher names it, rank 0 says why it stops ----
# Rank 3 (node2) waits on a FIFO before it even runs carsh, so the others wait in MPI's start
# (rank 0's shell reading standard input meanwhile); it is killed there.
mkfifo hold.fifo
printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = 3 ] && echo "3 $$ $(hostname)" >>"%s/pids" && read -r _ <"%s/hold.fifo"\nexec ./carsh-rank "$@"\n' \
	"$T" "$T" >held-rank
chmod +x held-rank
wait_batch 1 >wait.bat.xml
rm -f in.fifo
mkfifo in.fifo
: >pids
QUIET= nodes_run 4 -- ./held-rank wait.bat.xml <in.fifo >held.out 2>held.err &
MPID=$!
exec 7>in.fifo
for i in $(seq 600); do # ranks 0 to 2 have their buffers, rank 3 waits (60 s at most)
	[ "$( (shm_of "$N1"; shm_of "$N2") | wc -l)" -ge 9 ] && grep -q '^3 ' pids && break
	sleep 0.1
done
kill -KILL "$(awk '$1 == 3 { print $2 }' pids)"
wait $MPID
status=$?
MPID=
exec 7>&-
[ $status -ne 0 ] && grep -q "mpirun noticed that process rank 3 with PID [0-9]* on node node2 exited on signal 9" held.err &&
	grep -q "^carsh: SIGTERM: stopping jobs and removing virtual buffers (before the ranks' watchdog was armed: a rank lost then is named by the launcher alone)\$" held.err &&
	pass "a rank lost before MPI started: named by the launcher, rank 0 says why it stopped" ||
	fail "a rank lost before MPI started: status $status: $(cat held.err)"
nothing_left "a rank lost before MPI started"

# ---- the link between the nodes lost: no heartbeat for CARSH_MPI_WATCH_MS ----
# Both ranks of node1 name a rank of node2, and node2's ranks, which lost rank 0, remove
# their segments. The launcher itself cannot reach node2's daemon and waits: it is ended here.
export CARSH_MPI_WATCH_MS=1500
wait_batch 3 >wait.bat.xml
rm -f in.fifo
mkfifo in.fifo
QUIET= nodes_run 4 -x CARSH_MPI_WATCH_MS -- ./carsh-rank wait.bat.xml <in.fifo >link.out 2>link.err &
MPID=$!
exec 7>in.fifo
for i in $(seq 600); do # every rank made its three buffers (60 s at most)
	[ "$( (shm_of "$N1"; shm_of "$N2") | wc -l)" -ge 12 ] && break
	sleep 0.1
done
in_node "$N2" "ip link set nd2 down"
for i in $(seq 100); do # 10 s at most
	[ "$(grep -c "carsh: rank [01]: lost rank [23] on node2 (pid [0-9]*): no heartbeat for 1500 ms" link.err)" -ge 2 ] &&
		[ -z "$(shm_of "$N2")" ] && break
	sleep 0.1
done
[ "$(grep -c "carsh: rank [01]: lost rank [23] on node2 (pid [0-9]*): no heartbeat for 1500 ms" link.err)" -ge 2 ] &&
	pass "link lost: ranks 0 and 1 named a rank of node2 within 10 s: $(grep -m1 'carsh: rank 0:' link.err)" ||
	fail "link lost: $(cat link.err)"
[ -z "$(shm_of "$N2")" ] && pass "link lost: node2's ranks removed their segments" ||
	fail "link lost: node2 keeps $(shm_of "$N2")"
in_nodes "$N1" | grep -vx "$N1" | xargs -r kill -KILL
in_nodes "$N2" | grep -vx "$N2" | xargs -r kill -KILL
wait $MPID
MPID=
exec 7>&-
nothing_left "link lost"
unset CARSH_MPI_WATCH_MS

finish
