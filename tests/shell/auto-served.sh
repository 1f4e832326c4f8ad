#!/bin/sh
# `auto` with the user's carsh server on (docs/auto.md, docs/server.md): the shell asks a
# worker the server lends it for the device list (`server status` counts "device lists")
# instead of forking a discovery child, and places a job exactly where it does with
# CARSH_SERVER=off, where the child answers: the same devices in the same order (the names
# cpu0 and cpu1 are their indexes), the same device run.
#
# This test's server lives in a directory of its own, so that its counts are this test's.
# A history written by hand makes the choice certain: the second device listed is the faster.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

if ! process_executor; then
	echo "skip: the server's device list is for the process executor"
	finish
fi

CARSH_SERVER_DIR="$T/srv"
POCL_DEVICES="pthread basic"
XDG_CACHE_HOME="$T/xdg"
export CARSH_SERVER_DIR POCL_DEVICES XDG_CACHE_HOME
unset CARSH_SERVER CARSH_WORKERS
stop_all() { "$CARSH" server stop >/dev/null 2>&1; }
trap stop_all EXIT
mkdir -p "$XDG_CACHE_HOME/carsh"
seq 1 8 >x.csv
seq 2 9 >ref.csv
cp "$DATA/bad/good.xml" g.xml

if [ "$(CARSH_SERVER=off "$CARSH" -c devices | grep -c ' cpu ')" -ne 2 ]; then
	echo "POCL_DEVICES='$POCL_DEVICES' gives no two devices here: skipped"
	exit 77
fi
lists() { "$CARSH" server status | sed -n 's/^device lists //p'; }

# Each device's name as the history keeps it: a first run on each (auto explores), without
# the server.
expect 0 "" env CARSH_SERVER=off "$CARSH" --device auto run g.xml x=x.csv y=y0.csv
expect 0 "" env CARSH_SERVER=off "$CARSH" --device auto run g.xml x=x.csv y=y1.csv
close_to y1.csv ref.csv 0 "exploring: y"
names=$(cut -f4 "$XDG_CACHE_HOME/carsh/profiles.txt" | sed 1d)
[ "$(printf '%s\n' "$names" | wc -l)" -eq 2 ] || fail "history: $(cat "$XDG_CACHE_HOME/carsh/profiles.txt")"
gpath=$(pwd -P)/g.xml
dev1=$(CARSH_SERVER=off "$CARSH" -c devices | awk '$1 == 1 { print $3; exit }')
fast=$(printf '%s\n' "$names" | awk -v n="$dev1" 'index($0, n) == 1')
slow=$(printf '%s\n' "$names" | awk -v n="$dev1" 'index($0, n) != 1')
[ -n "$fast" ] && [ -n "$slow" ] || fail "device 1 ($dev1) not in the history: $names"
printf 'carsh-profiles 1\ndevice\t%s\tk\t%s\t8\t10000\t-1\t1\ndevice\t%s\tk\t%s\t8\t15000\t-1\t1\n' \
	"$gpath" "$fast" "$gpath" "$slow" >seeded.txt

# The server on: the list from its worker, counted once for this carsh.
"$CARSH" server start >/dev/null 2>&1 || "$CARSH" server status >/dev/null
[ "$(lists)" = 0 ] || fail "a fresh server counts $(lists) device lists"
cp seeded.txt "$XDG_CACHE_HOME/carsh/profiles.txt"
expect 0 "" "$CARSH" --device auto -c "time run g.xml x=x.csv y=on.csv; time run g.xml x=x.csv y=on2.csv"
close_to on.csv ref.csv 0 "auto, server on: y"
grep -E '^(place|jobs) ' "$ERR" | sed -n 's/;.*//; 1,2p' >on.txt
[ "$(lists)" = 1 ] && pass "the device list came from the server, once for the shell's two jobs" ||
	fail "device lists $(lists); stderr: $(cat "$ERR")"
grep -qx "place    auto: cpu1, forecast 10000 ms vs cpu0 15000 ms" on.txt &&
	pass "placed on the faster device, the second listed" || fail "on: $(cat on.txt)"

# The server off: the discovery child answers, and the job goes to the same device.
cp seeded.txt "$XDG_CACHE_HOME/carsh/profiles.txt"
expect 0 "" env CARSH_SERVER=off "$CARSH" --device auto -c "time run g.xml x=x.csv y=off.csv"
close_to off.csv ref.csv 0 "auto, server off: y"
grep -E '^(place|jobs) ' "$ERR" | sed 's/;.*//' >off.txt
[ "$(lists)" = 1 ] && pass "with CARSH_SERVER=off the server is not asked" || fail "device lists $(lists)"
[ -s on.txt ] && cmp -s on.txt off.txt && pass "the same placement and device with the server on and off" ||
	fail "on: $(cat on.txt); off: $(cat off.txt)"

# With CARSH_WORKERS=fresh (no pool) the child answers too.
cp seeded.txt "$XDG_CACHE_HOME/carsh/profiles.txt"
expect 0 "" env CARSH_WORKERS=fresh "$CARSH" --device auto -c "time run g.xml x=x.csv y=fresh.csv"
grep -E '^(place|jobs) ' "$ERR" | sed 's/;.*//' >fresh.txt
cmp -s on.txt fresh.txt && [ "$(lists)" = 1 ] && pass "fresh forks: the discovery child, the same placement" ||
	fail "fresh: $(cat fresh.txt); device lists $(lists)"
finish
