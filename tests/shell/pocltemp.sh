#!/bin/sh
# PoCL 3.1 leaves an empty kcache/tempfile_XXXXXX per process that starts its devices; carsh
# removes its own (carsh/runtime/pocltemp.h): no carsh, under either executor, with the
# server on or off, leaves one. A cache of this test's own, so that no other test's build
# adds or renames files while it counts.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

XDG_CACHE_HOME="$T/xdg"
CARSH_SERVER_DIR="$T/srv"
export XDG_CACHE_HOME CARSH_SERVER_DIR
K="$XDG_CACHE_HOME/pocl/kcache"
stop_all() { CARSH_SERVER= "$CARSH" server stop >/dev/null 2>&1; }
trap stop_all EXIT
seq 1 8 >x.csv
"$REF" scale 2 x.csv >want.csv

left() { ls "$K" 2>/dev/null | grep -c '^tempfile_'; }

for server in off on; do
	export CARSH_SERVER=$server
	for T_ in "-T" ""; do
		expect 0 "" "$CARSH" $T_ run "$FM/scale.xml" x=x.csv y=y.csv N=8
		same_file y.csv want.csv "carsh $T_ run (server $server)"
		expect 0 "" "$CARSH" $T_ -c 'echo hi'
	done
	expect 0 "" "$CARSH" -T -c 'devices'
done
unset CARSH_SERVER
stop_all
if [ ! -d "$K" ]; then
	echo "skip: the device's driver keeps no PoCL cache"
	finish
fi
n=$(left)
[ "$n" = 0 ] && pass "no tempfile_ left in PoCL's cache after 11 carsh" ||
	fail "$n tempfile_ left in $K: $(ls -l "$K")"
finish
