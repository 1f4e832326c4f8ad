#!/bin/sh
# Transfers through pinned staging pieces (exec/staging.h): used for GPUs, forced here on the
# CPU device with CARSH_STAGED=1. A buffer of 3,000,001 floats (one 8 MiB piece, then a part
# of one) goes to the device, is computed there in a chain and comes back, equal to an
# independent computation and to the same run without staging.
. "$TOP_SRCDIR/tests/shell/lib.sh"

cd "$T" || exit 1
ADD="$DATA/fm/addone.xml"
N=3000001
seq 1 $N >x.csv
for staged in 1 0; do
	# x + 1 into y, then y + 1 back into x; z = 0.5 + x + y.
	expect 0 "" env CARSH_SERVER=off CARSH_STAGED=$staged "$CARSH" -c "virtbuf create x float $N
virtbuf create y float $N; virtbuf create z float $N
virtbuf fill x x.csv; virtbuf fill z --value 0.5
run $ADD x=buffer:x y=buffer:y z=buffer:z N=$N
run $ADD x=buffer:y y=buffer:x z=buffer:z N=$N
virtbuf dump x x-$staged.csv; virtbuf dump z z-$staged.csv"
done
awk '{ print $1 + 2 }' x.csv >want-x
awk '{ printf "%.1f\n", 2 * $1 + 1.5 }' x.csv >want-z
same_file x-1.csv want-x "to the device and back through staging pieces"
same_file z-1.csv want-z "a chain's InOut through staging pieces"
same_file x-1.csv x-0.csv "staged and direct transfers give the same data"
finish
