#!/bin/sh
# Pictures converted on the device (docs/executors.md "What moves when", docs/formats.md
# "PGM"): a PGM fill keeps its 8-bit samples beside the buffer and a warm worker widens them
# on its device; every other reader (a host dump, a value fill, a job in a fresh process,
# the thread executor) sees the same values; a PGM dump of a float buffer on a worker's device
# is narrowed there, to the bytes the host's conversion gives. Expected values come from the
# picture's bytes (od and awk), not from CarSh.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
ADD="$DATA/fm/addone.xml"  # y = x + 1; z += x
CRASH="$DATA/fm/crash.xml" # reads x, then writes through a null pointer
N=851                      # 37 x 23
"$TOP_BUILDDIR/tests/tools/imgref" pgm 37 23 7 pic.pgm
# The raster is the file's last N bytes (imgref writes an 8-bit P5 picture).
tail -c $N pic.pgm | od -An -v -tu1 | tr -s ' ' '\n' | grep -v '^$' >pic.values
[ "$(wc -l <pic.values)" = $N ] || fail "pic.values has $(wc -l <pic.values) values"
awk '{ print $1 + 1 }' pic.values >plus1.values
awk '{ print 2 * $1 }' pic.values >twice.values
MAKE="virtbuf create x float $N; virtbuf create y float $N; virtbuf create z float $N
virtbuf fill x pic.pgm"
# values FILE: a CSV dump's values, one a line.
values() { tr ',' '\n' <"$1"; }

# ---- a device job reads the picture; the host reads it too ----
expect 0 "" "$CARSH" -c "$MAKE
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y y.csv --columns 37; virtbuf dump z z.csv --columns 37
virtbuf dump x x.csv --columns 37"
values y.csv | same_file - plus1.values "a job on a PGM-filled buffer: y = x + 1, pixel by pixel"
values z.csv | same_file - pic.values "an InOut starts as the picture: z = 0 + x"
values x.csv | same_file - pic.values "a host dump (CSV) of a PGM-filled buffer gives its pixels"
expect 0 "" "$CARSH" -c "$MAKE
virtbuf dump x first.csv --columns 37"
values first.csv | same_file - pic.values "a host dump before any job gives the pixels"

# ---- a PGM dump: from the samples, or narrowed on the worker's device ----
expect 0 "" "$CARSH" -c "$MAKE
virtbuf dump x back.pgm --columns 37
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf dump z z.pgm --columns 37; virtbuf dump y y.pgm --columns 37"
cmp -s back.pgm pic.pgm && pass "a PGM-filled buffer dumped as PGM is the picture again" ||
	fail "back.pgm differs from pic.pgm"
cmp -s z.pgm pic.pgm && pass "z = x, on the device, dumped as PGM, is the picture" ||
	fail "z.pgm differs from pic.pgm"
{ printf 'P5\n37 23\n255\n'; printf "$(awk '{ printf "\\%o", ($1 >= 254 ? 255 : $1 + 1) }' pic.values)"; } >y.want
cmp -s y.pgm y.want && pass "y = x + 1 on the device, dumped as PGM: clamped at 255" ||
	fail "y.pgm differs from y.want"

# ---- a value fill, a second picture, a CSV fill: each replaces the picture ----
"$TOP_BUILDDIR/tests/tools/imgref" pgm 37 23 11 other.pgm
tail -c $N other.pgm | od -An -v -tu1 | tr -s ' ' '\n' | grep -v '^$' >other.values
expect 0 "" "$CARSH" -c "$MAKE
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf fill x --value 3
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y v.csv --columns 37; virtbuf dump x v.pgm --columns 37
virtbuf fill x other.pgm
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y o.csv --columns 37
virtbuf fill x x.csv
virtbuf dump x c.csv --columns 37" 2>/dev/null
yes 4 | head -$N >four.values
values v.csv | same_file - four.values "a value fill after a PGM fill: the job reads 3 + 1"
awk '{ print $1 + 1 }' other.values >other1.values
values o.csv | same_file - other1.values "a second PGM fill replaces the first on the device"
values c.csv | same_file - pic.values "a CSV fill after a PGM fill replaces it"

# ---- integer buffers: widened on the device to each kind ----
for t in uchar short int ulong; do
	cat >to-$t.xml <<XML
<FlowModel name="to_$t">
  <Param name="N" value="8"/>
  <Program>
    <Source>__kernel void to_$t(__global const $t *x, __global float *y)
{
	size_t i = get_global_id(0);
	y[i] = (float)x[i] * 2.0f;
}</Source>
    <Kernel name="to_$t"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="x" type="$t" count="N"/>
    <Output name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
	expect 0 "" "$CARSH" -c "virtbuf create i $t $N; virtbuf create y float $N
