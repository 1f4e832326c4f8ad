# Shared by bench/jobcost.sh and bench/jobcalls.sh (sourced, bash; needs $top, $fftref, $work
# and $runs): the FFT filter's steps at N=16, where a kernel runs for microseconds, as two
# carsh scripts on filled buffers, $work/one.csh (one run) and $work/many.csh ($runs runs),
# and $jobs, the jobs of one run.
"$fftref" picture 16 "$work/pic.pgm"
sed -e "s|file=\"|file=\"$top/batches/fft-filter/|" -e "s|\${BATCH_DIR}|$top/batches/fft-filter|g" \
	"$top/batches/fft-filter/filter-steps.bat.xml" >"$work/steps.bat.xml"
jobcost_script() { # RUNS
	for b in re im re_next im_next result; do echo "virtbuf create $b float 256"; done
	echo "virtbuf create stage int 1"
	echo "virtbuf create stage_next int 1"
	echo "virtbuf fill re $work/pic.pgm"
	for ((i = 0; i < $1; i++)); do echo "run $work/steps.bat.xml N=16 CUT=2"; done
	echo "virtbuf dump result $work/result.csv"
}
jobcost_script 1 >"$work/one.csh"
jobcost_script "$runs" >"$work/many.csh"
# The jobs of one run: the <Exec> steps, those in a <Repeat count="log2(N)"> 4 times, and the
# filter's <Command> (one job).
jobs=$(awk '/<Repeat/ { r = 1 } /<\/Repeat>/ { r = 0 } /<Exec/ { n += r ? 4 : 1 }
	/<Command>run/ { n++ } END { print n }' "$work/steps.bat.xml")
