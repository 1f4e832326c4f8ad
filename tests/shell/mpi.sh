#!/bin/sh
# Scale-out on MPI (docs/scale-out.md, issue 19): the flagship batch and a batch of
# independent background <Exec> chains in a <Repeat> on 1, 2 and 4 ranks give the bytes a
# run without MPI gives, which are checked against the FFT reference and a closed form; so
# does the FFT filter pipeline graph, its nodes placed on ranks by stage or by rank=; a
# job that fails on rank 1 stops every rank with the rank named (one that cannot start
# there, at the <Sync/>); a killed rank stops the others and leaves no process and no
# segment; a flow-model run on one rank is a run without MPI. Skipped (exit 77, shown as
# SKIP) where carsh was built without MPI.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

if ! mpi_ready; then
	echo "SKIP: carsh built without MPI (configure found none) or no ${MPIRUN:-mpirun}"
	exit 77
fi

# Each rank's carsh notes its rank and pid, so that the test can find and check them.
printf '#!/bin/sh\necho "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-$PMI_RANK}} $$" >>"%s/pids"\nexec "%s" "$@"\n' \
	"$T" "$CARSH" >carsh-rank
chmod +x carsh-rank
: >pids

# nothing_left: every rank noted in pids has ended and left no segment in /dev/shm. A rank
# that mpirun stopped may stay a zombie of init's here, which is ended.
nothing_left() {
	local left= alive= state
	while read -r rank pid; do
		[ -z "$(segments_of "$pid")" ] || left="$left rank $rank ($pid): $(segments_of "$pid" | tr '\n' ' ')"
		state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
		[ -n "$state" ] && [ "$state" != Z ] && alive="$alive rank $rank ($pid)"
	done <pids
	[ -z "$left$alive" ] && pass "$1: no rank left behind, no segment left" ||
		fail "$1: still running:$alive; segments:$left"
	: >pids
}

# ---- independent background chains in a <Repeat>: closed form, then 1, 2, 4 ranks ----
CHAINS="$DATA/mpi/chains.bat.xml"
seq 1 1000 >x.csv
expect 0 "" "$CARSH" "$CHAINS" X=x.csv && cp "$OUT" chains.plain
# p = X + 3 and z = 3X + 3 for every chain, after which z3 += p2 (docs in the batch).
awk '{ p[NR] = $1 } END {
	for (c = 1; c <= 4; c++) {
		for (i = 1; i <= NR; i++) print p[i] + 3
		for (i = 1; i <= NR; i++) print 3 * p[i] + 3 + (c == 3 ? p[i] + 3 : 0)
	}
}' x.csv >chains.want
same_file chains.plain chains.want "chains without MPI: the closed form"
for np in 1 2 4; do
	expect 0 "" mpi_run $np ./carsh-rank "$CHAINS" X=x.csv &&
		same_file "$OUT" chains.plain "chains on $np rank(s): the bytes of a run without MPI"
	nothing_left "chains on $np rank(s)"
done
# MPI started by each rank at once (CARSH_MPI_INIT=eager), not put off to the first <Sync/>
# while the first jobs run: the same bytes.
export CARSH_MPI_INIT=eager
expect 0 "" mpi_run 4 ./carsh-rank "$CHAINS" X=x.csv &&
	same_file "$OUT" chains.plain "chains on 4 ranks, MPI started at once: the bytes of a run without MPI"
nothing_left "chains on 4 ranks, MPI started at once"
unset CARSH_MPI_INIT

# ---- the flagship: the FFT image filter (004 §3.6) ----
FFTREF="$TOP_BUILDDIR/tests/tools/fftref"
BAT="$TOP_SRCDIR/batches/fft-filter/fft-filter.bat.xml"
"$FFTREF" picture 64 pic64.pgm
"$FFTREF" filter low 8 pic64.pgm >low64.want
expect 0 "" "$CARSH" "$BAT" N=64 CUT=8 IMAGE=pic64.pgm OUT=plain.csv
if "$FFTREF" cmp plain.csv low64.want 1e-5 255 >cmp.out 2>&1; then
	pass "flagship without MPI equals the FFT reference ($(cat cmp.out))"
else
	fail "flagship without MPI: $(cat cmp.out)"
