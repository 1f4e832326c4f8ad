#!/bin/sh
# Lengths from the data (docs/formats.md "Lengths from the data"): a count that is one
# parameter left unset takes the number of elements its input holds (CSV values, a .npy's
# shape, a raw file's size), from a file or standard input; streams that disagree are named.
# Expected values come from awk and od, not from carsh.
. "$TOP_SRCDIR/tests/shell/lib.sh"

cd "$T" || exit 1
SCALE="$FM/scale.xml"
VADD="$FM/vadd.xml"
SAXPY="$FM/saxpy.xml"

# exact_err STATUS MESSAGE COMMAND...: the status, and standard error exactly MESSAGE.
exact_err() {
	local want="$1" msg="$2"
	shift 2
	expect "$want" "" "$@" || return 1
	printf '%s\n' "$msg" >want.err
	same_file "$ERR" want.err "message: $msg"
}

# A pipe of 100,000 values, longer than scale.xml's default N=1000.
seq 1 100000 >big.csv
awk '{ print $1 * 2 }' big.csv >want
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=- y=- <big.csv"
same_file "$OUT" want "x=- without N: all 100000 values scaled"
seq 1 100000 | awk '{ print $1 * 3 }' >want
expect 0 "" sh -c "seq 1 100000 | \"$CARSH\" run \"$SCALE\" x=- y=- A=3"
same_file "$OUT" want "a real pipe without N, A=3"

# Quoted fields go through the general parser, which reads the copy from its start.
printf '"1","2"\n3\n' >quoted.csv
printf '2\n4\n6\n' >want
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=- y=- <quoted.csv"
same_file "$OUT" want "quoted values on standard input: N=3"

# An endless pipe is copied no further than CARSH_COUNT_MAX bytes; where the flow-model
# cannot run in chunks (its output is a file), that is an error.
exact_err 1 "carsh: $SCALE: stream 'x': <stdin>: longer than CARSH_COUNT_MAX bytes, and it cannot run in chunks: stream 'y' is written to y.csv, which each chunk would replace; give the count (N=...)" \
	sh -c "yes 1 | CARSH_COUNT_MAX=1000 \"$CARSH\" run \"$SCALE\" x=- y=y.csv"

# Files: 7 values each; vadd's two inputs agree.
seq 1 7 >a.csv
seq 11 17 >b.csv
paste -d, a.csv b.csv | awk -F, '{ print $1 + $2 }' >want
expect 0 "" "$CARSH" run "$VADD" a=a.csv b=b.csv c=-
same_file "$OUT" want "vadd of two 7-value files without N"
paste -d, a.csv b.csv | awk -F, '{ print 2 * $1 + $2 }' >want
cp b.csv y.csv
expect 0 "" "$CARSH" run "$SAXPY" x=a.csv y=y.csv A=2
same_file y.csv want "saxpy in place (InOut) without N"

# Two streams that disagree: both named, with what each holds.
seq 1 6 >b6.csv
exact_err 1 "carsh: $VADD: streams 'a' and 'b' disagree on N: a.csv holds 7, b6.csv holds 6" \
	"$CARSH" run "$VADD" a=a.csv b=b6.csv c=-
exact_err 1 "carsh: $VADD: streams 'a' and 'b' disagree on N: <stdin> holds 7, b6.csv holds 6" \
	sh -c "\"$CARSH\" run \"$VADD\" a=- b=b6.csv c=- <a.csv"

# A count given anywhere wins over the data: the command line, a shell variable.
exact_err 1 "carsh: $SCALE: stream 'x': a.csv: 7 values, expected 3 (count=\"N\" with N=3; set N=7?)" \
	"$CARSH" run "$SCALE" x=a.csv y=- N=3
exact_err 1 "carsh: $SCALE: stream 'x': a.csv: 7 values, expected 3 (count=\"N\" with N=3; set N=7?)" \
	"$CARSH" -c "set N=3; run $SCALE x=a.csv y=-"

# Raw: 1.0f, 2.0f, -0.5f as little-endian bytes; the size gives N=3.
printf '\000\000\200\077\000\000\000\100\000\000\000\277' >x.raw
printf '2\n4\n-1\n' >want
expect 0 "" "$CARSH" run "$SCALE" x=x.raw y=-
same_file "$OUT" want "a .raw file of 12 bytes is 3 floats"
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=-:raw y=- <x.raw"
same_file "$OUT" want "-:raw on standard input: 3 floats"
head -c 10 x.raw >odd.raw
exact_err 1 "carsh: $SCALE: stream 'x': odd.raw: 10 bytes are not a whole number of float values (4 bytes each)" \
	"$CARSH" run "$SCALE" x=odd.raw y=-

# .npy: the shape gives N (a file written by carsh, its data checked with od).
expect 0 "" "$CARSH" run "$SCALE" x=a.csv y=y.npy A=1
tail -c 28 y.npy | od -An -tf4 -w28 | tr -s ' ' >got
echo ' 1 2 3 4 5 6 7' >want
same_file got want ".npy of 7 floats written with N from a CSV"
awk '{ print $1 * 2 }' a.csv >want
expect 0 "" "$CARSH" run "$SCALE" x=y.npy y=-
same_file "$OUT" want ".npy input: N=7 from its shape"
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=-:npy y=- <y.npy"
same_file "$OUT" want "-:npy on standard input: N=7 from its shape"