virtbuf fill i pic.pgm
run to-$t.xml N=$N x=buffer:i y=buffer:y
virtbuf dump y int-$t.csv --columns 37"
	values int-$t.csv | same_file - twice.values "a PGM fill of a $t buffer, read by a device job"
done

# ---- other executors and processes: the same values ----
CARSH_WORKERS=fresh expect 0 "" "$CARSH" -c "$MAKE
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y fresh.csv --columns 37; virtbuf dump y fresh.pgm --columns 37"
values fresh.csv | same_file - plus1.values "CARSH_WORKERS=fresh: a job in a fresh process reads the picture"
cmp -s fresh.pgm y.want && pass "CARSH_WORKERS=fresh: the host's PGM dump gives the same bytes" ||
	fail "fresh.pgm differs from y.want"
expect 0 "" "$CARSH" -c "$MAKE
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
set exec=thread
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y t.csv --columns 37; virtbuf dump z t2.csv --columns 37"
values t.csv | same_file - plus1.values "the thread executor taking over after a PGM fill: y = x + 1"
values t2.csv | same_file - twice.values "the thread executor taking over after a PGM fill: z = x + x"

# ---- the thread executor, once started, keeps the bytes too ----
# On a GPU it converts them on the device; on a CPU device on the host, unless the test hook
# CARSH_PIXELS_CPU=1 makes it use the device's kernels there too: both are checked.
for hook in 0 1; do
	CARSH_PIXELS_CPU=$hook expect 0 "" "$CARSH" -T -c "virtbuf create x float $N
virtbuf create y float $N; virtbuf create z float $N
run $ADD N=$N x=buffer:y y=buffer:z z=buffer:x
virtbuf fill x pic.pgm
virtbuf dump x tx.pgm --columns 37
run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z
virtbuf dump y ty.pgm --columns 37; virtbuf dump y ty.csv --columns 37
virtbuf dump x tx.csv --columns 37; virtbuf dump z tz.csv --columns 37"
	cmp -s tx.pgm pic.pgm && pass "-T ($hook): a PGM-filled buffer dumped as PGM is the picture" ||
		fail "-T ($hook): tx.pgm differs from pic.pgm"
	cmp -s ty.pgm y.want && pass "-T ($hook): y = x + 1, dumped as PGM" ||
		fail "-T ($hook): ty.pgm differs from y.want"
	values ty.csv | same_file - plus1.values "-T ($hook): y = x + 1, dumped as CSV"
	values tx.csv | same_file - pic.values "-T ($hook): the picture, dumped as CSV"
	values tz.csv | same_file - plus1.values "-T ($hook): z = 1 + x (the first job made z 1)"
done

# ---- a crash after a PGM fill: the picture is still whole ----
# Two documented forms (docs/executors.md): a CPU device's worker is killed in the crashing
# job; a GPU's fault comes back on the queue after the job answered and fails the next job
# that waits (its y is lost, and read in a job of its own after it), which ends the worker.
if process_executor; then
	crash_form
	# The worker that read x (and holds it) crashes; y1 and z1, written there, are lost.
	set -- "$MAKE" "virtbuf create y1 float $N; virtbuf create z1 float $N" \
		"run $ADD N=$N x=buffer:x y=buffer:y1 z=buffer:z1" \
		"run $CRASH N=$N x=buffer:x y=discard" "virtbuf dump x crash.csv --columns 37" \
		"run $ADD N=$N x=buffer:x y=buffer:y z=buffer:z"
	if [ "$CRASH_FORM" = queue ]; then
		set -- "$@" "virtbuf dump y lost.csv --columns 37" \
			"virtbuf create y2 float $N; virtbuf create z2 float $N" \
			"run $ADD N=$N x=buffer:x y=buffer:y2 z=buffer:z2" "virtbuf dump y2 after.csv --columns 37"
	else
		set -- "$@" "virtbuf dump y after.csv --columns 37"
	fi
	printf '%s\n' "$@" | "$CARSH" -i >"$OUT" 2>"$ERR"
	if [ "$CRASH_FORM" = queue ]; then
		lost_in y "$ERR" && [ ! -e lost.csv ] &&
			pass "the job after the fault failed: its y is lost, and its reader told" ||
			fail "crash: $(cat "$ERR")"
		grep -q "virtual buffer 'x' was lost" "$ERR" && fail "a PGM-filled buffer was lost: $(cat "$ERR")" ||
			pass "a worker that held a PGM-filled buffer failed: the picture is not lost"
	else
		grep -q "killed by SIGSEGV (kernel 'crash'" "$ERR" && pass "a job crashed its worker" ||
			fail "crash: $(cat "$ERR")"
		grep -q "was lost" "$ERR" && fail "a PGM-filled buffer was lost: $(cat "$ERR")" ||
			pass "a worker that held a PGM-filled buffer crashed: nothing is lost"
	fi
	values crash.csv | same_file - pic.values "after the crash the buffer still has the picture"
	values after.csv | same_file - plus1.values "after the crash a job reads the picture again"
