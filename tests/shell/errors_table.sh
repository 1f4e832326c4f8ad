#!/bin/sh
# The error table (docs/errors.md): every row of tests/data/errors.tsv is run and its exit
# status and exact standard error checked; docs/errors.md must be what the table generates.
. "$TOP_SRCDIR/tests/shell/lib.sh"
TSV="$DATA/errors.tsv"
cd "$T" || exit 1
cp "$DATA"/bad/* "$DATA"/errors/* "$DATA/graphs/bad_unknown_node.xml" "$DATA/batch/bad_op.bat.xml" .
seq 1 8 >x8.csv

# `carsh` in a row is the carsh under test; with_small_shm gives a command a 1 MiB /dev/shm;
# as_nobody runs it as a user that file permissions apply to (root passes them all).
mkdir -p bin
# Each carsh a row starts records its pid (exec keeps it) for the check of segments below.
printf '#!/bin/sh\necho $$ >>"%s/pids"\nexec "%s" "$@"\n' "$T" "$CARSH" >bin/carsh
cat >bin/with_small_shm <<'W'
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount -t tmpfs -o size=1M carsh-test /dev/shm && exec "$@"' sh "$@"
W
cat >bin/as_nobody <<'W'
#!/bin/sh
[ "$(id -u)" != 0 ] && exec "$@"
exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
W
printf '#!/bin/sh\nMPI_LIMIT=120 exec sh "%s/tests/tools/mpi-run" "$@"\n' "$TOP_SRCDIR" >bin/with_mpi
chmod +x bin/carsh bin/with_small_shm bin/as_nobody bin/with_mpi
PATH="$T/bin:$PATH"
export PATH
small_shm=yes
with_small_shm true 2>/dev/null || small_shm=no
: >pids
chmod 0666 pids # a row's carsh run as nobody records its pid too
nobody=yes
as_nobody carsh -c 'echo ok' >/dev/null 2>&1 || nobody=no

# matches PATTERN FILE: the file's text (less its last newline) is PATTERN, where '{...}'
# stands for any text and '\n' for a newline.
matches() {
	PAT="$1" awk '
		{ text = text (NR > 1 ? "\n" : "") $0 }
		END {
			pat = ENVIRON["PAT"]
			gsub(/\\n/, "\n", pat)
			n = split(pat, part, /\{\.\.\.\}/)
			if (n == 1)
				exit text != pat
			if (substr(text, 1, length(part[1])) != part[1])
				exit 1
			pos = length(part[1]) + 1
			for (i = 2; i < n; i++) {
				k = index(substr(text, pos), part[i])
				if (part[i] != "" && k == 0)
					exit 1
				pos += k - 1 + length(part[i])
			}
			last = part[n]
			exit !(length(text) - pos + 1 >= length(last) &&
			       substr(text, length(text) - length(last) + 1) == last)
		}' "$2"
}

rows=0
line=0
tab=$(printf '\t')
while IFS="$tab" read -r kind status msg cmd; do
	line=$((line + 1))
	case $kind in '#'* | '') continue ;; esac
	rows=$((rows + 1))
	what="row $rows (errors.tsv:$line, $kind): $cmd"
	case $cmd in
	with_small_shm*) if [ $small_shm = no ]; then
		echo "skip: $what (unshare cannot mount a /dev/shm here)"
		continue
	fi ;;
	with_mpi*) if ! mpi_ready; then
		echo "SKIP: $what (carsh built without MPI, or no mpirun)"
		continue
	fi ;;
	*as_nobody*) if [ $nobody = no ]; then
		echo "SKIP: $what (cannot run carsh as a user other than root here)"
		continue
	fi ;;
	esac
	(eval "$cmd") >"$OUT" 2>"$ERR" </dev/null
	got=$?
	if [ "$got" != "$status" ]; then
		fail "$what: exit status $got, expected $status; stderr: $(head -c 1000 "$ERR")"
	elif ! matches "$msg" "$ERR"; then
		fail "$what: stderr is
$(head -c 2000 "$ERR")
expected
$msg"
	else
		pass "$what -> $status"
	fi
done <"$TSV"
[ "$rows" -ge 40 ] && pass "the table has $rows rows" || fail "the table has only $rows rows"

# No row may leave a segment behind. /dev/shm is shared with the other tests of a parallel
# make check, some of which kill masters on purpose, so only the rows' own carsh count.
left=
for pid in $(sort -u pids); do
	left="$left$(segments_of "$pid")"
done
[ -z "$left" ] && pass "no row left a segment in /dev/shm ($(sort -u pids | wc -l) carsh processes)" ||
	fail "segments left in /dev/shm: $left"

sh "$TOP_SRCDIR/tests/fuzz/errors-doc.sh" "$TSV" >errors.md
if cmp -s errors.md "$TOP_SRCDIR/docs/errors.md"; then
	pass "docs/errors.md is generated from tests/data/errors.tsv"
else
	fail "docs/errors.md differs from what tests/data/errors.tsv gives: run 'make errors-doc'"
fi
finish