# float4 elements: 12 values are N=3; 10 values are no whole number of them.
printf '1,2,3,4,5,6,7,8,9,10,11,12\n' >v12.csv
cat >vec.xml <<'XML'
<FlowModel name="vec">
  <Param name="N" value="8"/>
  <Program>
    <Source>__kernel void k(__global const float4 *x, __global float4 *y) {
      size_t i = get_global_id(0); y[i] = x[i] + (float4)(1.0f); }</Source>
    <Kernel name="k"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="x" type="float4" count="N"/>
    <Output name="y" type="float4" count="N"/>
  </Arguments>
</FlowModel>
XML
tr ',' '\n' <v12.csv | awk '{ v = v (NR % 4 == 1 ? "" : ",") $1 + 1; if (NR % 4 == 0) { print v; v = "" } }' >want
expect 0 "" "$CARSH" run vec.xml x=v12.csv y=-
same_file "$OUT" want "float4: 12 values are N=3 elements"
printf '1,2,3,4,5,6,7,8,9,10\n' >v10.csv
exact_err 1 "carsh: vec.xml: stream 'x': v10.csv holds 10 values, not a whole number of 4-wide elements" \
	"$CARSH" run vec.xml x=v10.csv y=-

# Nothing to count, and a bad value found while counting.
exact_err 1 "carsh: $SCALE: stream 'x': <stdin> holds no values" \
	sh -c "\"$CARSH\" run \"$SCALE\" x=- y=- </dev/null"
printf '1\n2\nabc\n' >bad.csv
exact_err 1 "carsh: $SCALE: stream 'x': bad.csv:3:1: 'abc' is not a number" \
	"$CARSH" run "$SCALE" x=bad.csv y=-

# The values parsed to count an input are the job's (it does not parse the text again): the
# output is that of the same run given N, from standard input and from a file, and in the
# stream's resolved type (T=double keeps 16777217, which a float would round to 16777216).
awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "%.7g\n", (i * 7919 % 10007) / 37.0 - 100 }' >mixed.csv
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=- y=- N=20000 <mixed.csv"
cp "$OUT" with_n
expect 0 "" sh -c "\"$CARSH\" run \"$SCALE\" x=- y=- <mixed.csv"
same_file "$OUT" with_n "standard input without N: the output of the run with N=20000"
expect 0 "" "$CARSH" run "$SCALE" x=mixed.csv y=-
same_file "$OUT" with_n "a file without N: the output of the run with N=20000"
expect 0 "" env TMPDIR="$T/none" "$CARSH" run "$SCALE" x=mixed.csv y=-
same_file "$OUT" with_n "no \$TMPDIR to keep the values in: the job parses the file"
cat >typed.xml <<'XML'
<FlowModel name="typed">
  <Param name="N" value="8"/>
  <Param name="T" value="float"/>
  <Program>
    <Source>__kernel void k(__global const T *x, __global T *y) {
      size_t i = get_global_id(0); y[i] = x[i] * 2; }</Source>
    <Kernel name="k"/>
    <BuildOptions>-DT=${T}</BuildOptions>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="x" type="${T}" count="N"/>
    <Output name="y" type="${T}" count="N"/>
  </Arguments>
</FlowModel>
XML
printf '16777217\n-3\n' >odd.csv
printf '33554434\n-6\n' >want
expect 0 "" sh -c "\"$CARSH\" run typed.xml T=double x=- y=- <odd.csv"
same_file "$OUT" want "T=double: the kept values are doubles"
printf '33554432\n-6\n' >want
expect 0 "" "$CARSH" run typed.xml x=odd.csv y=-
same_file "$OUT" want "T=float: the kept values are floats"
# A file counted is opened once, by the count (the job reads the values kept): strace sees
# every process of a carsh without a server.
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	# (LeakSanitizer cannot run under a tracer: a sanitizer build skips its leak check here.)
	expect 0 "" env CARSH_SERVER=off ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=openat,open -o trace \
		"$CARSH" run "$SCALE" x=mixed.csv y=-
	same_file "$OUT" with_n "under strace, the same output"
	grep -c '"mixed.csv"' trace >got
	echo 1 >want
	same_file got want "mixed.csv is opened once"
fi
# A bad value on standard input keeps its line and field.
printf '1\n2\n3,x\n' >bad2.csv
exact_err 1 "carsh: $SCALE: stream 'x': <stdin>:3:2: 'x' is not a number" \
	sh -c "\"$CARSH\" run \"$SCALE\" x=- y=- <bad2.csv"

