#!/bin/sh
# A full disk under PoCL's kernel cache (issue 40 item 9): PoCL's compiler cannot write the
# program it builds there and ends the process (exit 1). carsh passes on the driver's own
# line and says that the cache's disk is full, where, and what to do, under either executor
# and with the server on and off. The disk is a 64 KiB tmpfs mounted in a mount namespace of
# the test's own (it re-runs itself inside one); skipped where unshare cannot mount one.
if [ -z "${CARSH_CACHEFULL_NS:-}" ]; then
	if unshare -m --propagation private true 2>/dev/null; then
		CARSH_CACHEFULL_NS=1 exec unshare -m --propagation private sh "$0" "$@"
	fi
	echo "SKIP: unshare cannot make a mount namespace here (root or user namespaces needed)"
	exit 77
fi
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

mkdir -p full
if ! mount -t tmpfs -o size=64k carsh-full "$T/full" 2>/dev/null; then
	echo "SKIP: cannot mount a tmpfs here"
	exit 77
fi
XDG_CACHE_HOME="$T/full"
CARSH_SERVER_DIR="$T/srv"
CARSH_NO_CACHE=1
export XDG_CACHE_HOME CARSH_SERVER_DIR CARSH_NO_CACHE
unset POCL_CACHE_DIR
stop_all() { CARSH_SERVER= "$CARSH" server stop >/dev/null 2>&1; }
trap stop_all EXIT
seq 1 8 >x.csv
"$REF" scale 2 x.csv >want.csv
KC="$T/full/pocl/kcache"
full="carsh: the OpenCL driver ended the process while it built a program: the disk of PoCL's kernel cache $KC is full ("
todo="KiB free): free space there, or point POCL_CACHE_DIR (or XDG_CACHE_HOME) to a disk with room"

for server in off on; do
	export CARSH_SERVER=$server
	expect 1 "$full" "$CARSH" run "$FM/scale.xml" x=x.csv y=y.csv N=8
	grep -qF "$todo" "$ERR" && pass "it says what to do (server $server)" ||
		fail "stderr: $(cat "$ERR")"
	grep -q "No space left on device" "$ERR" &&
		pass "the driver's own line is passed on (server $server)" || fail "stderr: $(cat "$ERR")"
	if process_executor; then
		grep -qF "carsh: the worker ended (exit 1) before the job did" "$ERR" &&
			pass "the shell says its worker ended" || fail "stderr: $(cat "$ERR")"
	fi
	[ ! -e y.csv ] && pass "no output written" || fail "y.csv written: $(cat y.csv)"
done
stop_all
# Pointed to a disk with room, as told, the same run succeeds.
XDG_CACHE_HOME="$T/roomy"
expect 0 "" "$CARSH" run "$FM/scale.xml" x=x.csv y=y.csv N=8
same_file y.csv want.csv "with the cache on a disk with room"
stop_all
finish