fi
for np in 1 2 4; do
	expect 0 "" mpi_run $np ./carsh-rank "$BAT" N=64 CUT=8 IMAGE=pic64.pgm OUT=np$np.csv &&
		same_file np$np.csv plain.csv "flagship on $np rank(s): the bytes of a run without MPI"
	nothing_left "flagship on $np rank(s)"
done

# ---- one rank is a run without MPI: output, status and message ----
"$CARSH" run "$FM/scale.xml" x=x.csv y=- >scale.plain 2>&1
expect 0 "" mpi_run 1 ./carsh-rank run "$FM/scale.xml" x=x.csv y=- &&
	same_file "$OUT" scale.plain "a flow-model on one rank: the output without MPI"
nothing_left "a flow-model on one rank"
"$CARSH" run "$FM/scale.xml" x=nowhere.csv y=- >/dev/null 2>fail.plain
expect 1 "" mpi_run 1 ./carsh-rank run "$FM/scale.xml" x=nowhere.csv y=- &&
	same_file "$ERR" fail.plain "a failing flow-model on one rank: the message without MPI"
nothing_left "a failing flow-model on one rank"

# ---- the FFT filter graph across ranks (004 §4.2.5): 1, 2, 4 ranks, rank="N" ----
GRAPH="$TOP_SRCDIR/batches/graphs/fft-filter.xml"
"$FFTREF" picture 64 q0.csv
for k in 1 2 3; do
	awk -F, -v k=$k 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) $i = ($i * (k + 1) + i * NR * k) % 256; print }' \
		q0.csv >q$k.csv
done
expect 0 "" "$CARSH" "$GRAPH" N=64 CUT=8 re=q{i}.csv re_next=g{i}.csv im_next=discard
"$FFTREF" filter low 8 q3.csv >want3.csv
awk -F, '{ for (i = 1; i <= NF; i++) printf "%s%.17g", (i > 1 ? "," : ""), $i / 4096; print "" }' \
	g3.csv >got3.csv
if "$FFTREF" cmp got3.csv want3.csv 1e-5 255 >cmp.out 2>&1; then
	pass "FFT graph without MPI, item 3, equals the FFT reference ($(cat cmp.out))"
else
	fail "FFT graph without MPI: $(cat cmp.out)"
fi
for np in 1 2 4; do
	expect 0 "" mpi_run $np ./carsh-rank "$GRAPH" N=64 CUT=8 re=q{i}.csv re_next=n$np-{i}.csv \
		im_next=discard --trace
	for k in 0 1 2 3; do
		same_file n$np-$k.csv g$k.csv "FFT graph on $np rank(s), item $k: the bytes of a run without MPI"
	done
	nothing_left "FFT graph on $np rank(s)"
done
# Automatic placement: the nodes of each repeat stage round robin, on from stage to stage.
grep -qx "ranks: reorder1@0 fft1@1 transpose1@3 reorder2@0 fft2@2 transpose2@3 filter@1 transpose3@2 reorder3@0 ifft1@1 transpose4@3 reorder4@0 ifft2@2" "$ERR" &&
	pass "4 ranks: the nodes of each stage on different ranks" ||
	fail "4 ranks: placement: $(grep '^ranks:' "$ERR")"
# rank="N" (modulo the ranks) on some nodes; the others are placed as before.
sed "s|exe=\"fft-filter/|exe=\"$TOP_SRCDIR/batches/graphs/fft-filter/|; s|file=\"fft-filter/|file=\"$TOP_SRCDIR/batches/graphs/fft-filter/|;
	s|<Node name=\"filter\" |<Node name=\"filter\" rank=\"6\" |; s|<Node name=\"ifft2\" |<Node name=\"ifft2\" rank=\"auto\" |;
	s|<Node name=\"reorder1\" |<Node name=\"reorder1\" rank=\"3\" |" "$GRAPH" >ranked.xml
expect 0 "" mpi_run 4 ./carsh-rank ranked.xml N=64 CUT=8 re=q{i}.csv re_next=r{i}.csv \
	im_next=discard --trace &&
	grep -q '^ranks: reorder1@3 .* filter@2 .* ifft2@' "$ERR" &&
	pass "<Node rank=\"N\">: reorder1 on rank 3, filter (rank 6) on rank 2: $(grep '^ranks:' "$ERR")" ||
	fail "<Node rank=\"N\">: $(grep '^ranks:' "$ERR")"
