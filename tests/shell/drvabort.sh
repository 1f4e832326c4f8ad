#!/bin/sh
# A driver's abort during an engine's device work (issue 40): PoCL aborts on a corrupt
# kernel cache (a .so it cannot dlopen) inside partition's warm-up; carsh still ends by the
# abort (134), but says what died and what to remove first, instead of no word at all.
# The cache and the server are this test's own, so the corruption touches no other test.
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
expect 134 "carsh: partition: $PR: the OpenCL driver aborted (SIGABRT) while the engine ran on its devices, taking carsh with it; its own message, if any, is above. A corrupt PoCL kernel cache aborts so: remove $T/cache/pocl/kcache and run again" part
rm -rf "$T/cache/pocl/kcache"
expect 0 "" part
[ ! -s "$ERR" ] && pass "with the cache removed as told, the run succeeds" || fail "stderr: $(cat "$ERR")"
"$CARSH" server stop >/dev/null 2>&1
finish
