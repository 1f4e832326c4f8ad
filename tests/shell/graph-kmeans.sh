#!/bin/sh
# k-means colour quantisation as a pipeline graph (004 §4.3.7, Figures 30-31):
# batches/graphs/kmeans.xml run by PEA-ST's startup and repeat batches, one item per k-means
# iteration, against the independent C reference tests/tools/kmeansref.c. Integer
# arithmetic throughout, so every quantised picture must equal the reference's byte for
# byte, pipelined and serial alike.
. "$TOP_SRCDIR/tests/shell/lib.sh"
KREF="$TOP_BUILDDIR/tests/tools/kmeansref"
GRAPH="$TOP_SRCDIR/batches/graphs/kmeans.xml"
PIC="$TOP_SRCDIR/examples/kmeans/picture.csv"
cd "$T" || exit 1

"$KREF" picture 64 48 >picture.csv
same_file picture.csv "$PIC" "the example picture is kmeansref's 64 x 48 picture"

# The default picture (file= in the graph), K = 8, ten iterations.
"$KREF" quantise "$PIC" 64 48 8 1 10 want
expect 0 "" "$CARSH" "$GRAPH" --items 10 --trace image=q{i}.csv
grep '^step' "$ERR" | head -4 >steps
printf '%s\n' 'step 1, startup stage 1: InitCenterCluster#0' 'step 2, startup stage 2: SetGroup#0' \
	'step 3, repeat stage 3: SetNewCenter#0 InitCenterCluster#1' \
	'step 4, repeat stage 4: ChangeColor#0 SetGroup#1' >want-steps
same_file steps want-steps "Figure 31: startup A, B; repeat (C, A), (D, B)"
grep -q '^channel SetNewCenter.centers (1 buffer): SetGroup.centers(item before) ChangeColor.centers$' \
	"$ERR" && pass "SetGroup reads the centres of the iteration before" ||
	fail "channels: $(cat "$ERR")"
same_items q want 10 "pipelined k-means equals the C reference"
expect 0 "" "$CARSH" "$GRAPH" --items 10 --serial image=s{i}.csv
same_items s want 10 "serial k-means equals the C reference"
same_file q9.csv q8.csv "after ten iterations the quantisation no longer changes"
[ "$(sort -u q9.csv | wc -l)" -le 8 ] && [ "$(sort -u picture.csv | wc -l)" -gt 100 ] &&
	pass "hundreds of colours quantised to at most K = 8" ||
	fail "colours: $(sort -u q9.csv | wc -l) of $(sort -u picture.csv | wc -l)"

# Another picture, size, K and seed, given on the command line.
"$KREF" picture 40 30 | awk -F, '{ print $3 "," $1 "," $2 }' >other.csv
"$KREF" quantise other.csv 40 30 5 7 4 want-o
expect 0 "" "$CARSH" "$GRAPH" --items 4 pixels=other.csv W=40 H=30 K=5 SEED=7 image=o{i}.csv
same_items o want-o 4 "W=40 H=30 K=5 SEED=7 equals the reference"

# A picture of another size than W x H is refused before anything runs.
expect 1 "kmeans.xml: entrance InitCenterCluster.pixels: virtbuf fill" "$CARSH" "$GRAPH" \
	--items 2 pixels=other.csv image=discard

finish