for k in 0 1 2 3; do
	same_file r$k.csv g$k.csv "FFT graph with rank=\"N\", item $k: the bytes of a run without MPI"
done
nothing_left "FFT graph with rank=\"N\""

# A run that fails on rank 1 (filter, whose CUT is no number) stops every rank, with one
# line naming the rank; an entrance rank 0 cannot read (item 4 of 6) stops them too.
expect 1 "fft-filter.xml: rank 1: step 7, startup stage 7: " mpi_run 2 ./carsh-rank "$GRAPH" \
	N=64 CUT=zz re=q{i}.csv re_next=discard im_next=discard
[ "$(wc -l <"$ERR")" = 1 ] && pass "a graph failing on rank 1: one line" ||
	fail "a graph failing on rank 1: $(cat "$ERR")"
nothing_left "a graph failing on rank 1"
expect 1 "fft-filter.xml: step 9, startup stage 9: entrance reorder1.re, item 4: " \
	mpi_run 4 ./carsh-rank "$GRAPH" --items 6 N=64 CUT=8 re=q{i}.csv re_next=discard \
	im_next=discard
nothing_left "a graph whose entrance rank 0 cannot read"

# k-means: a feedback edge (its initial data on every rank) and data that serve every item.
KMEANS="$TOP_SRCDIR/batches/graphs/kmeans.xml"
expect 0 "" "$CARSH" "$KMEANS" --items 6 image=k{i}.csv
expect 0 "" mpi_run 3 ./carsh-rank "$KMEANS" --items 6 image=k3-{i}.csv
for k in 0 1 2 3 4 5; do
	same_file k3-$k.csv k$k.csv "k-means graph on 3 ranks, item $k: the bytes of a run without MPI"
done
nothing_left "k-means graph on 3 ranks"
# The feedback edge across ranks: on 2 and 4 ranks SetNewCenter (rank 0) sends SetGroup
# (rank 1 or 3) each item's centers, which SetGroup reads for the next item.
for np in 2 4; do
	expect 0 "" mpi_run $np ./carsh-rank "$KMEANS" --items 6 image=kf$np-{i}.csv --trace &&
		grep -q '^ranks: .* SetGroup@[13] SetNewCenter@0 ' "$ERR" &&
		pass "k-means on $np ranks: the feedback edge across ranks ($(grep '^ranks:' "$ERR"))" ||
		fail "k-means on $np ranks: placement: $(grep '^ranks:' "$ERR")"
	for k in 0 1 2 3 4 5; do
		same_file kf$np-$k.csv k$k.csv "k-means graph on $np ranks, item $k: the bytes of a run without MPI"
	done
	nothing_left "k-means graph on $np ranks"
done

