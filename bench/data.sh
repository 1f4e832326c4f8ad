#!/usr/bin/env bash
# Issue 37: data in and out at memory speed. Each figure against a reference measured in the
# same run on the same files (medians of RUNS):
#
#   scale     10,000,000 CSV values through flowmodels/scale.xml (x=- y=-, a pipe in and out)
#             against awk '{print $1*2}' on the same pipe: ratio = awk / carsh (target >= 8);
#             "scale, no N" the same without N= (the length from the data), its output compared
#   csv fill  virtbuf fill of 4,194,304 floats from CSV: MB/s, and awk reading the same file
#             (awk '{s+=$1}'): ratio = carsh MB/s / awk MB/s (target >= 500 MB/s on 16 cores)
#   csv dump  virtbuf dump of the same buffer: MB/s of the CSV written, and awk printing as
#             many numbers (target >= 300 MB/s)
#   pgm fill  virtbuf fill of a 4096x4096 P5 picture into floats, against cat of the file
#             (target <= 15 ms); pgm dump the same buffer back (<= 15 ms) against dd writing
#             16 MiB
#   value     virtbuf fill --value 0 of 64 MiB (16,777,216 floats) against dd writing 64 MiB
#             from /dev/zero (target <= 10 ms)
#   npy fill  virtbuf fill of 64 MiB from a .npy file against cat of the file (<= 15 ms)
#   create    virtbuf create of 64 MiB, no reference: the flagship creates five such buffers
#
# The flagship at 4096² end to end (target <= 60 ms), with where its time goes and CuPy's
# filter as the reference, is bench/flagship.sh.
#
# carsh's own figures are the builtin `time`'s wall times of each command inside one carsh
# session (no process start); the references are whole processes (their start included).
#
#   bench/data.sh [RUNS]          (default 3; $CARSH names the carsh, default the build's)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/timing-lib.sh"
cd "$work"

echo "data.sh: making the inputs in $work"
seq 1 10000000 >seq.csv
awk 'BEGIN { srand(1); for (i = 0; i < 4194304; i++) printf "%.9g\n", rand() * 2000 - 1000 }' >f4m.csv
{ printf 'P5\n4096 4096\n255\n'; head -c 16777216 /dev/urandom; } >pic.pgm
{
	printf '\223NUMPY\001\000\166\000'
	printf "%-117s\n" "{'descr': '<f4', 'fortran_order': False, 'shape': (16777216,), }"
	head -c 67108864 /dev/zero
} >big.npy
csv_bytes=$(wc -c <f4m.csv)
"$carsh" -c 'echo' >/dev/null # starts the server

# The wall times `time` printed, in the order of the commands: "real 912.721 ms".
reals() { awk '$1 == "real" { print $2 }'; }

for r in $(seq 1 "$runs"); do
	timed t.scale sh -c "\"$carsh\" run \"$top/flowmodels/scale.xml\" x=- y=- N=10000000 <seq.csv >out.csv"
	timed t.awk sh -c "awk '{print \$1*2}' <seq.csv >awk.csv"
	timed t.scalelen sh -c "\"$carsh\" run \"$top/flowmodels/scale.xml\" x=- y=- <seq.csv >outlen.csv"
	"$carsh" -c "virtbuf create f float 4194304; virtbuf create p float 16777216
time virtbuf create v float 16777216
time virtbuf fill f f4m.csv; time virtbuf dump f dump.csv
time virtbuf fill p pic.pgm; time virtbuf dump p out.pgm --columns 4096
time virtbuf fill v --value 0; time virtbuf fill v big.npy
virtbuf delete f p v" 2>&1 | reals >times
	sed -n 1p times >>t.create
	sed -i 1d times
	sed -n 1p times >>t.csvfill
	sed -n 2p times >>t.csvdump
	sed -n 3p times >>t.pgmfill
	sed -n 4p times >>t.pgmdump
	sed -n 5p times >>t.value
	sed -n 6p times >>t.npyfill
	timed t.awkread awk '{ s += $1 } END { print s }' f4m.csv
	timed t.awkwrite sh -c "awk 'BEGIN { for (i = 0; i < 4194304; i++) print i * 0.001 }' >awkw.csv"
	timed t.catpgm cat pic.pgm
	timed t.ddpgm dd if=/dev/zero of=dd.out bs=1M count=16 status=none
	timed t.dd64 dd if=/dev/zero of=dd.out bs=1M count=64 status=none
	timed t.catnpy cat big.npy