# Streams of any length: past CARSH_COUNT_MAX bytes, a map-like flow-model runs in chunks of
# whole lines of at most CARSH_CHUNK_BYTES bytes (here 5000 values in about 40 chunks).
seq 1 5000 >long.csv
awk '{ print $1 * 2 }' long.csv >want
expect 0 "" sh -c "CARSH_COUNT_MAX=1000 CARSH_CHUNK_BYTES=600 \"$CARSH\" run \"$SCALE\" x=- y=- <long.csv"
same_file "$OUT" want "5000 values through scale.xml in chunks of 600 bytes"
expect 0 "" sh -c "seq 1 5000 | xargs -n 7 | tr ' ' , | CARSH_COUNT_MAX=1000 CARSH_CHUNK_BYTES=600 \"$CARSH\" run \"$SCALE\" x=- y=-"
same_file "$OUT" want "rows of 7 values from a pipe, in chunks"
exact_err 1 "carsh: $SCALE: stream 'x': <stdin>: longer than CARSH_COUNT_MAX bytes, and it cannot run in chunks: stream 'y' is written to y.csv, which each chunk would replace; give the count (N=...)" \
	sh -c "CARSH_COUNT_MAX=1000 \"$CARSH\" run \"$SCALE\" x=- y=y.csv <long.csv"
exact_err 1 "carsh: $VADD: stream 'a': <stdin>: longer than CARSH_COUNT_MAX bytes, and it cannot run in chunks: stream 'b' is read from b.csv, which is not cut with standard input; give the count (N=...)" \
	sh -c "CARSH_COUNT_MAX=1000 \"$CARSH\" run \"$VADD\" a=- b=b.csv c=- <long.csv"
# Without CARSH_COUNT_MAX, a flow-model that can run in chunks gives way to them past four
# chunks of input; one that cannot counts its whole input as before.
expect 0 "" sh -c "CARSH_CHUNK_BYTES=600 \"$CARSH\" run \"$SCALE\" x=- y=- <long.csv"
same_file "$OUT" want "5000 values in chunks by default"
expect 0 "" sh -c "CARSH_CHUNK_BYTES=600 \"$CARSH\" run \"$SCALE\" x=- y=y.csv <long.csv"
same_file y.csv want "5000 values counted whole where chunks cannot run"
# A feed that pauses (tail -f) is run chunk by chunk as it comes, by default: the first
# part's results arrive while the writer still holds the pipe open, before the second part
# is written. (timeout only ends a carsh that never answers, so that a failure cannot hang
# the test.)
mkfifo feed.fifo results.fifo
timeout 60 "$CARSH" run "$SCALE" x=- y=- <feed.fifo >results.fifo 2>feed.err &
feeder=$!
exec 3>feed.fifo 4<results.fifo
printf '1\n2.5\n3\n' >&3
read -r r1 <&4
read -r r2 <&4
read -r r3 <&4
printf '%s %s %s\n' "$r1" "$r2" "$r3" >got
echo '2 5 6' >want
same_file got want "the first part of a paused feed, before the second is written"
printf '4\n-5\n' >&3
exec 3>&-
cat <&4 >got
exec 4<&-
printf '8\n-10\n' >want
same_file got want "the second part, once written"
wait "$feeder"
echo "$?" >got
echo 0 >want
same_file got want "the feed ends with the input: status 0 ($(cat feed.err))"

# A bad value in a later chunk is named by its line in the whole input (4000 is in about the
# 23rd chunk of 600 bytes).
seq 1 5000 | sed '4000s/.*/7,abc/' >bad4000.csv
exact_err 1 "carsh: $SCALE: stream 'x': <stdin>:4000:2: 'abc' is not a number" \
	sh -c "CARSH_COUNT_MAX=1000 CARSH_CHUNK_BYTES=600 \"$CARSH\" run \"$SCALE\" x=- y=- <bad4000.csv"
# Each chunk sets N to its own length: a flow-model that computes a value from N (a Constant,
# its build options) would give each chunk another one, so it does not run in chunks.
cp "$DATA/errors/chunk_const.xml" inv.xml
exact_err 1 "carsh: inv.xml: stream 'x': <stdin>: longer than CARSH_COUNT_MAX bytes, and it cannot run in chunks: Constant 'h' is computed from N ('1.0/N'); give the count (N=...)" \
	sh -c "CARSH_COUNT_MAX=1000 \"$CARSH\" run inv.xml x=- y=- <long.csv"
sed -e 's|value="1.0/N"|value="0.5"|' -e 's|<Kernel name="k"/>|<Kernel name="k"/><BuildOptions>-DLEN=${N}</BuildOptions>|' inv.xml >opts.xml
exact_err 1 "carsh: opts.xml: stream 'x': <stdin>: longer than CARSH_COUNT_MAX bytes, and it cannot run in chunks: its build options use \${N}; give the count (N=...)" \
	sh -c "CARSH_COUNT_MAX=1000 \"$CARSH\" run opts.xml x=- y=- <long.csv"
seq 1 300 | tr '\n' ',' >oneline.csv
exact_err 1 "carsh: $SCALE: stream 'x': <stdin>: a line longer than 600 bytes (CARSH_CHUNK_BYTES)" \
	sh -c "CARSH_COUNT_MAX=100 CARSH_CHUNK_BYTES=600 \"$CARSH\" run \"$SCALE\" x=- y=- <oneline.csv"

finish
