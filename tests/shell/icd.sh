#!/bin/sh
# A job whose device is chosen by a pure type loads only the OpenCL vendors that give that
# type (runtime/icdtypes.h): here PoCL and a stand-in vendor (tests/tools/fakeicd.c) that
# notes every platform query, the call that starts a real driver (NVIDIA's, on a GPU machine).
# Learnt once per cache; relearnt when an ICD file changes or the cache file is corrupt;
# selectors that need every device (an index, auto) and the thread executor, whose one
# runtime serves every job of the shell, still load every vendor.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
pocl=/etc/OpenCL/vendors/pocl.icd
fake="$TOP_BUILDDIR/tests/tools/.libs/fakeicd.so"
if [ ! -f "$pocl" ] || [ ! -f "$fake" ]; then
	echo "SKIP: needs $pocl and $fake"
	exit 77
fi
mkdir vendors
cp "$pocl" vendors/pocl.icd
echo "$fake" >vendors/fake.icd
# Its own cache (the learnt map is this test's) and its own server, stopped at the end.
export OCL_ICD_VENDORS="$T/vendors" OCL_FAKEICD_MARK="$T/mark" XDG_CACHE_HOME="$T/xdg"
export CARSH_SERVER_DIR="$T/srv" CARSH_DEVICE=cpu
trap '"$CARSH" server stop >/dev/null 2>&1' EXIT
seq 1 8 >x.csv
seq 2 9 >want
cp "$DATA/bad/good.xml" k.xml

queries() { grep -c '^query' "$T/mark" 2>/dev/null; }
# quiet LABEL: the stand-in was never asked for its platforms since the last mark reset.
quiet() {
	[ "$(queries)" = 0 ] || [ ! -e "$T/mark" ] && pass "$1: the other vendor never started" ||
		fail "$1: the other vendor was asked $(queries) time(s)"
}
asked() {
	[ "$(queries)" -ge 1 ] 2>/dev/null && pass "$1: every vendor loaded" ||
		fail "$1: the other vendor was not asked"
}
jobs_cmd="run k.xml x=x.csv y=-; run k.xml x=x.csv y=b1.csv & run k.xml x=x.csv y=b2.csv & sync"
# quiet_both LABEL [VAR=VALUE...]: the jobs with the server off and on: right, and the other
# vendor never started.
quiet_both() {
	label=$1
	shift
	for server in off on; do
		rm -f mark
		expect 0 "" env "$@" CARSH_SERVER=$server "$CARSH" -c "$jobs_cmd"
		right "$label, server $server"
		quiet "$label, server $server"
	done
}
right() {
	same_file "$OUT" want "$1: the result is right"
	same_file b1.csv want "$1: a background job's result is right"
	same_file b2.csv want "$1: another background job's result is right"
	rm -f b1.csv b2.csv
}

# The first CPU job learns the vendors' types (the probe asks each vendor once).
expect 0 "" env CARSH_SERVER=off "$CARSH" -c "$jobs_cmd"
right "learning"
asked "learning"
map="$XDG_CACHE_HOME/carsh/icd/types.txt"

