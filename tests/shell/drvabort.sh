#!/bin/sh
# A driver's abort during an engine's device work (issue 40): PoCL aborts on a corrupt
# kernel cache (a .so it cannot dlopen) inside partition's warm-up. The engine runs in a
# process of its own under both executors (a forked child under the process executor, a
# fresh carsh under -T): the shell says what died, goes on with the next command, keeps the
# buffers the engine did not write and marks the one it wrote lost. The cache and the server
# are this test's own, so the corruption touches no other test.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

XDG_CACHE_HOME="$T/cache"
CARSH_SERVER_DIR="$T/srv"
export XDG_CACHE_HOME CARSH_SERVER_DIR
unset POCL_CACHE_DIR
PR="$DATA/errors/partrows.xml"
part() { "$CARSH" partition --no-progress --gpu none --threads 1 --sched cpu "$PR" y=discard; }

expect 0 "" part
n=$(find "$T/cache/pocl/kcache" -name '*.so' | wc -l)
[ "$n" -gt 0 ] && pass "PoCL cached $n kernel binaries" || fail "no .so in $T/cache/pocl/kcache"
# Each .so replaced by an empty file (a new file: a process that still maps the old one, a
# session worker kept for the next -T session, keeps its pages), and the server stopped so
# that the next run builds its programs afresh from the cache.
"$CARSH" server stop >/dev/null 2>&1
find "$T/cache/pocl/kcache" -name '*.so' -exec sh -c 'rm -f "$1" && : >"$1"' sh {} \;
KC="$T/cache/pocl/kcache"
died="partition: $PR: the engine's worker ended: killed by SIGABRT (the OpenCL driver failed while the engine ran on its devices; its own message, if any, is above; a corrupt PoCL kernel cache aborts so: remove $KC and run again)"
expect 134 "carsh: $died" part
printf '%s\n' 'virtbuf create keep float 4' 'virtbuf fill keep --value 7' \
	'virtbuf create y float 256' 'virtbuf fill y --value 5' \
	"partition --no-progress --gpu none --threads 1 --sched cpu $PR y=buffer:y" \
	'echo the shell goes on' 'virtbuf dump keep' 'virtbuf dump y' >"$T/script"
interactive() { "$CARSH" -i <"$T/script"; }
expect 1 "carsh: virtbuf dump y: virtual buffer 'y' was lost: its newest data was on the device of a worker that ended (the worker of partition: $PR, killed by SIGABRT); fill it ('virtbuf fill y FILE') or create it again" interactive
grep -q "carsh: $died" "$ERR" && pass "in a script too, the engine's death is said" ||
	fail "stderr: $(cat "$ERR")"
[ "$(grep -v "^carsh>" "$OUT")" = "$(printf 'the shell goes on\n7\n7\n7\n7')" ] &&
	pass "the shell went on; the buffer the engine did not write is whole" ||
	fail "stdout: $(cat "$OUT")"
rm -rf "$T/cache/pocl/kcache"
expect 0 "" part
[ ! -s "$ERR" ] && pass "with the cache removed as told, the run succeeds" || fail "stderr: $(cat "$ERR")"

# What the engine's process wrote is what the next job reads, though under -T the thread
# executor held an older copy of the buffer on its device (y read by the first job): 0..255
# from partrows, never the 5s before it.
printf '%s\n' 'virtbuf create y float 256' 'virtbuf create z float 256' \
	'virtbuf fill y --value 5' "run $FM/scale.xml N=256 x=buffer:y y=buffer:z" \
	"partition --no-progress --gpu none --threads 1 --sched cpu $PR y=buffer:y > part.txt" \
	"run $FM/scale.xml N=256 A=1 x=buffer:y y=-" >"$T/written"
written() { "$CARSH" "$T/written"; }
expect 0 "" written
seq 0 255 >"$T/rows"
same_file "$OUT" "$T/rows" "the buffer the engine wrote, read by the next job"
grep -q "^partition .*partrows.xml: 256 items" part.txt && pass "the engine's summary went to the redirection" ||
	fail "part.txt: $(cat part.txt)"

# No engine process stays behind (one of this test's: its cache in the environment).
engine_procs() {
	for p in /proc/[0-9]*; do
		cat "$p/cmdline" 2>/dev/null | tr '\0' ' ' | grep -q -- '--engine-child' &&
			cat "$p/environ" 2>/dev/null | tr '\0' '\n' | grep -qx "XDG_CACHE_HOME=$T/cache" &&
			echo "${p#/proc/}"
	done
	return 0
}

# The pipeline engine the same way (examples/pipeline/vivid.xml, one configuration, 2 items).
sed "s|../../flowmodels|$FM|" "$TOP_SRCDIR/examples/pipeline/vivid.xml" >vivid.xml
mkdir -p out
pipe() { "$CARSH" pipeline --no-progress --gpu none --config CP-CG:1 vivid.xml W=64 H=48 COUNT=2; }
expect 0 "" pipe
"$CARSH" server stop >/dev/null 2>&1
find "$KC" -name '*.so' -exec sh -c 'rm -f "$1" && : >"$1"' sh {} \;
expect 134 "carsh: pipeline: vivid.xml: the engine's worker ended: killed by SIGABRT (the OpenCL driver failed while the engine ran on its devices; its own message, if any, is above; a corrupt PoCL kernel cache aborts so: remove $KC and run again)" pipe
rm -rf "$KC"
expect 0 "" pipe
"$CARSH" server stop >/dev/null 2>&1
[ -z "$(engine_procs)" ] && pass "no engine process left" || fail "left: $(engine_procs)"
finish