fi

# ---- the samples are kept beside the buffer, and go with it ----
if process_executor; then
	start_carsh -i
	send "$MAKE"
	send "echo filled"
	wait_until "the fill" grep -q '^filled$' "$T/carsh.out"
	segments_of "$CPID" | grep -q -- '-8$' && pass "a PGM fill keeps its samples in a shared-memory object" ||
		fail "no pixels object: $(segments_of "$CPID")"
	send "virtbuf delete x"
	send "echo deleted"
	wait_until "the delete" grep -q '^deleted$' "$T/carsh.out"
	segments_of "$CPID" | grep -q -- '-8$' && fail "the pixels object outlived its buffer" ||
		pass "deleting the buffer removes its pixels"
	stop_carsh
fi

# ---- the device's narrowing is the host's, on values that round, clamp or are not numbers ----
# Bits of: NaN, -NaN, +inf, -inf, -1, -0, 0, the least denormal, 0.49999997, 0.5, 1.5, 2.5,
# 254.49998, 254.5, 255, 255.5, 256, FLT_MAX, 127.5, 0.50000006 (halves away from zero).
cat >bits.xml <<'XML'
<FlowModel name="bits">
  <Param name="N" value="20"/>
  <Program>
    <Source>__kernel void bits(__global const uint *b, __global float *y)
{
	size_t i = get_global_id(0);
	y[i] = as_float(b[i]);
}</Source>
    <Kernel name="bits"/>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="b" type="uint" count="N"/>
    <Output name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
printf '%s\n' 2143289344 4290772992 2139095040 4286578688 3212836864 2147483648 0 1 \
	1056964607 1056964608 1069547520 1075838976 1132363775 1132363776 1132396544 1132429312 1132462080 2139095039 1124007936 1056964609 >bits.csv
{ printf 'P5\n20 1\n255\n'; printf '\0\0\377\0\0\0\0\0\0\1\2\3\376\377\377\377\377\377\200\1'; } >bits.want
BITS="virtbuf create b uint 20; virtbuf create y float 20; virtbuf fill b bits.csv
run bits.xml b=buffer:b y=buffer:y"
expect 0 "" "$CARSH" -c "$BITS
virtbuf dump y dev.pgm --columns 20"
cmp -s dev.pgm bits.want && pass "special values narrowed on the device: NaN, signs, halves, clamps" ||
	fail "dev.pgm: $(od -An -tu1 dev.pgm | tr -s ' ' | tail -2)"
if process_executor; then
	CARSH_WORKERS=fresh expect 0 "" "$CARSH" -c "$BITS
virtbuf dump y host.pgm --columns 20"
	cmp -s host.pgm dev.pgm && pass "the host's conversion gives the same bytes" ||
		fail "host.pgm: $(od -An -tu1 host.pgm | tr -s ' ' | tail -2)"
fi
CARSH_PIXELS_CPU=1 expect 0 "" "$CARSH" -T -c "$BITS
virtbuf dump y thread.pgm --columns 20"
cmp -s thread.pgm bits.want && pass "the same narrowed on the thread executor's device" ||
	fail "thread.pgm: $(od -An -tu1 thread.pgm | tr -s ' ' | tail -2)"

# ---- errors keep their words ----
head -c 500 pic.pgm >short.pgm
expect 1 "virtbuf fill x: short.pgm: truncated: 487 of 851 pixels" "$CARSH" -c "$MAKE
virtbuf fill x short.pgm"
expect 1 "virtbuf fill w: pic.pgm: 37x23 = 851 pixels, expected 850" "$CARSH" -c "$MAKE
virtbuf create w float 850; virtbuf fill w pic.pgm"
printf '%s\n' "$MAKE" "virtbuf fill x short.pgm" "virtbuf dump x kept.csv --columns 37" |
	"$CARSH" -i >"$OUT" 2>"$ERR"
values kept.csv | same_file - pic.values "a refused PGM fill leaves the picture before it"
finish