if process_executor; then
	[ -s "$map" ] && pass "the vendors' types are kept" || fail "no $map"
	ls -d "$XDG_CACHE_HOME"/carsh/icd/cpu-* >dirs 2>/dev/null
	[ "$(wc -l <dirs)" = 1 ] && [ "$(ls "$(cat dirs)")" = pocl.icd ] &&
		pass "the CPU's vendors directory holds pocl.icd alone" ||
		fail "vendors directories: $(cat dirs)"
	quiet_both "CARSH_DEVICE=cpu"
	# A job forked for itself (no worker) sets it in its own process.
	rm -f mark
	expect 0 "" env CARSH_SERVER=off CARSH_WORKERS=fresh "$CARSH" -c "$jobs_cmd"
	right "fresh processes"
	quiet "CARSH_WORKERS=fresh"
	rm -f mark
	expect 0 "" env CARSH_SERVER=off CARSH_DEVICE= "$CARSH" --device cpu -c "time $jobs_cmd"
	right "--device cpu"
	quiet "--device cpu"
	sed -n 's/^jobs  *1 on \(.*\);.*/\1/p' "$ERR" >on.narrow
	# The same job with every vendor: the same device, by the same name.
	rm -f mark
	expect 0 "" env CARSH_SERVER=off CARSH_ICD_BY_TYPE=0 "$CARSH" -c "time $jobs_cmd"
	right "CARSH_ICD_BY_TYPE=0"
	asked "CARSH_ICD_BY_TYPE=0"
	sed -n 's/^jobs  *1 on \(.*\);.*/\1/p' "$ERR" >on.all
	[ -s on.all ] && same_file on.narrow on.all "time names the same device either way"

	# A changed ICD file is probed again, once.
	touch vendors/fake.icd
	rm -f mark
	expect 0 "" env CARSH_SERVER=off "$CARSH" -c "$jobs_cmd"
	right "a changed ICD file"
	asked "a changed ICD file is probed again"
	rm -f mark
	expect 0 "" env CARSH_SERVER=off "$CARSH" -c "$jobs_cmd"
	quiet "after relearning"

	# A corrupt cache file is rebuilt.
	printf 'garbage\n\001\002 1 2 3\n' >"$map"
	rm -f mark
	expect 0 "" env CARSH_SERVER=off "$CARSH" -c "$jobs_cmd"
	right "a corrupt cache file"
	asked "a corrupt cache file is learnt again"
	grep -q garbage "$map" && fail "the corrupt lines stayed" || pass "the corrupt lines went"
	rm -f mark
	expect 0 "" env CARSH_SERVER=on "$CARSH" -c "$jobs_cmd"
	quiet "after the rebuild"
fi

# The stand-in named by OCL_ICD_FILENAMES instead (which Khronos's loader reads besides the
# directory, as a container's environment may set it): CPU jobs leave it out as well.
# Debian 12's ocl-icd (2.3.1) ignores the variable, and then there is nothing to see here:
# tests/unit/test_icdtypes.c checks the variables a job gets.
mkdir vendors-pocl
cp "$pocl" vendors-pocl/pocl.icd
filenames() { env OCL_ICD_VENDORS="$T/vendors-pocl" OCL_ICD_FILENAMES="$fake" "$@"; }
rm -f mark
filenames CARSH_SERVER=off CARSH_ICD_BY_TYPE=0 "$CARSH" -c devices >/dev/null 2>&1
if ! process_executor || ! [ "$(queries)" -ge 1 ] 2>/dev/null; then
	echo "skip: OCL_ICD_FILENAMES: not the process executor, or a loader that ignores it"
else
	# The first learns what the library gives (the probe asks it once).
	expect 0 "" filenames CARSH_SERVER=off "$CARSH" -c "$jobs_cmd"
	right "OCL_ICD_FILENAMES, learning"
	quiet_both "OCL_ICD_FILENAMES" OCL_ICD_VENDORS="$T/vendors-pocl" OCL_ICD_FILENAMES="$fake"
	"$CARSH" server stop >/dev/null 2>&1
fi

# A type no vendor gives narrows nothing: the same message, every device listed.
expect 1 "no OpenCL device matches 'gpu'" env CARSH_SERVER=off CARSH_DEVICE=gpu \
	"$CARSH" -c "run k.xml x=x.csv y=-"
cp "$ERR" gpu.narrow
expect 1 "" env CARSH_SERVER=off CARSH_DEVICE=gpu CARSH_ICD_BY_TYPE=0 \
	"$CARSH" -c "run k.xml x=x.csv y=-"
same_file gpu.narrow "$ERR" "an absent type's message is the one without narrowing"

# Selectors that need every device load every vendor, as does the thread executor.
for sel in 0 auto; do
	rm -f mark
	expect 0 "" env CARSH_SERVER=off CARSH_DEVICE=$sel "$CARSH" -c "$jobs_cmd"
	right "CARSH_DEVICE=$sel"
	asked "CARSH_DEVICE=$sel"
done
if ! process_executor; then
	rm -f mark
	expect 0 "" env CARSH_SERVER=off "$CARSH" -c "$jobs_cmd"
	right "thread executor"
	asked "the thread executor's one runtime"
fi
finish
