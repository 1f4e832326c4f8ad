#!/bin/sh
# A driver's abort during an engine's device work (issue 40): PoCL aborts on a corrupt
# kernel cache (a .so it cannot dlopen) inside partition's warm-up. Under the process
# executor the engine runs in a child of its own: the shell says what died, goes on with the
# next command, keeps the buffers the engine did not write and marks the one it wrote lost.
# Under -T the engine runs in the shell's process, which ends by the abort (134) after saying
# what died and what to remove. The cache and the server are this test's own, so the
# corruption touches no other test.
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
if process_executor; then
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
else
	expect 134 "carsh: partition: $PR: the OpenCL driver aborted (SIGABRT) while the engine ran on its devices, taking carsh with it; its own message, if any, is above. A corrupt PoCL kernel cache aborts so: remove $KC and run again" part
fi
rm -rf "$T/cache/pocl/kcache"
expect 0 "" part
[ ! -s "$ERR" ] && pass "with the cache removed as told, the run succeeds" || fail "stderr: $(cat "$ERR")"

# The pipeline engine the same way (examples/pipeline/vivid.xml, one configuration, 2 items).
sed "s|../../flowmodels|$FM|" "$TOP_SRCDIR/examples/pipeline/vivid.xml" >vivid.xml
mkdir -p out
pipe() { "$CARSH" pipeline --no-progress --gpu none --config CP-CG:1 vivid.xml W=64 H=48 COUNT=2; }
expect 0 "" pipe
"$CARSH" server stop >/dev/null 2>&1
find "$KC" -name '*.so' -exec sh -c 'rm -f "$1" && : >"$1"' sh {} \;
if process_executor; then
	expect 134 "carsh: pipeline: vivid.xml: the engine's worker ended: killed by SIGABRT (the OpenCL driver failed while the engine ran on its devices; its own message, if any, is above; a corrupt PoCL kernel cache aborts so: remove $KC and run again)" pipe
else
	expect 134 "carsh: pipeline: vivid: the OpenCL driver aborted (SIGABRT) while the engine ran on its devices, taking carsh with it; its own message, if any, is above. A corrupt PoCL kernel cache aborts so: remove $KC and run again" pipe
fi
rm -rf "$KC"
expect 0 "" pipe
"$CARSH" server stop >/dev/null 2>&1
finish
