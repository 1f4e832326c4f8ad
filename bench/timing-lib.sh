# Shared by the bench scripts (sourced, bash): wall-clock milliseconds, the median of a column
# of numbers, and a command's wall time appended to a file.

now_ms() { echo "${EPOCHREALTIME/[.,]/}" | awk '{ printf "%.3f", $1 / 1000 }'; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

timed() { # FILE COMMAND...: append the command's wall time in ms to FILE
	local out=$1 t0
	shift
	t0=$(now_ms)
	"$@" >/dev/null
	awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { print b - a }' >>"$out"
}