# ---- partition across ranks (docs/scale-out.md "Partition across ranks") ----
# Each rank runs its rows of every step over its own devices. N-body (a copy stream, block
# streams, swap pairs, 4 steps) and the 2-D Jacobi (rows; a copy stream read around each
# chunk; 4 steps) against their C references and, byte for byte, against a run without MPI,
# on 1, 2 and 4 ranks, with logfit and static; each rank's rows of the last step add up to
# the space. The kernels are per work-item, so no split changes a byte.
PREF="$TOP_BUILDDIR/tests/tools/partref"
sed "s|../../flowmodels|$FM|" "$TOP_SRCDIR/examples/partition/nbody.exe.xml" >nbody.exe.xml
sed "s|../../flowmodels|$FM|" "$TOP_SRCDIR/examples/partition/jacobi.exe.xml" >jacobi.exe.xml
mkdir -p data/nbody data/jacobi ref/nbody ref/jacobi
NB=384 # 6 granules of 64 bodies
"$PREF" nbody-gen $NB 7 data/nbody && cp data/nbody/pos.csv data/nbody/vel.csv ref/nbody/
"$PREF" nbody $NB 4 0.001 0.0001 ref/nbody
"$PREF" jacobi2d-gen 48 40 9 data/jacobi && cp data/jacobi/*.csv ref/jacobi/ # 4-row granule
"$PREF" jacobi2d 48 40 4 0.001 ref/jacobi

# part_outputs NAME: the outputs of the last run, kept as NAME.nbody and NAME.jacobi.
part_outputs() {
	[ -f data/nbody/pos_out.csv ] && cat data/nbody/pos_out.csv data/nbody/vel_out.csv >"$1.nbody"
	[ -f data/jacobi/u_out.csv ] && cp data/jacobi/u_out.csv "$1.jacobi"
	rm -f data/nbody/*_out.csv data/jacobi/u_out.csv
}
# ranks_cover NP ROWS LABEL: the JSON summary lists NP ranks whose rows add up to ROWS.
ranks_cover() {
	grep -o '"rows":[0-9]*' "$OUT" | awk -F: -v np="$1" -v rows="$2" \
		'{ n++; s += $2 } END { exit !(n == np && s == rows) }' &&
		pass "$3: $1 ranks' rows add up to $2" ||
		fail "$3: ranks: $(grep -o '"ranks":.*' "$OUT")"
}
NBODY="nbody.exe.xml N=$NB"
JACOBI="jacobi.exe.xml W=48 H=40 H2=0.001"
# shellcheck disable=SC2086
expect 0 "" "$CARSH" partition --no-progress $NBODY &&
	close_to data/nbody/pos_out.csv ref/nbody/pos_ref.csv 1e-5 "partition N-body without MPI: positions" &&
	close_to data/nbody/vel_out.csv ref/nbody/vel_ref.csv 1e-5 "partition N-body without MPI: velocities"
part_outputs plain
# shellcheck disable=SC2086
expect 0 "" "$CARSH" partition --no-progress $JACOBI &&
	close_to data/jacobi/u_out.csv ref/jacobi/u_ref.csv 0 "partition Jacobi without MPI: the reference"
part_outputs plain
for s in logfit static; do
	for np in 1 2 4; do
		# shellcheck disable=SC2086
		expect 0 "" mpi_run $np ./carsh-rank partition --no-progress --json --sched $s $NBODY &&
			part_outputs np &&
			same_file np.nbody plain.nbody "partition N-body, $s, $np rank(s): the bytes without MPI"
		[ $np -gt 1 ] && ranks_cover $np $NB "partition N-body, $s"
		# shellcheck disable=SC2086
		expect 0 "" mpi_run $np ./carsh-rank partition --no-progress --json --sched $s $JACOBI &&
			part_outputs np &&
			same_file np.jacobi plain.jacobi "partition Jacobi, $s, $np rank(s): the bytes without MPI"
		[ $np -gt 1 ] && ranks_cover $np 40 "partition Jacobi, $s"
		nothing_left "partition, $s, $np rank(s)"
	done
done
# static's profile (a core standing in for the GPU: 11 whole runs, then the best share's)
# keeps the ranks in step.
# shellcheck disable=SC2086
expect 0 "" mpi_run 2 ./carsh-rank partition --no-progress --gpu cpu --sched static $JACOBI &&
	part_outputs np &&
	same_file np.jacobi plain.jacobi "partition Jacobi, static's profile, 2 ranks: the bytes without MPI"
nothing_left "partition, static's profile"

# Virtual buffers: filled on rank 0, brought to every rank; the outputs gathered on rank 0.
cat >vb.csh <<EOF
virtbuf create p float4 $NB
virtbuf create v float4 $NB
virtbuf create pn float4 $NB
virtbuf create vn float4 $NB
virtbuf fill p data/nbody/pos.csv
virtbuf fill v data/nbody/vel.csv
partition --no-progress $FM/part_nbody.xml N=$NB pos=buffer:p vel=buffer:v pos_next=buffer:pn vel_next=buffer:vn
virtbuf dump pn vbpos.csv
virtbuf dump vn vbvel.csv
EOF
expect 0 "" "$CARSH" vb.csh && cat vbpos.csv vbvel.csv >vb.plain && rm -f vbpos.csv vbvel.csv
expect 0 "" mpi_run 4 ./carsh-rank vb.csh && cat vbpos.csv vbvel.csv >vb.np4 &&
	same_file vb.np4 vb.plain "partition on virtual buffers, 4 ranks: the bytes without MPI"
nothing_left "partition on virtual buffers"

# A rank that cannot set up (no OpenCL platform on rank 1) stops every rank: one message.
printf '#!/bin/sh\n[ "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-$PMI_RANK}}" = 1 ] && export OCL_ICD_VENDORS=/nonexistent\nexec ./carsh-rank "$@"\n' >nodev-rank
chmod +x nodev-rank
# shellcheck disable=SC2086
expect 1 "carsh: partition: nbody.exe.xml: rank 1: no OpenCL platform found" \
	mpi_run 4 ./nodev-rank partition --no-progress $NBODY &&
	{ [ "$(grep -c . "$ERR")" -eq 1 ] && pass "partition: rank 1's failure is one message" ||
		fail "partition: rank 1's failure: $(cat "$ERR")"; }
nothing_left "partition failing on rank 1"

# pipeline (the adaptive pipeline engine) stays on one rank.
expect 1 "pipeline: not across MPI ranks yet" \
	mpi_run 2 ./carsh-rank pipeline "$TOP_SRCDIR/examples/pipeline/srad.xml"
nothing_left "pipeline refused"

# ---- a job that fails on rank 1 stops every rank, with the rank named ----
cp "$DATA/errors/rankfail.bat.xml" .
expect 1 "carsh: rankfail.bat.xml:22: <Sync>: rank 1: job [1] rankfail.bat.xml: Exit 1:" \
	mpi_run 4 ./carsh-rank rankfail.bat.xml
[ "$(grep -c . "$ERR")" -eq 1 ] && pass "rank failure: one message, from rank 0" ||
	fail "rank failure: more than one line: $(cat "$ERR")"
grep -q "not reached" "$OUT" && fail "rank failure: the batch went on past its <Sync/>"
nothing_left "a job failing on rank 1"

# A background job that cannot start on rank 1 (a device selector that is wrong there, read
# when the job starts) is agreed on at the <Sync/>, as a failed job of rank 1: the ranks do
# not agree on each start.
printf '#!/bin/sh\n[ "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-$PMI_RANK}}" = 1 ] && export CARSH_DEVICE=auto:bogus\nexec ./carsh-rank "$@"\n' >badsel-rank
chmod +x badsel-rank
{
	echo '<CarshBat>'
	for _ in 1 2 3 4; do
		echo "  <Exec background=\"true\"><CarshExe><FlowModel file=\"$FM/part_mandel.xml\"/>"
		echo '    <Param name="W" value="16"/><Param name="H" value="16"/>'
		echo '    <Output name="count"><Discard/></Output></CarshExe></Exec>'
	done
	echo '  <Sync/>'
	echo '  <Echo>not reached</Echo>'
	echo '</CarshBat>'
} >startfail.bat.xml
expect 1 "carsh: startfail.bat.xml:14: <Sync>: rank 1: job [1] startfail.bat.xml: Exit 1: startfail.bat.xml: 'auto:bogus' (from --device/CARSH_DEVICE): expected auto" \
	mpi_run 2 ./badsel-rank startfail.bat.xml
[ "$(grep -c . "$ERR")" -eq 1 ] && pass "a start failing on rank 1: one message, from rank 0" ||
	fail "a start failing on rank 1: $(cat "$ERR")"
grep -q "not reached" "$OUT" && fail "a start failing on rank 1: the batch went on past its <Sync/>"
nothing_left "a background job that cannot start on rank 1"

# ---- a killed rank: the others stop, nothing is left ----
# wait.bat.xml holds rank 0 in a fill from standard input (a FIFO kept open here) and the
# others in agreeing on it; every rank has made its two buffers by then.
mkfifo in.fifo
MPI_NOTICES=yes mpi_run 3 ./carsh-rank "$DATA/mpi/wait.bat.xml" <in.fifo >kill.out 2>kill.err &
MPID=$!
exec 7>in.fifo
ready=no
for _ in $(seq 600); do
	if [ "$(wc -l <pids)" -eq 3 ] &&
		[ "$(while read -r r p; do segments_of "$p"; done <pids | wc -l)" -eq 6 ]; then
		ready=yes
		break
	fi
	sleep 0.1
done
[ $ready = yes ] || fail "killed rank: the 3 ranks did not make their buffers"
kill -KILL "$(awk '$1 == 1 { print $2 }' pids)"
wait $MPID
status=$?
exec 7>&-
[ $status -ne 0 ] && grep -q "rank 1" kill.err &&
	pass "killed rank: the job stops ($status) with rank 1 named: $(grep "rank 1" kill.err | head -1)" ||
	fail "killed rank: status $status, stderr: $(cat kill.err)"
nothing_left "a killed rank"

finish
