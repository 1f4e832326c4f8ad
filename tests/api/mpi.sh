#!/bin/sh
# CaravelaMPI in the embedding API (carsh.h; 004 §4.1, Table 4): examples/c-api/pingpong.c on
# two ranks, each running a flow-model on what it receives (rank 1 doubles, rank 0 adds 1);
# after 10 rounds rank 0 holds 2^10 (i + 1) - 1, the closed form the program checks. One
# rank is refused with a message. tests/api/check_mpi.c checks the other paths. Skipped (exit 77, shown as SKIP) without MPI.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

if ! mpi_ready; then
	echo "SKIP: carsh built without MPI (configure found none) or no ${MPIRUN:-mpirun}"
	exit 77
fi
PINGPONG="$TOP_BUILDDIR/tests/api/pingpong"

expect 0 "" mpi_run 2 "$PINGPONG" "$FM" &&
	if [ "$(cat "$OUT")" = "pingpong: 10 rounds, 0 of 1024 wrong" ]; then
		pass "ping-pong on 2 ranks: every value is 2^10 (i + 1) - 1"
	else
		fail "ping-pong printed: $(cat "$OUT")"
	fi
# A third rank has no part in it and waits at carsh_mpi_finalize.
expect 0 "" mpi_run 3 "$PINGPONG" "$FM" &&
	grep -q "^pingpong: 10 rounds, 0 of 1024 wrong$" "$OUT" &&
	pass "ping-pong on 3 ranks: the same result, rank 2 idle"
expect 0 "" mpi_run 2 "$TOP_BUILDDIR/tests/api/check_mpi" "$FM" &&
	if [ "$(cat "$OUT")" = "check_mpi: 0 failed" ]; then
		pass "buffers staged, a test loop, Calculate-Send and the refusals (tests/api/check_mpi.c)"
	else
		fail "check_mpi printed: $(cat "$OUT")"
	fi
expect 2 "pingpong: needs 2 ranks (mpirun -np 2), not 1" mpi_run 1 "$PINGPONG" "$FM"
exit $((FAILS > 0))
