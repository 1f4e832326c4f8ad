#!/bin/sh
# rank="auto" across MPI ranks by forecast (docs/scale-out.md "Placement", issue 21): two
# independent background steps whose inputs rank 0 alone holds both go to rank 0 (most of
# their bytes) while the profile history does not know the flow-model; once it forecasts
# 10 ms a job, the second goes to the other rank, where it ends at 10 ms + the move of its
# 4000 bytes (at 1 GB/s) instead of 20 ms behind the first. The outputs on 1, 2 and 4 ranks
# are the bytes of a run without MPI, which are checked against y = x + 1 and z = x.
# Skipped (exit 77) where carsh was built without MPI.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

if ! mpi_ready; then
	echo "SKIP: carsh built without MPI (configure found none) or no ${MPIRUN:-mpirun}"
	exit 77
fi

# A history of this test's own: the records below are written by hand.
XDG_CACHE_HOME="$T/xdg"
export XDG_CACHE_HOME
mkdir -p "$XDG_CACHE_HOME/carsh"
BAT="$DATA/mpi/rankauto.bat.xml"
seq 1 1000 >x.csv
awk '{ y[NR] = $1 + 1; z[NR] = $1 } END {
	for (k = 0; k < 2; k++) { for (i = 1; i <= NR; i++) print y[i]; for (i = 1; i <= NR; i++) print z[i] }
}' x.csv >want.txt

# No history: most of the bytes, on rank 0; the same bytes as without MPI.
expect 0 "" "$CARSH" "$BAT" X=x.csv && cp "$OUT" plain.txt
close_to plain.txt want.txt 0 "without MPI: y = x + 1, z = x"
expect 0 "place    2 jobs by auto, the last: auto: rank 0, most of the bytes it reads there (no profile yet)" \
	mpi_run 2 "$CARSH" -c "time run '$BAT' X=x.csv" &&
	same_file "$OUT" plain.txt "no history, 2 ranks: the bytes of a run without MPI"

# The history: one run with --device auto writes the flow-model's record for the device,
# whose time is then set to 10 ms (the jobs below do not learn: their device is not auto).
expect 0 "" "$CARSH" --device auto "$BAT" X=x.csv
awk -F '\t' 'BEGIN { OFS = "\t" } $1 == "device" { $6 = 10 } { print }' \
	"$XDG_CACHE_HOME/carsh/profiles.txt" >seeded.txt
cp seeded.txt "$XDG_CACHE_HOME/carsh/profiles.txt"
grep -q "/addone.xml	addone	.*	1000	10	" seeded.txt && pass "the history knows addone at 1000 items" ||
	fail "history: $(cat seeded.txt)"

# The first job: rank 0, 10 ms against 10.004 on rank 1 (4000 bytes to move). The second:
# rank 0 has 10 ms queued (20 ms), rank 1 and beyond 10.004 ms.
expect 0 "place    2 jobs by auto, the last: auto: rank 1, forecast 10.004 ms vs rank 0 20 ms" \
	mpi_run 2 "$CARSH" -c "time run '$BAT' X=x.csv" &&
	same_file "$OUT" plain.txt "forecast, 2 ranks: the bytes of a run without MPI"
expect 0 "place    2 jobs by auto, the last: auto: rank 1, forecast 10.004 ms vs rank 0 20 ms, rank 2 10.004 ms, rank 3 10.004 ms" \
	mpi_run 4 "$CARSH" -c "time run '$BAT' X=x.csv" &&
	same_file "$OUT" plain.txt "forecast, 4 ranks: the bytes of a run without MPI"
# One rank is a run without MPI: nothing to choose, nothing said.
expect 0 "" mpi_run 1 "$CARSH" -c "time run '$BAT' X=x.csv" &&
	same_file "$OUT" plain.txt "1 rank: the bytes of a run without MPI"
grep -q "^place" "$ERR" && fail "1 rank: $(cat "$ERR")" || pass "1 rank: no rank chosen"
cmp -s seeded.txt "$XDG_CACHE_HOME/carsh/profiles.txt" && pass "the history did not change" ||
	fail "history changed: $(cat "$XDG_CACHE_HOME/carsh/profiles.txt")"

finish