done
# Where scale's time goes: the job's files in (read, parse) and out (print, write), its
# transfers and kernel, and the rest of the call (the builtin time of one more run)
"$carsh" -c "time run \"$top/flowmodels/scale.xml\" x=- y=- N=10000000" <seq.csv 2>phases.txt >/dev/null
dump_bytes=$(wc -c <dump.csv)
m() { median <"$1"; }
mbs() { awk -v b="$1" -v ms="$2" 'BEGIN { printf "%.0f", b / 1e6 / (ms / 1e3) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '%-10s %12s %14s %10s  %s\n' figure carsh reference ratio target
printf '%-10s %10s ms %11s ms %9sx  %s\n' scale "$(m t.scale)" "$(m t.awk)" \
	"$(ratio "$(m t.awk)" "$(m t.scale)")" ">= 8x faster than awk"
printf '%-10s %10s ms %11s ms %9sx  %s\n' "scale, no N" "$(m t.scalelen)" "$(m t.awk)" \
	"$(ratio "$(m t.awk)" "$(m t.scalelen)")" "N from the data; output $(cmp -s out.csv outlen.csv && echo "the same" || echo DIFFERENT)"
printf '%-10s %7s MB/s %9s MB/s %9sx  %s\n' "csv fill" "$(mbs "$csv_bytes" "$(m t.csvfill)")" \
	"$(mbs "$csv_bytes" "$(m t.awkread)")" "$(ratio "$(m t.awkread)" "$(m t.csvfill)")" ">= 500 MB/s"
printf '%-10s %7s MB/s %9s MB/s %9sx  %s\n' "csv dump" "$(mbs "$dump_bytes" "$(m t.csvdump)")" \
	"$(mbs "$(wc -c <awkw.csv)" "$(m t.awkwrite)")" \
	"$(ratio "$(mbs "$dump_bytes" "$(m t.csvdump)")" "$(mbs "$(wc -c <awkw.csv)" "$(m t.awkwrite)")")" ">= 300 MB/s"
printf '%-10s %10s ms %11s ms %9sx  %s\n' "pgm fill" "$(m t.pgmfill)" "$(m t.catpgm)" \
	"$(ratio "$(m t.pgmfill)" "$(m t.catpgm)")" "<= 15 ms (ratio: carsh / cat)"
printf '%-10s %10s ms %11s ms %9sx  %s\n' "pgm dump" "$(m t.pgmdump)" "$(m t.ddpgm)" \
	"$(ratio "$(m t.pgmdump)" "$(m t.ddpgm)")" "<= 15 ms (ratio: carsh / dd)"
printf '%-10s %10s ms %11s ms %9sx  %s\n' value "$(m t.value)" "$(m t.dd64)" \
	"$(ratio "$(m t.value)" "$(m t.dd64)")" "<= 10 ms (ratio: carsh / dd)"
printf '%-10s %10s ms %11s ms %9sx  %s\n' "npy fill" "$(m t.npyfill)" "$(m t.catnpy)" \
	"$(ratio "$(m t.npyfill)" "$(m t.catnpy)")" "<= 15 ms (ratio: carsh / cat)"
printf '%-10s %10s ms %14s %9s   %s\n' create "$(m t.create)" "" "" "virtbuf create of 64 MiB (the flagship makes five)"
echo "scale's phases (time of one more run; files: the job's read+parse in, print+write out):"
sed 's/^/    /' phases.txt
