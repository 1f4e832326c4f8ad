#!/bin/sh
# Data safety (issue 24, docs/hardening.md): a write stopped by SIGINT or SIGTERM, to the
# master or to the job, leaves no temporary file and the old file untouched; a
# write-protected file is refused, not replaced, and a replaced file keeps its mode and
# owner; input is read only as far as it can be right (a stream with a value too many, a
# NUL byte, an endless field). Runs under both executors (tests/thread/datasafety.tsh).
#
# The test polls for the events it waits for (a temporary file appearing, a process
# ending); nothing depends on timing.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
SINK="$DATA/fm/sink.xml"
SAXPY="$FM/saxpy.xml"
BIG=30000000 # 120 MB of output: its write takes long enough to be stopped in the middle

# The process $1 has ended (a zombie, or already waited for).
exited() {
	[ ! -e "/proc/$1" ] || [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -c1)" = Z ]
}

has_temp() {
	ls out.csv.?????? >/dev/null 2>&1
}

# ---- a write stopped by a signal ----
# stopped_write SIGNAL master|job: start a run that writes out.csv, send SIGNAL to the master
# or to the job's process once the temporary file exists, and check what is left.
stopped_write() {
	local sig="$1" whom="$2" pid job target what
	what="SIG$sig to the $whom while it writes out.csv"
	rm -f out.csv.??????
	printf 'old\n' >out.csv
	cp out.csv out.before
	"$CARSH" run "$SINK" x=fill:1.5 y=out.csv N=$BIG >/dev/null 2>stopped.err &
	pid=$!
	if ! wait_until "$what: the temporary file" has_temp; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		return
	fi
	job=$(jobs_of "$pid" | head -1)
	target=$pid
	[ "$whom" = job ] && target=$job
	kill -"$sig" "$target"
	wait "$pid"
	# The job's process ends on its own signal, maybe after the master.
	[ -n "$job" ] && wait_until "$what: the job's process to end" exited "$job"
	if has_temp; then
		fail "$what: left $(ls out.csv.??????)"
	else
		pass "$what: no temporary file left"
	fi
	if cmp -s out.csv out.before; then
		pass "$what: out.csv untouched"
	elif [ "$(wc -l <out.csv)" = $BIG ]; then
		pass "$what: the write finished before the signal: out.csv is complete"
	else
		fail "$what: out.csv is neither the old nor the new content"
	fi
}

stopped_write TERM master
stopped_write INT master
if process_executor; then
	stopped_write TERM job
	stopped_write INT job
fi

# ---- the values kept from counting an input ----
# A CSV input counted (no N) hands its values to the job in a temporary file of $TMPDIR; a
# carsh stopped while the job runs removes it. The job writes to a FIFO nobody reads, so it
# waits there, its values file in place, until the signal.
has_values() {
	ls values.tmp/carsh-values-*.raw >/dev/null 2>&1
}
stopped_with_values() {
	local sig="$1" pid what="SIG$1 to the master while the job reads the values it was handed"
	rm -rf values.tmp out.fifo
	mkdir values.tmp
	mkfifo out.fifo
	seq 1 1000 >in1000.csv
	TMPDIR="$T/values.tmp" "$CARSH" run "$SINK" x=in1000.csv y=out.fifo >/dev/null 2>values.err &
	pid=$!
	if ! wait_until "$what: the values file" has_values; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		return
	fi
	kill -"$sig" "$pid"
	wait "$pid"
	if has_values; then
		fail "$what: left $(ls values.tmp)"
	else
		pass "$what: no values file left"
	fi
}
stopped_with_values TERM
stopped_with_values INT

# ---- write-protected files ----
# as_user COMMAND...: run as a user that permissions apply to; as root, as 'nobody'.
as_user() {
	if [ "$(id -u)" != 0 ]; then
		"$@"
	elif command -v setpriv >/dev/null 2>&1; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	else
		runuser -u nobody -- "$@"
	fi
}

# A directory the user can write, and a carsh that user can run.
W="$T/w"
mkdir -p "$W"
chmod 0777 "$W"
if [ "$(id -u)" = 0 ] && ! as_user "$CARSH" -c 'echo ok' >/dev/null 2>&1; then
	echo "SKIP: cannot run carsh as another user than root (setpriv/runuser): the"
	echo "SKIP: write-protection checks need one"
else
	cd "$W" || exit 1
	export XDG_CACHE_HOME="$W/cache"
	seq 1 8 >x8.csv
	seq 8 -1 1 >ro.csv # not what the runs would write
	chmod 0444 ro.csv
	cp ro.csv ro.before
	chmod 0644 x8.csv ro.before
	[ "$(id -u)" = 0 ] && chown nobody x8.csv ro.csv ro.before
	msg="ro.csv: the file is write-protected (mode 0444); not replaced (make it writable first)"
	expect 1 "stream 'y': $msg" as_user "$CARSH" run "$SINK" x=x8.csv y=ro.csv N=8
	same_file ro.csv ro.before "an Output to a 0444 file leaves it as it was"
	expect 1 "stream 'y': $msg" as_user "$CARSH" run "$SAXPY" x=x8.csv y=ro.csv N=8 A=1
	same_file ro.csv ro.before "an InOut 0444 file is left as it was"
	expect 1 "virtbuf dump v: $msg" as_user "$CARSH" -c \
		'virtbuf create v float 8; virtbuf fill v --value 1; virtbuf dump v ro.csv'
	same_file ro.csv ro.before "virtbuf dump to a 0444 file leaves it as it was"
	[ "$(stat -c %a ro.csv)" = 444 ] && pass "the refused file keeps mode 0444" ||
		fail "the refused file's mode is now $(stat -c %a ro.csv)"
	ls ro.csv.?????? >/dev/null 2>&1 && fail "a refused write left $(ls ro.csv.??????)"

	# A writable file is replaced and keeps its mode, whatever the umask.
	seq 1 8 >rw.csv
	[ "$(id -u)" = 0 ] && chown nobody rw.csv
	chmod 0604 rw.csv
	expect 0 "" as_user sh -c 'umask 077; exec "$0" run "$1" x=x8.csv y=rw.csv N=8' \
		"$CARSH" "$SINK"
	same_file rw.csv x8.csv "a writable file is replaced"
	[ "$(stat -c %a rw.csv)" = 604 ] && pass "the replaced file keeps mode 0604 (umask 077)" ||
		fail "the replaced file's mode is now $(stat -c %a rw.csv), not 604"
	cd "$T" || exit 1
fi

# Root may write any file, as with cp(1) and sed -i: the file is replaced, and keeps its
# mode and its owner.
if [ "$(id -u)" = 0 ]; then
	seq 8 -1 1 >root.csv
	chmod 0444 root.csv
	chown nobody root.csv 2>/dev/null
	owner=$(stat -c %U root.csv)
	seq 1 8 >x8.csv
	expect 0 "" "$CARSH" run "$SINK" x=x8.csv y=root.csv N=8
	same_file root.csv x8.csv "root replaces a 0444 file"
	[ "$(stat -c '%a %U' root.csv)" = "444 $owner" ] &&
		pass "the file root replaced keeps mode 0444 and owner $owner" ||
		fail "the file root replaced is now $(stat -c '%a %U' root.csv)"
fi

# A file that is there is replaced by exchanging it with the finished temporary file, whose
# name then holds the old contents until they are removed: nothing of them is left beside
# it, and a reader that had the old file open still reads the old values.
seq 8 -1 1 >rep.csv
seq 1 8 >x8.csv
exec 7<rep.csv
expect 0 "" "$CARSH" run "$SINK" x=x8.csv y=rep.csv N=8
same_file rep.csv x8.csv "an existing output file is replaced"
ls rep.csv.?????? >/dev/null 2>&1 && fail "the replaced file's old contents left as $(ls rep.csv.??????)" ||
	pass "nothing left beside the replaced file"
seq 8 -1 1 >rep.before
cat <&7 >rep.open
exec 7<&-
same_file rep.open rep.before "a reader of the replaced file still reads its old contents"

# ---- input read without bound ----
# Memory stays bounded: an endless stream of NUL bytes is refused at its first byte. (A
# build under AddressSanitizer reserves terabytes of shadow memory at start: no memory limit
# there, the message alone.)
if grep -aq __asan_init "$TOP_BUILDDIR/carsh/carsh"; then
	limit=
else
	limit='ulimit -v 1048576; '
fi
expect 1 "virtbuf fill x: /dev/zero:1:1: field holds a NUL byte: not a number" \
	sh -c "$limit"'exec "$0" -c "virtbuf create x float 2; virtbuf fill x /dev/zero"' \
	"$CARSH"
# A stream of values is read until it has one too many (yes never ends by itself).
expect 1 "stream 'x': <stdin>: more than 3 values, expected 3" \
	sh -c 'yes 1 | timeout 120 "$0" run "$1" x=- y=discard N=3' "$CARSH" "$SINK"
expect 1 "<stdin>: more than 2 values, expected 2" \
	sh -c 'yes 1 | timeout 120 "$0" -c "virtbuf create x float 2; virtbuf fill x -"' "$CARSH"
# An endless field (no comma, no newline) is refused once it is longer than any number.
expect 1 "stream 'x': <stdin>:1:1: field longer than 4096 bytes: not a number" \
	sh -c 'yes 1 | tr -d "\n" | timeout 120 "$0" run "$1" x=- y=discard N=3' "$CARSH" "$SINK"
# A regular file is finite: a value too many is still counted to its end.
seq 1 9 >nine.csv
expect 1 "nine.csv: 9 values, expected 3" "$CARSH" run "$SINK" x=nine.csv y=discard N=3
# An InOut file of several hard links is written through every name (a rename would leave
# the other names the old contents): the same inode, the new values under both names.
seq 1 8 >hl.csv
seq 1 8 >x8.csv
ln -f hl.csv hl-link.csv
"$REF" saxpy 3 x8.csv hl.csv >hl-want.csv
expect 0 "" "$CARSH" run "$SAXPY" x=x8.csv y=hl.csv N=8 A=3
[ "$(stat -c %i hl.csv)" = "$(stat -c %i hl-link.csv)" ] && [ "$(stat -c %h hl.csv)" = 2 ] &&
	pass "an InOut file keeps its hard link" ||
	fail "hard link broken: inodes $(stat -c %i hl.csv) $(stat -c %i hl-link.csv)"
close_to hl-link.csv hl-want.csv 0 "the other name sees the InOut's result"
finish
